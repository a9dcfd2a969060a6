package main

import (
	"fmt"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/relay"
)

// relayTransfer is the shutdown section's transfer: where a drain moves players, and the
// cookie's secret, read from its file.
func relayTransfer(s config.Shutdown) (relay.Transfer, error) {
	var t relay.Transfer
	if s.TransferTo != "" {
		host, port, err := relay.ParseTransferTarget(s.TransferTo)
		if err != nil {
			return t, fmt.Errorf("shutdown.transfer_to: %w", err)
		}
		t.Host, t.Port = host, port
	}
	if s.TransferSecretFile == "" {
		return t, nil
	}
	key, err := config.ReadTransferSecret(s.TransferSecretFile)
	if err != nil {
		return t, fmt.Errorf("shutdown.transfer_secret_file: %w", err)
	}
	t.Cookies = relay.NewTransferCookies(key, s.TransferCookieTTL)
	return t, nil
}
