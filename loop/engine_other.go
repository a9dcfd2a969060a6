//go:build !linux

package loop

// Supported says whether this system has event loops: not this one, so the relay keeps its
// goroutine pumps (the same session interface, two goroutines per session).
const Supported = false

// Engine is a stand-in on systems without event loops; New never returns one.
type Engine struct{}

// sessionSides has nothing to hold where there is no loop.
type sessionSides struct{}

// New says that this system has no event loops.
func New(Config) (*Engine, error) { return nil, ErrUnsupported }

func (*Engine) Register(Spec) (*Session, error) { return nil, ErrUnsupported }

func (*Engine) Close() error { return nil }

func (*Engine) Stats() Stats { return Stats{} }
