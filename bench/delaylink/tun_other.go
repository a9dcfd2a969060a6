//go:build !linux

package delaylink

import (
	"errors"
	"fmt"
	"os"
)

// OpenTUN needs Linux's TUN driver.
func OpenTUN(name string) (*os.File, error) {
	return nil, fmt.Errorf("delaylink: TUN %s: %w", name, errors.ErrUnsupported)
}
