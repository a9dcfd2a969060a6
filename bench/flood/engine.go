package flood

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Engines that run a flood's connections.
const (
	// EngineGo runs each connection in its own goroutine over net.Dialer (the netpoller, a
	// timer a deadline): every class, every transport.
	EngineGo = "go"
	// EngineEpoll runs the connections on a few locked threads, each with its own epoll and
	// non-blocking sockets, and sends canned bytes made once per flood: the cheap classes
	// (epollClasses) over tcp and ws, and over wss those that send no TLS of their own.
	EngineEpoll = "epoll"
)

// Engines are every engine.
var Engines = []string{EngineGo, EngineEpoll}

// epollClasses are those the epoll engine sends: canned bytes, then at most one answer awaited.
var epollClasses = []string{ClassIdle, ClassGarbage, ClassMalformed, ClassPing, ClassOffline, ClassTLSHello}

// CheckEngine refuses an unknown engine, or a class or transport the epoll engine cannot send.
func (c *Config) CheckEngine() error {
	switch c.Engine {
	case EngineGo, "":
		return nil
	case EngineEpoll:
	default:
		return fmt.Errorf("flood: engine %q: want one of %v", c.Engine, Engines)
	}
	switch {
	case !slices.Contains(epollClasses, c.Class):
		return fmt.Errorf("flood: the epoll engine sends %v, not %s", epollClasses, c.Class)
	case c.Transport == TransportWSS && !slices.Contains(rawOnAnyTransport, c.Class):
		return fmt.Errorf("flood: the epoll engine speaks no TLS: over wss only %v", rawOnAnyTransport)
	case c.EpollThreads < 1:
		return fmt.Errorf("flood: %d epoll threads: want at least 1", c.EpollThreads)
	}
	return nil
}

// cannedVariants is how many different first writes a canned flood cycles through: enough
// that names, payloads and kinds vary, few enough to make once.
const cannedVariants = 1024

// canned are a flood's bytes, made once: connection i sends upgrade (ws, when set) and then
// first[i mod len(first)] (nil for idle).
type canned struct {
	upgrade []byte
	first   [][]byte
	answer  bool // the class waits for the first byte of an answer; else for the proxy's close
}

// newCanned makes cfg's bytes (prepare has run: the ClientHello is in).
func newCanned(cfg *Config) *canned {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0))
	c := &canned{answer: slices.Contains([]string{ClassPing, ClassOffline, ClassTLSHello}, cfg.Class)}
	if cfg.Transport == TransportWS && !slices.Contains(rawOnAnyTransport, cfg.Class) {
		c.upgrade = UpgradeRequest(cfg.Host, cfg.WSPath, "")
	}
	for range cannedVariants {
		b := classBytes(cfg, rng)
		if c.upgrade != nil {
			var mask [4]byte
			for i := range mask {
				mask[i] = byte(rng.UintN(256))
			}
			b = maskedFrame(b, mask)
		}
		c.first = append(c.first, b)
	}
	return c
}

// classBytes is one connection's first write of the classes the epoll engine sends.
func classBytes(cfg *Config, rng *rand.Rand) []byte {
	switch cfg.Class {
	case ClassGarbage:
		return Garbage(rng)
	case ClassMalformed:
		return Malformed(rng, cfg.Host)
	case ClassPing:
		return Ping(cfg.Host, rng.Uint64())
	case ClassOffline:
		return Login(cfg.Host, RandomName(rng))
	case ClassTLSHello:
		return cfg.clientHello
	}
	return nil // idle
}
