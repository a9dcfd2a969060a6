//go:build linux

// Command engine is the spike's relay on loop, the engine built from the spike's choice:
// the same accept and dial as the others, then Engine.Register. For an exploratory comparison
// with `own` (what the engine adds: close reasons, byte counters, codec calls, the timer
// wheel), not part of the record's rule.
package main

import (
	"log"
	"net"

	"github.com/moonbridge/moonbridge/bench/spike/loop/internal/spike"
	"github.com/moonbridge/moonbridge/loop"
)

func main() {
	cfg := spike.Parse()
	e, err := loop.New(loop.Config{Loops: cfg.Loops})
	if err != nil {
		log.Fatal(err)
	}
	spike.Serve(cfg, func(player, backend net.Conn) error {
		_, err := e.Register(loop.Spec{Client: loop.Side{Conn: player}, Backend: loop.Side{Conn: backend}})
		return err
	})
}
