package main

import (
	"fmt"
	"io"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// logWarnings writes one warn line per unsafe or useless client address setup in cfg (serve, at
// start and after each reload).
func logWarnings(log zerolog.Logger, cfg config.Config) {
	for _, w := range cfg.Warnings() {
		log.Warn().Str("key", w.Key).Str("warning", string(w.Kind)).Msg(w.String())
	}
}

// printWarnings writes them one a line for check-config.
func printWarnings(w io.Writer, cfg config.Config) {
	for _, warning := range cfg.Warnings() {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
}
