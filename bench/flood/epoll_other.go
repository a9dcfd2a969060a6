//go:build !linux

package flood

import (
	"context"
	"errors"
)

// runEpoll needs Linux's epoll and IP_BIND_ADDRESS_NO_PORT.
func runEpoll(context.Context, *Config) (Result, error) {
	return Result{}, errors.New("flood: the epoll engine is Linux only")
}
