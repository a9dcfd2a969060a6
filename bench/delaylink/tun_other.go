//go:build !linux

package delaylink

import (
	"errors"
	"fmt"
)

// OpenTUN needs Linux's TUN driver.
func OpenTUN(name string) (int, error) {
	return -1, fmt.Errorf("delaylink: TUN %s: %w", name, errors.ErrUnsupported)
}
