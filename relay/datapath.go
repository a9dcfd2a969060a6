package relay

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/moonbridge/moonbridge/internal/enum"
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

var dataPaths = []DataPath{DataPathAuto, DataPathLoop, DataPathGoroutines}

// DataPathConfig is the data path and, for the loop, how many loops and how sessions are placed
// on them. The config file's relay section is this struct.
type DataPathConfig struct {
	DataPath  DataPath  `yaml:"data_path"` // "": auto
	Loops     Loops     `yaml:"loops"`
	Placement Placement `yaml:"placement"` // "": pack
}

// DefaultDataPath is what a server owner gets: auto, on DefaultLoops loops, packed.
func DefaultDataPath() DataPathConfig {
	return DataPathConfig{DataPath: DataPathAuto, Loops: DefaultLoops, Placement: PlacementPack}
}

// Placement is how sessions are shared out between the loops (loop.Placement).
type Placement string

const (
	// PlacementPack keeps sessions on as few loops as carry them, moving sessions between loops
	// as the load changes: a light proxy costs what one loop costs, a busy one uses every loop
	// (bench/results/2026-12-04-loop-placement.md).
	PlacementPack Placement = "pack"
	// PlacementSpread gives each new session to the loop with the fewest sessions and never
	// moves one.
	PlacementSpread Placement = "spread"
)

var placements = []Placement{PlacementPack, PlacementSpread}

// UnmarshalText reads pack or spread.
func (p *Placement) UnmarshalText(text []byte) (err error) {
	*p, err = enum.Parse(text, placements...)
	return err
}

func (p Placement) loop() loop.Placement {
	if p == PlacementSpread {
		return loop.Spread
	}
	return loop.Pack
}

// UnmarshalText reads auto, loop or goroutines.
func (d *DataPath) UnmarshalText(text []byte) (err error) {
	*d, err = enum.Parse(text, dataPaths...)
	return err
}

func (d DataPath) String() string { return string(d) }

// Loops is how many event loops carry established sessions; 0 is one per CPU Go uses
// (GOMAXPROCS, loop.Config's default).
type Loops int

// DefaultLoops is what a server owner gets: one loop per CPU Go uses, so that a server with
// more cores has them all (bench/results/2026-12-01-cores.md: a second loop costs nothing by
// itself; one loop is one core's worth of players; on two cores shared with busy neighbours
// one loop costs less per frame, which docs/tuning.md tells owners of small machines).
const DefaultLoops Loops = 0

// UnmarshalText reads a whole number, 0 or more.
func (n *Loops) UnmarshalText(text []byte) error {
	v, err := strconv.Atoi(string(text))
	if err != nil {
		return fmt.Errorf("want a whole number, not %q", text)
	}
	*n = Loops(v)
	return n.check()
}

func (n Loops) check() error {
	if n < 0 {
		return errors.New("must be 0 (one per CPU Go uses) or positive")
	}
	return nil
}

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
	if err := enum.Check(cfg.DataPath, dataPaths...); err != nil {
		return fmt.Errorf("data path: %w", err)
	}
	if cfg.DataPath == DataPathLoop && !loop.Supported {
		return fmt.Errorf("data path loop: %w", loop.ErrUnsupported)
	}
	if err := cfg.Loops.check(); err != nil {
		return fmt.Errorf("loops: %w", err)
	}
	if cfg.Placement != "" {
		if err := enum.Check(cfg.Placement, placements...); err != nil {
			return fmt.Errorf("placement: %w", err)
		}
	}
	return nil
}

// startDataPath starts the event loops when the data path is loop (or auto where loops are
// supported) and says on one line which data path serves which protocol.
func (s *Server) startDataPath() error {
	cfg, why := s.settings().Config, "configured"
	if cfg.DataPath != DataPathGoroutines {
		engine, err := loop.New(loop.Config{Loops: int(cfg.Loops), Placement: cfg.Placement.loop()})
		switch {
		case err == nil:
			s.engine = engine
			s.logDataPath(engine.Stats().Loops, cfg.Placement.loop())
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

func (s *Server) logDataPath(loops int, placement loop.Placement) {
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
	msg := fmt.Sprintf("Data path: event loops (%d, %s) for %s", loops, placement, strings.Join(on, ", "))
	if len(off) > 0 {
		msg += "; goroutines for " + strings.Join(off, ", ") + " (TLS via crypto/tls)"
	}
	s.log.Info().Str("data_path", string(DataPathLoop)).Int("loops", loops).Stringer("placement", placement).
		Strs("loop_protocols", on).Msg(msg)
}

// closeDataPath stops the event loops once every session has ended (Close and Drain; the
// second call does nothing).
func (s *Server) closeDataPath() {
	if s.engine != nil {
		s.engine.Close()
	}
}

// loopStats are the event loops' gauges now, for a metrics scrape: their held buffers (partial
// writes waiting for a slow reader, in moonbridge_relay_buffers) and each loop's sessions
// (moonbridge_loop_sessions); zero without loops.
func (s *Server) loopStats() loop.Stats {
	if s.engine == nil {
		return loop.Stats{}
	}
	return s.engine.Stats()
}
