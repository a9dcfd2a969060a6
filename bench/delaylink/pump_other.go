//go:build !linux

package delaylink

import (
	"errors"
	"fmt"
)

// The pumps need Linux's ppoll, eventfd and SCHED_FIFO.
func newWaker() (int, func() error, error) {
	return 0, nil, fmt.Errorf("delaylink: %w", errors.ErrUnsupported)
}

func (d *direction) run(chan<- bool) error { return errors.ErrUnsupported }

func (d *direction) close() error { return errors.ErrUnsupported }
