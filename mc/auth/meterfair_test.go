package auth_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/auth/authtest"
)

// loginOverPipe runs cfg's Login for a client of network and p's side of it over an in-memory
// pipe, and returns the proxy side's error. The player's side is closed once it has sent all it
// sends, so that a refusal written after that does not wait for a reader.
func loginOverPipe(cfg *auth.Config, p authtest.Player, network netip.Prefix) error {
	proxy, client := net.Pipe()
	deadline := time.Now().Add(10 * time.Second)
	proxy.SetDeadline(deadline)
	client.SetDeadline(deadline)
	done := make(chan error, 1)
	go func() {
		defer proxy.Close()
		r := bufio.NewReader(proxy)
		hello, err := mc.ReadHello(r, 0)
		if err != nil {
			done <- err
			return
		}
		send := func(frame []byte) error { _, err := proxy.Write(frame); return err }
		_, err = cfg.Login(context.Background(), auth.PlayerConn{R: r, Send: send, Network: network}, hello.Handshake.Protocol, network.Addr().String())
		done <- err
	}()
	p.Login(client, "play.example.net")
	client.Close()
	return <-done
}

// TestMeterIsFairBetweenNetworks: one network that logs in without an account as fast as 50
// connections can (each a login every 20 ms, 2,500 a second, where the relay lets a network
// through 5 a second) does not keep a player of another network out: all 8 of the player's
// logins, one after the other, get through. The meter is the default scaled 10 times faster
// (9 a second, burst 40, queue 20, max wait 2 s) to keep the test short.
//
// The bound is exact, not statistical: the player waits for at most one turn of the attacking
// network ahead of it in the queue (at most one queued or in-flight request per network), 2/9 s
// at the most, well under the 2 s max wait, and the fake session server answers at once, so
// the meter never pauses. Without per-network fairness the attacker's 50 connections keep the
// queue of 20 full, and the player is refused with queue_full.
func TestMeterIsFairBetweenNetworks(t *testing.T) {
	ss := authtest.NewSessionServer(t)
	set := auth.DefaultMeterSettings()
	set.Rate, set.MaxWait = set.Rate*10, set.MaxWait/10
	cfg := meteredConfig(t, ss, set)
	attacker, home := netip.MustParsePrefix("198.51.100.0/24"), netip.MustParsePrefix("203.0.113.0/24")

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var attempts atomic.Int64
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bot := authtest.Player{Name: "Bot", Protocol: 767, Sessions: ss, SkipJoin: true}
			for {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				attempts.Add(1)
				loginOverPipe(cfg, bot, attacker)
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	// The flood is under way: its requests spent the burst (or its refusals stopped them).
	testutil.WaitFor(t, "the attacking network's first 200 logins", func() bool { return attempts.Load() >= 200 })

	const logins = 8
	var through int
	var refusals []error
	for range logins {
		err := loginOverPipe(cfg, authtest.Player{Name: "Steve", Protocol: 767, Sessions: ss}, home)
		if err == nil {
			through++
		} else {
			refusals = append(refusals, err)
		}
	}
	if through != logins {
		t.Fatalf("the player of another network got %d of %d logins through while one network flooded; refused: %v",
			through, logins, errors.Join(refusals...))
	}
}

// TestMeterOneRequestPerNetworkWhileOthersWait: when no turn is free, a network has at most one
// request queued or in flight: its second login is refused (network_busy) while another
// network's waits for its turn; a waiter that gives up frees its network's place.
func TestMeterOneRequestPerNetworkWhileOthersWait(t *testing.T) {
	m := auth.NewMeter(auth.MeterSettings{Rate: 1, Burst: 1, Queue: 5, MaxWait: 2 * time.Second}, zerolog.Nop())
	a, b, c := netip.MustParsePrefix("198.51.100.0/24"), netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("192.0.2.0/24")
	if _, err := m.Acquire(context.Background(), a); err != nil { // the burst, in flight
		t.Fatal(err)
	}
	var me *auth.MeterError
	if _, err := m.Acquire(context.Background(), a); !errors.As(err, &me) || me.Reason != auth.MeterNetworkBusy {
		t.Fatalf("a second login of the network with a request in flight: %v, want network_busy", err)
	}
	gaveUp, cancel := context.WithCancel(context.Background())
	waited := make(chan error, 1)
	go func() { _, err := m.Acquire(gaveUp, c); waited <- err }()
	testutil.WaitFor(t, "c's login in the queue", func() bool { return m.Check(c) != nil })
	cancel()
	if err := <-waited; !errors.Is(err, context.Canceled) {
		t.Fatalf("c's waiter: %v, want its context's end", err)
	}
	if _, err := m.Acquire(context.Background(), b); err != nil {
		t.Errorf("another network's login: %v, want a turn after waiting", err)
	}
	if _, err := m.Acquire(context.Background(), c); err != nil {
		t.Errorf("the network whose waiter gave up: %v, want a turn", err)
	}
	wantCount(t, m, "moonbridge_login_meter_refused_total", auth.MeterNetworkBusy, 2) // a, and Check(c) once
}

// TestMeterPausesARefusedNetwork: a request the session server refused (no account) pauses its
// network for a second, then twice as long after the next refusal in a row; other networks go
// on, and a session server that failed pauses no network.
func TestMeterPausesARefusedNetwork(t *testing.T) {
	m := auth.NewMeter(auth.MeterSettings{Rate: 100, Burst: 10, Queue: 5, MaxWait: 5 * time.Second}, zerolog.Nop())
	bot, player := netip.MustParsePrefix("198.51.100.0/24"), netip.MustParsePrefix("2001:db8:1:2::/64")
	refused := func(want time.Duration) {
		t.Helper()
		ticket, err := m.Acquire(context.Background(), bot)
		if err != nil {
			t.Fatalf("the bot's network after its pause: %v", err)
		}
		m.Observe(ticket, auth.ErrNotAuthenticated)
		var me *auth.MeterError
		if err := m.Check(bot); !errors.As(err, &me) || me.Reason != auth.MeterNetworkBackoff || me.Wait > want || me.Wait < want-200*time.Millisecond {
			t.Fatalf("the bot's network after a refusal: %v, want network_backoff of about %v", err, want)
		}
	}
	refused(time.Second)
	ticket, err := m.Acquire(context.Background(), player)
	if err != nil {
		t.Fatalf("another network during the bot's pause: %v", err)
	}
	m.Observe(ticket, &auth.SessionServerError{Err: errors.New("connection reset")})
	if err := m.Check(player); err != nil {
		t.Errorf("a network whose request met a failing session server: %v, want no pause", err)
	}
	time.Sleep(time.Second)
	refused(2 * time.Second)
	wantCount(t, m, "moonbridge_login_meter_refused_total", auth.MeterNetworkBackoff, 2)
}
