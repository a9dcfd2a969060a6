//go:build !linux

package netns

import (
	"errors"
	"fmt"
)

// Do needs Linux's setns.
func (n *NS) Do(func() error) error {
	return fmt.Errorf("netns %s: %w", n.Name, errors.ErrUnsupported)
}
