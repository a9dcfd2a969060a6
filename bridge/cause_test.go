package bridge

import (
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/ws"
)

// The settings that get past an unknown authority are named as Config.SettingNames says.
func TestClassifyNamesSettingsAsTold(t *testing.T) {
	names := func(s Setting) string { return map[Setting]string{SettingInsecure: "set I", SettingCA: "set C"}[s] }
	for cn, want := range map[string]string{
		gossl.SelfSignedName: "TLS: unknown authority: the server uses a throwaway certificate; set I for a test, or a real certificate on the server",
		"play.example.net":   "TLS: certificate signed by an unknown authority (set C?)",
	} {
		err := x509.UnknownAuthorityError{Cert: &x509.Certificate{Subject: pkix.Name{CommonName: cn}}}
		if got := classify(err, names).Summary; got != want {
			t.Errorf("%s: %q, want %q", cn, got, want)
		}
	}
}

// TestClassify covers the causes the end-to-end tests cannot produce on loopback alone.
func TestClassify(t *testing.T) {
	dialed := func(err error) error { return fmt.Errorf("ws: dial: %w", err) }
	for _, tc := range []struct {
		err     error
		cause   Cause
		summary string
	}{
		{dialed(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Name: "play.example.test", Err: "no such host", IsNotFound: true}}),
			CauseDNS, "DNS: no such host play.example.test"},
		{dialed(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Name: "play.example.test", Err: "server misbehaving"}}),
			CauseDNS, "DNS: cannot resolve play.example.test: server misbehaving"},
		{dialed(context.DeadlineExceeded), CauseTimeout, "timeout: the server did not answer in time"},
		{dialed(context.Canceled), CauseShutdown, "the bridge is shutting down"},
		{dialed(&net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 443},
			Err: os.NewSyscallError("connect", syscall.ENETUNREACH)}),
			CauseTCP, "TCP: cannot connect to 192.0.2.1:443: " + syscall.ENETUNREACH.Error()},
		{&ws.HandshakeError{StatusCode: 502, Reason: "502 Bad Gateway"}, CauseHTTP, "HTTP 502 Bad Gateway from the server"},
		{&ws.HandshakeError{StatusCode: 429, Reason: "429 Too Many Requests", Text: "over the limit of 50 connections per address"},
			CauseHTTP, "HTTP 429 Too Many Requests: over the limit of 50 connections per address"},
		{&ws.HandshakeError{StatusCode: 401, Reason: "401 Unauthorized"}, CauseHTTP, "HTTP 401 Unauthorized: the server refused access (token?)"},
		{&ws.HandshakeError{Reason: "malformed HTTP response"}, CauseHTTP, "HTTP: no valid answer to the upgrade: malformed HTTP response"},
		{errors.New("something else"), CauseOther, "cannot open the WebSocket: something else"},
		{dialed(x509.UnknownAuthorityError{Cert: &x509.Certificate{Subject: pkix.Name{CommonName: "play.example.net"}}}),
			CauseTLSCA, "TLS: certificate signed by an unknown authority (the client setting ca?)"},
		{dialed(x509.UnknownAuthorityError{Cert: &x509.Certificate{Subject: pkix.Name{CommonName: gossl.SelfSignedName}}}),
			CauseTLSCA, "TLS: unknown authority: the server uses a throwaway certificate; the client setting insecure for a test, or a real certificate on the server"},
	} {
		got := classify(tc.err, nil)
		if got.Cause != tc.cause || got.Summary != tc.summary || !errors.Is(got, tc.err) {
			t.Errorf("classify(%v) = %q %q, want %q %q", tc.err, got.Cause, got.Summary, tc.cause, tc.summary)
		}
	}
}
