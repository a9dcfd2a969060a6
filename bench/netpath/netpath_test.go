package netpath

import (
	"fmt"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// openPath opens a path with rtt for the test, or skips where namespaces and TUN devices
// cannot be made (not root, no /dev/net/tun): scripts/expected-skips.txt lists this.
func openPath(t *testing.T, rtt time.Duration) *Path {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: network namespaces and TUN devices")
	}
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		t.Skipf("needs /dev/net/tun: %v", err)
	}
	p, err := Open(fmt.Sprintf("mbtest-%d", os.Getpid()), rtt)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return p
}

// late is how much later than the model a step may be: pumps waking on a loaded 2-core machine
// (make test runs the race detector over four packages at once) and the namespaces' stacks,
// generously. Earlier than the model is never allowed.
const late = 50 * time.Millisecond

// TestTCPSeesTheRoundTripOfTheModel checks the delay model of package delaylink on a real
// path: a client that connects and writes at once sees connect return after one round trip,
// its first byte reach the server at 1.5 and the server's immediate answer come back at 2.
// A loaded machine only ever delays a step, so no step of any try may be early, and one of a
// few tries must have every step within late of the model.
func TestTCPSeesTheRoundTripOfTheModel(t *testing.T) {
	const rtt = 40 * time.Millisecond
	p := openPath(t, rtt)
	var ln net.Listener
	if err := p.Edge.Do(func() (err error) { ln, err = net.Listen("tcp", EdgeAddr+":0"); return err }); err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	tries, onTime := 0, false
	for tries < connectTries && !onTime {
		tries++
		onTime = true
		for _, step := range exchangeSteps(t, p, ln, rtt) {
			t.Logf("try %d: %s after %v (model: %v)", tries, step.what, step.got, step.want)
			if step.got < step.want {
				t.Fatalf("%s after %v, want %v at least", step.what, step.got, step.want)
			}
			onTime = onTime && step.got <= step.want+late
		}
	}
	if !onTime {
		t.Errorf("no try of %d had every step within %v of the model", tries, late)
	}
	t.Logf("link: player to edge %+v, edge to player %+v", p.Link.AtoB(), p.Link.BtoA())
	if up := p.Link.AtoB(); up.Packets < 3*uint64(tries) || up.TCPPayload != uint64(tries) {
		t.Errorf("player to edge: %+v, want the SYN, the ACK and one byte of payload at least for each of %d tries", up, tries)
	}
}

// step is one moment of exchangeSteps: when it came and when the model says it comes.
type step struct {
	what      string
	got, want time.Duration
}

// exchangeSteps connects from the player's side to ln, writes one byte at once and reads the
// echo, and returns when each step came.
func exchangeSteps(t *testing.T, p *Path, ln net.Listener, rtt time.Duration) []step {
	t.Helper()
	firstByte := make(chan time.Time, 1)
	go echoOnce(ln, firstByte)

	var c net.Conn
	start := time.Now()
	if err := p.Player.Do(func() (err error) { c, err = net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second); return err }); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	connected := time.Since(start)
	if _, err := c.Write([]byte{42}); err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadFull(c, make([]byte, 1)); err != nil {
		t.Fatalf("no answer: %v", err)
	}
	answered := time.Since(start)
	var arrived time.Duration
	select {
	case at := <-firstByte:
		arrived = at.Sub(start)
	case <-time.After(time.Second):
		t.Fatal("the server never read the first byte")
	}
	return []step{
		{"connect returned", connected, rtt},
		{"first byte at the server", arrived, rtt * 3 / 2},
		{"answer back at the client", answered, 2 * rtt},
	}
}

// echoOnce accepts one connection, notes when its first byte is read and writes it back.
func echoOnce(ln net.Listener, firstByte chan<- time.Time) {
	c, err := ln.Accept()
	if err != nil {
		return
	}
	defer c.Close()
	b := make([]byte, 1)
	if _, err := io.ReadFull(c, b); err != nil {
		return
	}
	firstByte <- time.Now()
	c.Write(b)
}

func TestSetRTTChangesTheRoundTrip(t *testing.T) {
	p := openPath(t, 10*time.Millisecond)
	p.SetRTT(60 * time.Millisecond)
	if got := p.RTT(); got != 60*time.Millisecond {
		t.Fatalf("RTT() = %v after SetRTT(60ms)", got)
	}
	var ln net.Listener
	if err := p.Edge.Do(func() (err error) { ln, err = net.Listen("tcp", EdgeAddr+":0"); return err }); err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// A loaded machine only ever delays a connect, so every try must take the round trip at
	// least and the fastest of a few must be within late of it.
	fastest := time.Hour
	for range connectTries {
		d := timeConnect(t, p, ln)
		if d < 60*time.Millisecond {
			t.Fatalf("connect took %v, want 60ms at least", d)
		}
		fastest = min(fastest, d)
	}
	if fastest > 60*time.Millisecond+late {
		t.Errorf("fastest of %d connects took %v, want 60ms (at most %v later)", connectTries, fastest, late)
	}
}

// connectTries is how many connects a timing test of the path makes at most: a scheduler stall
// of a few hundred ms on a loaded 2-core machine hits one, not all of them.
const connectTries = 5

// timeConnect times one connect from the player's side to ln, which it accepts and closes.
func timeConnect(t *testing.T, p *Path, ln net.Listener) time.Duration {
	t.Helper()
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		if c, err := ln.Accept(); err == nil {
			c.Close()
		}
	}()
	start := time.Now()
	var c net.Conn
	if err := p.Player.Do(func() (err error) { c, err = net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second); return err }); err != nil {
		t.Fatal(err)
	}
	d := time.Since(start)
	c.Close()
	<-accepted
	return d
}
