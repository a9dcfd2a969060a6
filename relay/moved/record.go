// Package moved is the record of an established session that moves to a new process in a
// binary upgrade (relay/movesession_linux.go): what the new process needs to carry the session
// on and to write its one end line as the old process would have. It is a versioned byte
// format of its own (the channel, internal/handover, only carries it): a record of another
// format is refused and the session stays.
package moved

import (
	"encoding/binary"
	"fmt"
	"time"
)

// The record:
//
//	format uint16 | transport, listener, route, client, host str | next uint8 | protocol int32 |
//	backend, player, uuid, country, subject, token key, bridge, client state, tracker,
//	tls state str | tls version, tls cipher uint16 | login cipher str | flags uint8 (1 joined,
//	2 transfer in, 4 early data, 8 raw stream, 16 tls resumed, 32 proxy login) |
//	since unix ns int64 | bytes up, bytes down int64
//
// big-endian, each str a uint16 length and at most MaxText bytes, nothing after the
// last field. Format 2 is the same without the login cipher (and flag 32); format 1 also
// without the tls state, version and cipher (and flag 16). Parse reads all three.

// Format is the record's format version; Append writes it.
const Format uint16 = 3

// The older formats Parse reads: formatNoTLS before the TLS state, formatNoLogin before the
// login cipher; a record of them has none.
const (
	formatNoTLS   uint16 = 1
	formatNoLogin uint16 = 2
)

// MaxText bounds each text of a record (a host is at most 255 bytes, a route label a
// few hundred).
const MaxText = 1024

// Record is a moved session's state.
type Record struct {
	Transport string // the session's protocol: minecraft, ws or wss
	Listener  string // the address of the listener it came in on
	Route     string // its route's label
	Client    string // the player's address and port
	Host      string // the handshake's host and next state
	Next      uint8
	Protocol  int32 // the handshake's protocol version
	Backend   string
	Player    string // the name and UUID from Login Start, "" while not known
	UUID      string
	// Country, Subject, TokenKey and Bridge are what a WebSocket upgrade said: the country a
	// trusted proxy named, the access token's subject and key id, the bridge's local address.
	Country, Subject, TokenKey, Bridge string
	// ClientState is the player side's codec state (ws.LoopCodec.MarshalState); empty for raw
	// Minecraft and a raw stream.
	ClientState []byte
	// Tracker is the play tracker's state (play.Tracker.MarshalState) of a 1.20.5+ login;
	// empty for a session without one.
	Tracker []byte
	// TLSState is a wss session's TLS 1.3 record state (gossl.MovableCodec.MarshalMove): its
	// traffic keys, so the record goes only over the hand-over channel, is never logged, and
	// is cleared once sent or read. Empty for a session without TLS.
	TLSState []byte
	// TLSVersion, TLSCipher and TLSResumed are what a wss session's end line says of its
	// handshake (IANA ids); zero without TLS.
	TLSVersion, TLSCipher uint16
	TLSResumed            bool
	// LoginCipher is the player's AES/CFB8 state of a session whose login the proxy ran
	// (auth.LoopCodec.MarshalCipher): key material like TLSState, with the same care. Empty
	// for a login the backend runs.
	LoginCipher []byte
	// ProxyLogin: the proxy ran the player's login (an auth online or offline route), so its
	// end line says whether it was online (with a LoginCipher) or not.
	ProxyLogin bool
	// Joined: its join event was sent (its leave is sent where it ends); TransferIn: it came by
	// a transfer from another server; EarlyData, RawStream: the bridge's WebSocket modes.
	Joined, TransferIn, EarlyData, RawStream bool
	Since                                    time.Time
	Up, Down                                 int64 // bytes relayed so far, player to backend and back
}

const (
	flagJoined = 1 << iota
	flagTransferIn
	flagEarlyData
	flagRawStream
	flagTLSResumed
	flagProxyLogin
	knownFlags = flagJoined | flagTransferIn | flagEarlyData | flagRawStream | flagTLSResumed | flagProxyLogin
)

// Error says why a record cannot be read or written; the session stays with the old process.
type Error struct{ Reason string }

func (e *Error) Error() string { return "moved session record: " + e.Reason }

// Append encodes r after b; a text over its bound is an error (nothing is cut: the end line
// must say what the old process would have said).
func (r Record) Append(b []byte) ([]byte, error) {
	b = binary.BigEndian.AppendUint16(b, Format)
	for _, s := range []string{r.Transport, r.Listener, r.Route, r.Client, r.Host} {
		if b = appendString(b, s); b == nil {
			return nil, &Error{Reason: fmt.Sprintf("a text of %d bytes, at most %d", len(s), MaxText)}
		}
	}
	b = append(b, r.Next)
	b = binary.BigEndian.AppendUint32(b, uint32(r.Protocol))
	for _, s := range []string{r.Backend, r.Player, r.UUID, r.Country, r.Subject, r.TokenKey, r.Bridge, string(r.ClientState), string(r.Tracker)} {
		if b = appendString(b, s); b == nil {
			return nil, &Error{Reason: fmt.Sprintf("a text of %d bytes, at most %d", len(s), MaxText)}
		}
	}
	if b = appendSecret(b, r.TLSState); b == nil {
		return nil, &Error{Reason: fmt.Sprintf("a TLS state of %d bytes, at most %d", len(r.TLSState), MaxText)}
	}
	b = binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(b, r.TLSVersion), r.TLSCipher)
	if b = appendSecret(b, r.LoginCipher); b == nil {
		return nil, &Error{Reason: fmt.Sprintf("a login cipher of %d bytes, at most %d", len(r.LoginCipher), MaxText)}
	}
	b = append(b, r.flags())
	b = binary.BigEndian.AppendUint64(b, uint64(r.Since.UnixNano()))
	b = binary.BigEndian.AppendUint64(b, uint64(r.Up))
	return binary.BigEndian.AppendUint64(b, uint64(r.Down)), nil
}

func (r Record) flags() uint8 {
	var flags uint8
	for bit, on := range map[uint8]bool{flagJoined: r.Joined, flagTransferIn: r.TransferIn, flagEarlyData: r.EarlyData, flagRawStream: r.RawStream, flagTLSResumed: r.TLSResumed, flagProxyLogin: r.ProxyLogin} {
		if on {
			flags |= bit
		}
	}
	return flags
}

// appendSecret appends key material with its length, as bytes (a string copy of keys could not
// be cleared); nil when it is over MaxText.
func appendSecret(b []byte, secret []byte) []byte {
	if len(secret) > MaxText {
		return nil
	}
	return append(binary.BigEndian.AppendUint16(b, uint16(len(secret))), secret...)
}

// appendString appends s with its length, nil when s is over MaxText.
func appendString(b []byte, s string) []byte {
	if len(s) > MaxText {
		return nil
	}
	return append(binary.BigEndian.AppendUint16(b, uint16(len(s))), s...)
}

// Parse reads a record: a *Error for another format, a record cut short, a
// text over its bound, unknown flags, negative byte counts or bytes after the end.
func Parse(p []byte) (Record, error) {
	d := recordReader{p: p}
	var r Record
	format := d.uint16()
	if d.err == nil && (format < formatNoTLS || format > Format) {
		return r, &Error{Reason: fmt.Sprintf("format %d; this binary reads formats %d to %d", format, formatNoTLS, Format)}
	}
	r.Transport, r.Listener, r.Route, r.Client, r.Host = d.string(), d.string(), d.string(), d.string(), d.string()
	r.Next = d.uint8()
	r.Protocol = int32(d.uint32())
	r.Backend, r.Player, r.UUID = d.string(), d.string(), d.string()
	r.Country, r.Subject, r.TokenKey, r.Bridge = d.string(), d.string(), d.string(), d.string()
	r.ClientState, r.Tracker = d.bytes(), d.bytes()
	if format >= formatNoLogin {
		r.TLSState = d.secret()
		r.TLSVersion, r.TLSCipher = d.uint16(), d.uint16()
	}
	if format == Format {
		r.LoginCipher = d.secret()
	}
	flags := d.uint8()
	since := int64(d.uint64())
	r.Up, r.Down = int64(d.uint64()), int64(d.uint64())
	switch {
	case d.err != nil:
		return Record{}, d.err
	case len(d.p) > 0:
		return Record{}, &Error{Reason: fmt.Sprintf("%d bytes after the record", len(d.p))}
	case flags&^knownFlags != 0, format == formatNoTLS && flags&flagTLSResumed != 0,
		format < Format && flags&flagProxyLogin != 0:
		return Record{}, &Error{Reason: fmt.Sprintf("unknown flags %#x", flags)}
	case len(r.LoginCipher) > 0 && flags&flagProxyLogin == 0:
		clear(r.LoginCipher)
		return Record{}, &Error{Reason: "a login cipher without a login the proxy ran"}
	case r.Up < 0 || r.Down < 0:
		return Record{}, &Error{Reason: "negative byte counts"}
	}
	r.Joined, r.TransferIn = flags&flagJoined != 0, flags&flagTransferIn != 0
	r.EarlyData, r.RawStream = flags&flagEarlyData != 0, flags&flagRawStream != 0
	r.TLSResumed, r.ProxyLogin = flags&flagTLSResumed != 0, flags&flagProxyLogin != 0
	r.Since = time.Unix(0, since)
	return r, nil
}

// recordReader reads a record's fields in order; the first field cut short sets err, and every
// read after it returns zero.
type recordReader struct {
	p   []byte
	err error
}

func (d *recordReader) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if len(d.p) < n {
		d.err = &Error{Reason: fmt.Sprintf("cut short: %d bytes left where %d follow", len(d.p), n)}
		return nil
	}
	b := d.p[:n]
	d.p = d.p[n:]
	return b
}

func (d *recordReader) uint8() uint8 {
	if b := d.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (d *recordReader) uint16() uint16 {
	if b := d.take(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

func (d *recordReader) uint32() uint32 {
	if b := d.take(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

func (d *recordReader) uint64() uint64 {
	if b := d.take(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

// bytes is a str field as bytes, nil when empty.
func (d *recordReader) bytes() []byte {
	if s := d.string(); s != "" {
		return []byte(s)
	}
	return nil
}

// secret is a str field copied as bytes without a string in between (a string of keys could
// not be cleared), nil when empty.
func (d *recordReader) secret() []byte {
	n := int(d.uint16())
	if d.err == nil && n > MaxText {
		d.err = &Error{Reason: fmt.Sprintf("a text of %d bytes, at most %d", n, MaxText)}
	}
	if b := d.take(n); len(b) > 0 {
		return append([]byte(nil), b...)
	}
	return nil
}

func (d *recordReader) string() string {
	n := int(d.uint16())
	if d.err == nil && n > MaxText {
		d.err = &Error{Reason: fmt.Sprintf("a text of %d bytes, at most %d", n, MaxText)}
	}
	return string(d.take(n))
}
