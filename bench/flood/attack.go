package flood

import (
	"bufio"
	"context"
	crand "crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"time"

	"github.com/moonbridge/moonbridge/bench/login"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/auth/authfake"
)

// Outcomes of one flood connection.
type outcome int

const (
	outAnswered      outcome = iota // the answer the class waits for came (ping, login, upgrade)
	outClosedByProxy                // the proxy closed (or reset) before the hold ended
	outHeld                         // still open when the hold ended; the generator closed it
	outConnectFailed                // connect, TLS or upgrade refused
	outOther                        // anything else (a write error)
)

// attack is one connection of a class; its stream is what the class's bytes go over.
type attack struct {
	cfg     *Config
	rng     *rand.Rand
	conn    net.Conn
	stream  io.ReadWriteCloser
	resumed bool // the wss handshake resumed a session
}

// run carries out the class on an open connection within the hold.
func (a *attack) run(ctx context.Context) outcome {
	deadline := time.Now().Add(a.cfg.Hold)
	a.conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { a.conn.SetDeadline(time.Now()) })
	defer stop()
	if err := a.open(); err != nil {
		return classify(err, outConnectFailed)
	}
	switch a.cfg.Class {
	case ClassIdle:
		return a.waitClose()
	case ClassGarbage:
		return a.sendThenWait(Garbage(a.rng))
	case ClassMalformed:
		return a.sendThenWait(Malformed(a.rng, a.cfg.Host))
	case ClassPing:
		return a.sendThenRead(Ping(a.cfg.Host, a.rng.Uint64()))
	case ClassOffline:
		return a.sendThenRead(Login(a.cfg.Host, RandomName(a.rng)))
	case ClassOnline:
		return a.online(true)
	case ClassNoAccount:
		return a.online(false)
	case ClassSlowTLS:
		return a.trickle(a.cfg.clientHello)
	case ClassTLSHello:
		return a.sendThenRead(a.cfg.clientHello)
	case ClassSlowWS:
		return a.trickle(UpgradeRequest(a.cfg.Host, a.cfg.WSPath, ""))
	case ClassBadToken:
		return a.sendThenRead(UpgradeRequest(a.cfg.Host, a.cfg.TokenPath, BadToken(a.rng)))
	}
	return outOther
}

// open wraps the connection for the transport: over wss TLS for every class but those that
// test the bytes before it, then (ws and wss) an upgrade for those that carry Minecraft bytes.
func (a *attack) open() error {
	a.stream = a.conn
	if a.cfg.Transport == TransportTCP || slices.Contains(rawOnAnyTransport, a.cfg.Class) {
		return nil
	}
	if a.cfg.Transport == TransportWSS {
		tc := tls.Client(a.conn, a.cfg.tlsConfig)
		if err := tc.Handshake(); err != nil {
			return err
		}
		a.conn, a.stream, a.resumed = tc, tc, tc.ConnectionState().DidResume
	}
	if a.cfg.Class == ClassSlowWS || a.cfg.Class == ClassBadToken {
		return nil
	}
	ws, err := upgrade(a.conn, a.cfg.Host, a.cfg.WSPath)
	if err != nil {
		return err
	}
	a.stream = ws
	return nil
}

// waitClose reads until the proxy closes or the hold ends.
func (a *attack) waitClose() outcome {
	_, err := io.Copy(io.Discard, a.stream)
	return classify(err, outClosedByProxy)
}

func (a *attack) sendThenWait(b []byte) outcome {
	if _, err := a.stream.Write(b); err != nil {
		return classify(err, outOther)
	}
	return a.waitClose()
}

// sendThenRead writes b and waits for the first byte of an answer.
func (a *attack) sendThenRead(b []byte) outcome {
	if _, err := a.stream.Write(b); err != nil {
		return classify(err, outOther)
	}
	var one [1]byte
	if _, err := io.ReadFull(a.stream, one[:]); err != nil {
		return classify(err, outClosedByProxy)
	}
	return outAnswered
}

// trickle writes b one byte per SlowInterval.
func (a *attack) trickle(b []byte) outcome {
	for i := range b {
		if _, err := a.stream.Write(b[i : i+1]); err != nil {
			return classify(err, outClosedByProxy)
		}
		if i < len(b)-1 {
			time.Sleep(a.cfg.SlowInterval)
		}
	}
	return a.waitClose()
}

// online logs in at the online route as far as the session server: Login Start, the
// Encryption Request answered (after joining at the fake session server when account is set),
// then the first byte of what the proxy sends once it asked the session server (encrypted; not
// decoded). Without an account the session server says the player has not joined: a login of
// a client that has no account, which still spends the proxy's turn at the session server.
func (a *attack) online(account bool) outcome {
	name := RandomName(a.rng)
	if _, err := a.stream.Write(Login(a.cfg.OnlineHost, name)); err != nil {
		return classify(err, outOther)
	}
	r := bufio.NewReaderSize(a.stream, 1024)
	sessions := a.cfg.Sessions
	if !account {
		sessions = nil
	}
	resp, _, err := encryptionAnswer(r, name, sessions)
	switch {
	case errors.Is(err, errRefusedAtLoginStart):
		return outAnswered // a refusal (the login meter's, say) is the proxy's answer too
	case err != nil:
		return classify(err, outClosedByProxy)
	}
	if _, err := a.stream.Write(resp); err != nil {
		return classify(err, outOther)
	}
	if _, err := r.ReadByte(); err != nil {
		return classify(err, outClosedByProxy)
	}
	return outAnswered
}

// The online route answered Login Start with something else than an Encryption Request: a
// login Disconnect (errRefusedAtLoginStart), or anything else.
var (
	errNotEncryptionRequest = errors.New("flood: online route did not send an Encryption Request")
	errRefusedAtLoginStart  = errors.New("flood: online route refused the login at Login Start")
)

// encryptionAnswer reads the Encryption Request, joins at sessions as name (unless sessions
// is nil: a client without an account) and returns the Encryption Response frame and the
// shared secret. A Disconnect instead is errRefusedAtLoginStart, with its fields.
func encryptionAnswer(r *bufio.Reader, name string, sessions *authfake.SessionServer) (resp, secret []byte, err error) {
	shape, _, _ := mc.LoginShapeOf(login.Protocol)
	body, err := mc.ReadParsed(r, readFrame)
	if err != nil {
		return nil, nil, err
	}
	id, fields, err := mc.PacketID(body)
	switch {
	case err == nil && id == mc.LoginDisconnectID:
		return fields, nil, errRefusedAtLoginStart
	case err != nil || id != mc.EncryptionRequestID:
		return nil, nil, errNotEncryptionRequest
	}
	req, err := mc.ParseEncryptionRequest(fields, shape)
	if err != nil {
		return nil, nil, fmt.Errorf("flood: %w", err)
	}
	secret = make([]byte, 16)
	crand.Read(secret)
	if sessions != nil {
		sessions.Join(name, auth.ServerHash(req.ServerID, secret, req.PublicKey))
	}
	enc, err := authfake.EncryptionResponse(req.PublicKey, secret, req.VerifyToken)
	if err != nil {
		return nil, nil, err
	}
	return mc.AppendEncryptionResponse(nil, shape, enc), secret, nil
}

// classify names how a read or write ended: the hold's deadline is a held connection, an end
// or reset from the proxy is closed (or failed), anything else is other.
func classify(err error, closed outcome) outcome {
	var ne net.Error
	switch {
	case err == nil || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) || isReset(err):
		return closed
	case errors.As(err, &ne) && ne.Timeout():
		return outHeld
	}
	return outOther
}
