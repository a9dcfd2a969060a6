package play

import (
	"errors"
	"fmt"
)

// ErrEncrypted: the server sent an Encryption Request, so the stream is encrypted from the
// client's answer on and the tracker can no longer read it.
var ErrEncrypted = errors.New("play: the server asked for encryption; the stream is encrypted from here on")

// Reasons a *StreamError carries besides package mc's (mc.ErrTooLarge, mc.ErrTruncated,
// mc.ErrMalformed, the VarInt ones); test them with errors.Is.
var (
	ErrBadCompression = errors.New("compressed packet is not valid zlib data of its declared length")
	ErrIDTooDeep      = errors.New("no packet id in the first 4096 bytes of compressed data")
)

// StreamError is a fault in the server-to-client stream: the tracker is lost from there on.
type StreamError struct {
	Offset int64 // where the frame holding the fault starts, in bytes since the tracker's first
	State  State // the state the frame was read in
	Err    error // a sentinel reason, or an *mc.ProtocolError from one of package mc's parsers
}

func (e *StreamError) Error() string {
	return fmt.Sprintf("play: %s frame at byte %d: %v", e.State, e.Offset, e.Err)
}

func (e *StreamError) Unwrap() error { return e.Err }
