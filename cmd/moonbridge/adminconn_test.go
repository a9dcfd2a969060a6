package main

import (
	"errors"
	"net"
	"net/http/httptest"
	"testing"
	"time"
)

// A profile's or trace's seconds, whatever a client writes there, give a bounded deadline.
func TestAdminStreamTime(t *testing.T) {
	for url, want := range map[string]time.Duration{
		"/debug/pprof/profile":                     30 * time.Second,
		"/debug/pprof/profile?seconds=5":           5 * time.Second,
		"/debug/pprof/profile?seconds=-5":          30 * time.Second,
		"/debug/pprof/profile?seconds=1.5":         30 * time.Second, // pprof reads an integer
		"/debug/pprof/profile?seconds=99999999999": maxStream,
		"/debug/pprof/trace":                       time.Second,
		"/debug/pprof/trace?seconds=0.5":           500 * time.Millisecond,
		"/debug/pprof/trace?seconds=1e308":         maxStream,
		"/debug/pprof/trace?seconds=NaN":           time.Second,
		"/debug/pprof/trace?seconds=Inf":           maxStream,
		"/debug/pprof/heap?seconds=60":             0,
		"/blocklist/clear?seconds=60":              0,
	} {
		if got := streamTime(httptest.NewRequest("GET", url, nil)); got != want {
			t.Errorf("%s: %v, want %v", url, got, want)
		}
	}
}

// A limitListener at its cap makes Accept wait, gives the slot back when a connection closes,
// and its Close ends a waiting Accept.
func TestAdminLimitListener(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := newLimitListener(inner, 1)
	dial := func() net.Conn {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	accepted := make(chan error, 3)
	accept := func() {
		c, err := ln.Accept()
		if err == nil {
			c.Close()
			c.Close() // a second Close gives no second slot back
		}
		accepted <- err
	}
	dial()
	dial()
	first, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	go accept()
	select {
	case err := <-accepted:
		t.Fatalf("a second Accept at a cap of 1 returned (%v)", err)
	case <-time.After(100 * time.Millisecond):
	}
	first.Close()
	if err := <-accepted; err != nil {
		t.Fatalf("Accept once the slot was given back: %v", err)
	}
	dial()
	held, err := ln.Accept() // the slot again, for the next Accept to wait on
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	go accept()
	time.Sleep(50 * time.Millisecond)
	ln.Close()
	select {
	case err := <-accepted:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("Accept waiting for a slot, after Close: %v, want net.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end an Accept waiting for a slot")
	}
}
