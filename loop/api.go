package loop

import (
	"net"
	"runtime"
	"sync/atomic"
	"time"
)

// Config says how many loops, how sessions are placed on them and how big their buffers are.
type Config struct {
	Loops      int           // 0: GOMAXPROCS
	Placement  Placement     // the zero value is Spread
	Balance    time.Duration // Pack: how often the loops' load is read and sessions moved; 0: DefaultBalance
	BufferSize int           // the most one read takes, per loop; 0: 64 KiB
	Tick       time.Duration // resolution of the per-loop timer wheel; 0: 100 ms
	// Drain bounds how long, once one side has left, what the other still sends is read and
	// dropped before its socket is closed (see leave); 0: DefaultDrain.
	Drain time.Duration
}

// DefaultDrain is Config.Drain's default.
const DefaultDrain = 2 * time.Second

// DefaultBalance is Config.Balance's default: a quarter of a second, so that a loop that has
// been full for half a second gets help, while a login burst of a few milliseconds moves nothing.
const DefaultBalance = 250 * time.Millisecond

// Placement is how the engine shares sessions out between its loops.
type Placement uint8

const (
	// Spread gives each new session to the loop with the fewest sessions and never moves one.
	Spread Placement = iota
	// Pack keeps sessions on as few loops as carry them: a new session goes to the first loop
	// (in order) that is not full, and every Config.Balance the engine moves sessions from a
	// loop that has been full to one with room, or all of the last busy loop's sessions onto
	// another when together they are light. A loop with no session sleeps without waking, so
	// a light proxy costs what one loop costs (bench/results/2026-12-04-loop-placement.md).
	Pack
)

func (p Placement) String() string {
	if p == Pack {
		return "pack"
	}
	return "spread"
}

// balanced: the engine runs Pack's balancer (withDefaults' Loops, more than one).
func (c Config) balanced() bool { return c.Placement == Pack && c.Loops > 1 }

func (c Config) withDefaults() Config {
	if c.Loops <= 0 {
		c.Loops = runtime.GOMAXPROCS(0)
	}
	if c.BufferSize <= 0 {
		c.BufferSize = 64 << 10
	}
	if c.Tick <= 0 {
		c.Tick = 100 * time.Millisecond
	}
	if c.Drain <= 0 {
		c.Drain = DefaultDrain
	}
	if c.Balance <= 0 {
		c.Balance = DefaultBalance
	}
	return c
}

// Spec is an established session handed to Register.
type Spec struct {
	Client, Backend Side
	// OnClose runs once when the session has ended, on the loop goroutine: it must not block
	// (write the log line, count the metrics, return) and must not call Engine.Close. It may
	// run before Register has returned (a session reset at once).
	OnClose func(Result)
}

// Side is one socket of a session.
type Side struct {
	// Conn is the socket (a *net.TCPConn, or anything whose SyscallConn is a stream socket).
	// Register dups its descriptor and closes Conn: the loop owns the socket from then on.
	Conn net.Conn
	// Codec is the side's wire format; nil is Identity (plain TCP).
	Codec Codec
	// Pending is stream bytes already read from this side (a sniffer's or a decoder's
	// buffer) that the other side gets before anything read later. At most BufferSize.
	Pending []byte
}

// Result is how a session ended.
type Result struct {
	Err error // nil: both directions ended cleanly; else *pipe.SideError, ErrShutdown or Close's reason
	// Up and Down are the stream bytes handed to the backend's and to the client's socket.
	Up, Down int64
	// FirstEnd is the side whose stream ended first (a FIN, or its codec's end of stream), so
	// that a clean end can say who closed: a server that kicked the player is not the player
	// leaving. Meaningful when Err is nil (both streams ended).
	FirstEnd Which
}

// Session is the relay's handle on a registered session.
type Session struct {
	up, down atomic.Int64
	spec     Spec
	post     func(*Session, error)         // asks the session's loop to close it
	send     func(*Session, func() []byte) // asks the session's loop to run a Send
	closed   bool                          // loop-only
	released bool                          // loop-only: its sockets are closed (closeSockets)
	reported bool                          // loop-only: OnClose has run, or is running
	firstEnd Which                         // loop-only: the side whose stream ended first
	anyEnd   bool                          // loop-only: one stream has ended
	sides    sessionSides                  // loop-only
}

// Bytes is what the session has handed on so far, each way (for metrics scraped while it runs).
func (s *Session) Bytes() (up, down int64) { return s.up.Load(), s.down.Load() }

// Close ends the session with reason (nil: ErrCloseRequested), on its loop, soon; OnClose
// gets reason. A session that has already ended is not affected.
func (s *Session) Close(reason error) {
	if reason == nil {
		reason = ErrCloseRequested
	}
	s.post(s, reason)
}

// Send runs fill on the session's loop, between two events, and delivers the stream bytes it
// returns to the client as if the backend had sent them: through the client's codec, behind
// what the loop holds for the client. fill decides on the loop goroutine, so it may read and
// change the state of the session's codecs (the relay puts a packet in only at a packet
// boundary of the backend's stream, which its backend codec knows). A session that has ended,
// or ends before its loop gets to it, does not run fill; nil or empty bytes deliver nothing, and
// at most Config.BufferSize bytes are delivered.
func (s *Session) Send(fill func() []byte) {
	if fill != nil {
		s.send(s, fill)
	}
}

// Stats are the engine's gauges, for metrics.
type Stats struct {
	Loops    int    // event loops running
	Sessions int64  // registered and not yet ended
	Held     int64  // held buffers (partial writes waiting for a slow reader)
	Wakeups  uint64 // returns from epoll_wait, all loops: how busy the loops are
	Panics   uint64 // sessions a panic in their work ended (PanicError), all loops, since New
	Moves    uint64 // sessions moved from one loop to another (Pack), all loops, since New
	// PerLoop is each loop's sessions (registered and not yet ended), in loop order: how
	// Register and the moves have shared them out.
	PerLoop []int64
	// Busy is each loop's share of the last Config.Balance spent working rather than waiting
	// (0 to 1), in loop order, as Pack's balancer read it; nil under Spread.
	Busy []float64
}
