package client

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"time"

	"github.com/moonbridge/moonbridge/bench/login"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// readBuffer is the client's read buffer: one read may take a whole tick's answer or more.
const readBuffer = 64 << 10

// expectChunk is the most the client compares at once: a 2.1 MB login burst is checked piece
// by piece, so that thousands of sessions do not each keep a buffer of its size.
const expectChunk = 32 << 10

// handshakeHost and handshakePort are what the client names in its handshake; the relays under
// test route every host to the one backend.
const (
	handshakeHost = "localhost"
	handshakePort = 25565
)

// Session is one logged-in player.
type Session struct {
	name     string
	stream   Stream
	r        *bufio.Reader
	profile  traffic.Profile
	coalesce bool
	got      []byte // what came back for the current stage
	want     []byte // what had to
}

// Login dials, performs the offline login (online through an Online dialer) and receives the
// profile's login burst, returning how long the burst took from the client's position confirm
// to its last byte.
func Login(ctx context.Context, d Dialer, p traffic.Profile, name string, coalesce bool) (*Session, time.Duration, error) {
	stream, err := d.Dial(ctx)
	if err != nil {
		return nil, 0, &ConnectError{Err: err}
	}
	s := &Session{name: name, stream: stream, r: bufio.NewReaderSize(stream, readBuffer), profile: p, coalesce: coalesce}
	stop := context.AfterFunc(ctx, func() { stream.Close() })
	defer stop()
	burst, err := s.login(d)
	if err != nil {
		stream.Close()
		return nil, 0, err
	}
	return s, burst, nil
}

func (s *Session) login(d Dialer) (time.Duration, error) {
	if err := s.requestLogin(d); err != nil {
		return 0, err
	}
	start := time.Now()
	if _, err := s.stream.Write(login.AppendPositionConfirm(nil)); err != nil {
		return 0, err
	}
	if err := s.expect("login burst", 0, s.profile.LoginBurst().Bytes); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// requestLogin sends the handshake and Login Start, logs in online when d is an Online dialer
// (from then on the stream is encrypted) and checks the backend's login answer.
func (s *Session) requestLogin(d Dialer) error {
	if _, err := s.stream.Write(login.AppendRequest(nil, handshakeHost, handshakePort, s.name)); err != nil {
		return err
	}
	if online, ok := d.(Online); ok {
		if err := s.encrypt(online.Sessions); err != nil {
			return err
		}
	}
	return s.expect("login", 0, login.AppendAnswer(nil, s.name))
}

// expect reads len(want) bytes and checks them byte for byte.
func (s *Session) expect(stage string, seq uint64, want []byte) error {
	for off := 0; off < len(want); {
		n := min(len(want)-off, expectChunk)
		if cap(s.got) < n {
			s.got = make([]byte, n)
		}
		got, piece := s.got[:n], want[off:off+n]
		if _, err := io.ReadFull(s.r, got); err != nil {
			return err
		}
		if !bytes.Equal(got, piece) {
			at := firstDifference(got, piece)
			return &ValidationError{Session: s.name, Stage: stage, Seq: seq, Offset: off + at, Got: got[at], Want: piece[at]}
		}
		off += n
	}
	return nil
}

// Close ends the session.
func (s *Session) Close() error { return s.stream.Close() }
