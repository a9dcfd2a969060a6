package main

import (
	"fmt"
	"os"
	"strings"

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
	secret, err := os.ReadFile(s.TransferSecretFile)
	if err != nil {
		return t, fmt.Errorf("shutdown.transfer_secret_file: %w", err)
	}
	key := []byte(strings.TrimRight(string(secret), "\r\n"))
	if len(key) == 0 {
		return t, fmt.Errorf("shutdown.transfer_secret_file %s is empty", s.TransferSecretFile)
	}
	t.Cookies = relay.NewTransferCookies(key, s.TransferCookieTTL)
	return t, nil
}
