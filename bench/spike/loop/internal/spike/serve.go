// Package spike is what the three spike relays share: the command line mbbench's --serve
// passes, and the accept-and-dial goroutine that hands each established pair of sockets to a
// loop. Only the loop differs between the relays.
package spike

import (
	"flag"
	"fmt"
	"log"
	"net"
	"os"
)

// Config is the spike relay's command line.
type Config struct {
	Listen, Backend string
	Loops           int  // event loops (all three relays; the record runs 1, as HAProxy's nbthread 1)
	LockThread      bool // runtime.LockOSThread in each loop goroutine
}

// Parse reads `serve --listen ADDR --backend ADDR [--log-format F] [--tls-provider P]
// [--loops N] [--lock-thread]`: the first four are what mbbench --serve passes to moonbridge
// (the last two of those are accepted and ignored), the rest come from --serve-arg.
func Parse() Config {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "serve" {
		args = args[1:]
	}
	var c Config
	fs := flag.NewFlagSet(os.Args[0], flag.ExitOnError)
	fs.StringVar(&c.Listen, "listen", "127.0.0.1:25590", "listen `ADDR`")
	fs.StringVar(&c.Backend, "backend", "127.0.0.1:25566", "backend `ADDR`")
	fs.IntVar(&c.Loops, "loops", 1, "event loops")
	fs.BoolVar(&c.LockThread, "lock-thread", false, "runtime.LockOSThread in each loop goroutine")
	fs.String("log-format", "", "ignored (mbbench passes it)")
	fs.String("tls-provider", "", "ignored (mbbench passes it)")
	_ = fs.Parse(args)
	return c
}

// Serve accepts players on cfg.Listen, dials the backend for each on a goroutine of its own (the
// slow steps stay off the loop, as in moonbridge) and hands both connections to hand, which
// owns them from then on.
func Serve(cfg Config, hand func(player, backend net.Conn) error) {
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		log.Fatal(err)
	}
	for {
		player, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go func() {
			backend, err := net.Dial("tcp", cfg.Backend)
			if err != nil {
				log.Print(err)
				player.Close()
				return
			}
			if err := hand(player, backend); err != nil {
				log.Print(fmt.Errorf("hand over: %w", err))
			}
		}()
	}
}
