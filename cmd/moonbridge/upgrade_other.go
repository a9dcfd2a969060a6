//go:build !linux

package main

import (
	"context"
	"io"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/relay"
)

// Upgrading in place is built for Linux only (SIGUSR2, a unix socketpair with credentials,
// systemd): elsewhere serve is never an upgrade's new process and SIGUSR2 does nothing.

type upgradeChild struct{}

func takeOver(*sockets) (*upgradeChild, error)  { return nil, nil }
func (c *upgradeChild) logStart(zerolog.Logger) {}
func (c *upgradeChild) ready() error            { return nil }
func (c *upgradeChild) fail(err error) error    { return err }

func (c *upgradeChild) takeSessions(*relay.Server, zerolog.Logger) {}

type upgrader struct{}

func catchUpgrades() *upgrader { return &upgrader{} }

func (u *upgrader) start(context.Context, io.Writer, *sockets, func() config.Upgrade, zerolog.Logger) {
}

func (u *upgrader) handedOver() <-chan successor { return nil }
func (u *upgrader) stop()                        {}
