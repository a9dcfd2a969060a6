package ws

import (
	"time"

	"github.com/rs/zerolog"
)

// MaxBatchSize is the largest payload one WriteBatch sends as one binary
// message (docs/design.md, "Rules of the data path": one message per batch,
// at most 64 KiB).
const MaxBatchSize = 64 << 10

// Defaults. The size limits are generous because the connection is a byte
// stream: a Minecraft frame (up to 2^21-1 bytes in vanilla) may span any
// number of messages, so these limits bound memory-free counters, not
// buffers, and only stop a peer that announces absurd lengths.
const (
	DefaultMaxFrameSize      = 16 << 20
	DefaultMaxMessageSize    = 16 << 20
	DefaultPingInterval      = 30 * time.Second
	DefaultDeadPeerIntervals = 3
	DefaultCloseTimeout      = 5 * time.Second
)

// Config holds the settings of one connection. Start from DefaultConfig:
// a zero PingInterval disables the keepalive (docs/design.md, "Rules of the
// data path": 0 turns it off), so the zero Config has no keepalive; zero
// sizes and timeouts mean defaults.
type Config struct {
	// MaxFrameSize and MaxMessageSize bound a frame's and a fragmented
	// message's announced payload length; over them the peer gets 1009.
	MaxFrameSize   int64
	MaxMessageSize int64
	// PingInterval is the longest the connection stays silent: a task runs
	// every PingInterval/2 and pings if nothing was written in the half
	// interval before. Zero disables the keepalive and the dead-peer check.
	PingInterval time.Duration
	// DeadPeerIntervals closes the connection (1001) after the peer sent
	// nothing at all for this many PingIntervals while a Read was waiting
	// (time the reader spends elsewhere does not count). Zero means the
	// default; negative disables the check.
	DeadPeerIntervals int
	// CloseTimeout bounds the write of a close frame and, after bad input, how long what the
	// peer still sends is read and dropped before the socket closes (see Conn.close).
	CloseTimeout time.Duration
	// Clock drives the keepalive; nil means the real clock. Tests inject one.
	Clock Clock
	// Logger receives one line per connection closed for bad input or a
	// dead peer. The zero Logger discards.
	Logger zerolog.Logger
}

// DefaultConfig returns the settings moonbridge runs with.
func DefaultConfig() Config {
	return Config{
		MaxFrameSize:      DefaultMaxFrameSize,
		MaxMessageSize:    DefaultMaxMessageSize,
		PingInterval:      DefaultPingInterval,
		DeadPeerIntervals: DefaultDeadPeerIntervals,
		CloseTimeout:      DefaultCloseTimeout,
	}
}

// withDefaults fills the zero fields that have defaults.
func (c Config) withDefaults() Config {
	if c.MaxFrameSize <= 0 {
		c.MaxFrameSize = DefaultMaxFrameSize
	}
	if c.MaxMessageSize <= 0 {
		c.MaxMessageSize = DefaultMaxMessageSize
	}
	if c.DeadPeerIntervals == 0 {
		c.DeadPeerIntervals = DefaultDeadPeerIntervals
	}
	if c.CloseTimeout <= 0 {
		c.CloseTimeout = DefaultCloseTimeout
	}
	if c.Clock == nil {
		c.Clock = realClock{}
	}
	return c
}
