package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/moonbridge/moonbridge/bench/modern"
)

// FollowConfig is how a Follower joins and plays.
type FollowConfig struct {
	Host     string // the first join's handshake names Host:Port
	Port     uint16
	Interval time.Duration // between echoes while waiting for the Transfer
	Payload  int           // bytes of each echo
}

// What became of a Follower (FollowResult.Outcome).
const (
	OutcomeMoved        = "moved"         // transferred, and back in play where the Transfer said
	OutcomeDisconnected = "disconnected"  // a Disconnect came instead of a Transfer
	OutcomeLost         = "lost"          // the stream ended (or broke) without a Disconnect
	OutcomeRejoinFailed = "rejoin_failed" // transferred, but the join at the new address failed
	OutcomeStayed       = "stayed"        // nothing came before the run was stopped
)

// EchoCount counts echoes that came back byte for byte (OK) and that came back different or
// not at all (Bad).
type EchoCount struct {
	OK  int `json:"ok"`
	Bad int `json:"bad"`
}

// FollowResult is what happened to one Follower.
type FollowResult struct {
	Name       string
	Outcome    string
	Detail     string    // the Disconnect's reason, or the error
	TransferAt time.Time // when the Transfer arrived; zero without one
	BackAt     time.Time // when the player was in play again at To; zero unless moved
	To         string    // host:port the Transfer named
	State      string    // the state the Transfer came in: configuration or play
	Before     EchoCount // echoes on the first server
	After      EchoCount // echoes on the second (one, right after the rejoin)
}

// Follower is a 1.21.1 (protocol 767) player that stays in play, echoes every interval, and
// follows a Transfer as a vanilla client does: it leaves, dials the host:port it was given
// through the same kind of dialer, and joins with next state 3 and the cookies it was stored.
type Follower struct {
	d      Dialer
	cfg    FollowConfig
	client *modern.Client
	seq    int
	res    FollowResult
}

// JoinFollower dials d, joins as name and echoes once; it returns once the player is in play.
func JoinFollower(ctx context.Context, d Dialer, name string, cfg FollowConfig) (*Follower, error) {
	c, err := joinModern(ctx, d, cfg.Host, cfg.Port, name, modern.NextLogin, nil)
	if err != nil {
		return nil, err
	}
	f := &Follower{d: d, cfg: cfg, client: c, res: FollowResult{Name: name}}
	f.echo(&f.res.Before)
	return f, nil
}

// Run echoes every Interval until a Transfer, follows it and echoes once on the new server,
// and returns what happened; a Disconnect or the stream's end ends it too, and so does ctx
// (OutcomeStayed when nothing came).
func (f *Follower) Run(ctx context.Context) FollowResult {
	for {
		wait, cancel := context.WithTimeout(ctx, f.cfg.Interval)
		tr, err := f.client.AwaitTransfer(wait)
		cancel()
		var de *modern.DisconnectError
		switch {
		case err == nil:
			f.follow(ctx, tr)
			return f.res
		case ctx.Err() != nil:
			f.res.Outcome = OutcomeStayed
			return f.res
		case errors.Is(err, context.DeadlineExceeded):
			f.echo(&f.res.Before)
			continue
		case errors.As(err, &de):
			f.res.Outcome, f.res.Detail = OutcomeDisconnected, de.Reason
		default:
			f.res.Outcome, f.res.Detail = OutcomeLost, err.Error()
		}
		return f.res
	}
}

// follow leaves for the Transfer's address and joins there.
func (f *Follower) follow(ctx context.Context, tr modern.Transfer) {
	f.res.TransferAt = time.Now()
	f.res.To, f.res.State = net.JoinHostPort(tr.Host, strconv.Itoa(int(tr.Port))), tr.State
	f.client.Close()
	f.client = nil
	d, err := Redirect(f.d, f.res.To)
	if err == nil {
		f.client, err = joinModern(ctx, d, tr.Host, tr.Port, f.res.Name, modern.NextTransfer, tr.Cookies)
	}
	if err != nil {
		f.res.Outcome, f.res.Detail = OutcomeRejoinFailed, err.Error()
		return
	}
	f.res.BackAt, f.res.Outcome = time.Now(), OutcomeMoved
	f.echo(&f.res.After)
}

// echo sends one payload and counts its answer; a Transfer or the end that comes instead is
// left for the next AwaitTransfer.
func (f *Follower) echo(n *EchoCount) {
	f.seq++
	payload := make([]byte, f.cfg.Payload)
	for i := range payload {
		payload[i] = byte(f.seq*31 + i) // differs from echo to echo, so a stale answer shows
	}
	var bad *modern.EchoError
	switch err := f.client.Echo(payload); {
	case err == nil:
		n.OK++
	case errors.As(err, &bad), errors.Is(err, modern.ErrEchoTimeout):
		n.Bad++
	}
}

// Close ends the player's session.
func (f *Follower) Close() error {
	if f.client == nil {
		return nil
	}
	return f.client.Close()
}

// joinModern dials d and joins; ctx ending closes the stream and so ends the join.
func joinModern(ctx context.Context, d Dialer, host string, port uint16, name string, next int32, cookies map[string][]byte) (*modern.Client, error) {
	stream, err := d.Dial(ctx)
	if err != nil {
		return nil, &ConnectError{Err: err}
	}
	stop := context.AfterFunc(ctx, func() { stream.Close() })
	c, err := modern.Join(stream, host, port, name, next, cookies)
	if !stop() && err == nil {
		c.Close()
		return nil, ctx.Err()
	}
	if err != nil {
		stream.Close()
	}
	return c, err
}

// Redirect is d dialing addr (host:port) instead, as a player follows a Transfer: a ws or wss
// dialer keeps its URL (Host header, TLS server name, path) and only connects elsewhere.
func Redirect(d Dialer, addr string) (Dialer, error) {
	switch d := d.(type) {
	case TCPDialer:
		d.Addr = addr
		return d, nil
	case webSocketDialer:
		d.cfg.Address = addr
		return d, nil
	}
	return nil, fmt.Errorf("client: a %T cannot follow a transfer", d)
}
