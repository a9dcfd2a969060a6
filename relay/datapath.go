package relay

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/moonbridge/moonbridge/loop"
)

// DataPath says what moves an established session's bytes (docs/design.md, "Established
// sessions on event loops").
type DataPath string

const (
	// DataPathAuto is the loop where this system has one (Linux), the goroutines elsewhere.
	DataPathAuto DataPath = "auto"
	// DataPathLoop runs established sessions on event loops (loop): no goroutine per
	// session. Sessions whose player side the loop cannot take (Server.loopProtocols) keep
	// their pumps. Starting fails where there are no loops.
	DataPathLoop DataPath = "loop"
	// DataPathGoroutines runs two pumps per session, one per direction (internal/pipe).
	DataPathGoroutines DataPath = "goroutines"
)

// loopProtocols are the protocols whose sessions move to the loop (their downstream's
// loopSide): minecraft and ws, and wss when its TLS server can detach an established session,
// which goes along as a codec. Otherwise (crypto/tls) wss keeps its pumps.
func (s *Server) loopProtocols() []Protocol {
	on := []Protocol{Minecraft, WS}
	if tls := s.settings().TLS; tls != nil && tls.CanDetach() {
		on = append(on, WSS)
	}
	return on
}

// checkDataPath checks the data path settings (New's, and a Reload's, which does not apply them).
func checkDataPath(cfg Config) error {
	switch cfg.DataPath {
	case "", DataPathAuto, DataPathGoroutines:
	case DataPathLoop:
		if !loop.Supported {
			return fmt.Errorf("data path loop: %w", loop.ErrUnsupported)
		}
	default:
		return fmt.Errorf("unknown data path %q (auto, loop or goroutines)", cfg.DataPath)
	}
	if cfg.Loops < 0 {
		return fmt.Errorf("loops: %d, want 0 (one per GOMAXPROCS) or more", cfg.Loops)
	}
	return nil
}

// startDataPath starts the event loops when the data path is loop (or auto where loops are
// supported) and says on one line which data path serves which protocol.
func (s *Server) startDataPath() error {
	cfg, why := s.settings().Config, "configured"
	if cfg.DataPath != DataPathGoroutines {
		loops := cmp.Or(cfg.Loops, runtime.GOMAXPROCS(0))
		engine, err := loop.New(loop.Config{Loops: loops})
		switch {
		case err == nil:
			s.engine = engine
			s.logDataPath(loops)
			return nil
		case errors.Is(err, loop.ErrUnsupported) && cfg.DataPath != DataPathLoop:
			why = "no event loops on this system"
		default:
			return fmt.Errorf("starting the event loops: %w", err)
		}
	}
	s.log.Info().Str("data_path", string(DataPathGoroutines)).Str("reason", why).
		Msg("Data path: goroutines (two per session)")
	return nil
}

func (s *Server) logDataPath(loops int) {
	var on, off []string
	loopProtocols := s.loopProtocols()
	for _, p := range []Protocol{Minecraft, WS, WSS} {
		switch {
		case slices.Contains(loopProtocols, p):
			on = append(on, string(p))
		case p != WSS || s.settings().TLS != nil: // no TLS: no wss to speak of
			off = append(off, string(p))
		}
	}
	msg := fmt.Sprintf("Data path: event loops (%d) for %s", loops, strings.Join(on, ", "))
	if len(off) > 0 {
		msg += "; goroutines for " + strings.Join(off, ", ") + " (TLS via crypto/tls)"
	}
	s.log.Info().Str("data_path", string(DataPathLoop)).Int("loops", loops).Strs("loop_protocols", on).Msg(msg)
}

// closeDataPath stops the event loops once every session has ended (Close and Drain; the
// second call does nothing).
func (s *Server) closeDataPath() {
	if s.engine != nil {
		s.engine.Close()
	}
}

// loopHeld is how many held buffers the event loops have now (partial writes waiting for a
// slow reader), for moonbridge_relay_buffers.
func (s *Server) loopHeld() int64 {
	if s.engine == nil {
		return 0
	}
	return s.engine.Stats().Held
}
