package bridge

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/moonbridge/moonbridge/gossl"
	"github.com/moonbridge/moonbridge/ws"
)

// Cause is the kind of failure that kept the WebSocket from opening.
type Cause string

const (
	CauseDNS       Cause = "DNS"         // the host name does not resolve
	CauseTCP       Cause = "TCP"         // no connection: refused, unreachable, reset
	CauseTimeout   Cause = "timeout"     // no answer within the handshake timeout
	CauseTLSName   Cause = "TLS name"    // the certificate is not for the name we asked
	CauseTLSCA     Cause = "TLS CA"      // the certificate chains to no trusted authority
	CauseTLSExpiry Cause = "TLS expired" // the certificate is expired or not yet valid
	CauseTLS       Cause = "TLS"         // any other TLS failure
	CauseHTTP      Cause = "HTTP"        // the server refused the upgrade, or is not WebSocket
	CauseShutdown  Cause = "shutdown"    // the bridge is closing
	CauseOther     Cause = "other"
)

// DialError is why a session's WebSocket could not be opened. Summary is short enough for a
// server-list MOTD and says what to check; Err is the error ws.Dial returned.
type DialError struct {
	Cause   Cause
	Summary string
	Err     error
}

func (e *DialError) Error() string { return e.Summary }
func (e *DialError) Unwrap() error { return e.Err }

// classify turns a ws.Dial error into a DialError. The checks go from the most specific to
// the most general, since one error often matches several (a TLS verification failure is
// also a handshake error, a dial timeout is also a *net.OpError).
func classify(err error, names SettingNames) *DialError {
	classifiers := []classifier{
		httpRefusal, tlsName, tlsAuthority(names.orDefault()), tlsExpiry, tlsOther, dnsFailure, timeout, shutdown, tcpFailure,
	}
	for _, rule := range classifiers {
		if cause, summary, ok := rule(err); ok {
			return &DialError{Cause: cause, Summary: summary, Err: err}
		}
	}
	return &DialError{Cause: CauseOther, Summary: "cannot open the WebSocket: " + innermost(err).Error(), Err: err}
}

type classifier func(error) (Cause, string, bool)

func httpRefusal(err error) (Cause, string, bool) {
	var he *ws.HandshakeError
	if !errors.As(err, &he) {
		return "", "", false
	}
	switch he.StatusCode {
	case 0:
		return CauseHTTP, "HTTP: no valid answer to the upgrade: " + he.Reason, true
	case http.StatusSwitchingProtocols:
		return CauseHTTP, "HTTP: bad WebSocket upgrade: " + he.Reason, true
	case http.StatusNotFound:
		return CauseHTTP, "HTTP 404 Not Found: check the path in the URL", true
	case http.StatusUnauthorized, http.StatusForbidden:
		return CauseHTTP, fmt.Sprintf("HTTP %d %s: the server refused access (token?)", he.StatusCode, http.StatusText(he.StatusCode)), true
	}
	if he.Text != "" { // the server's reason: "over the limit of 50 connections per address"
		return CauseHTTP, fmt.Sprintf("HTTP %d %s: %s", he.StatusCode, http.StatusText(he.StatusCode), he.Text), true
	}
	return CauseHTTP, fmt.Sprintf("HTTP %d %s from the server", he.StatusCode, http.StatusText(he.StatusCode)), true
}

func tlsName(err error) (Cause, string, bool) {
	var he x509.HostnameError
	if !errors.As(err, &he) {
		return "", "", false
	}
	return CauseTLSName, "TLS: the certificate is not valid for " + he.Host, true
}

// tlsAuthority points to the settings that get past an unknown authority, as names says them.
func tlsAuthority(names SettingNames) classifier {
	return func(err error) (Cause, string, bool) {
		var ua x509.UnknownAuthorityError
		if !errors.As(err, &ua) {
			return "", "", false
		}
		if ua.Cert != nil && ua.Cert.Subject.CommonName == gossl.SelfSignedName {
			// serve's own when it has no tls.cert: made at start, never written, so no ca can name it
			return CauseTLSCA, "TLS: unknown authority: the server uses a throwaway certificate; " + names(SettingInsecure) +
				" for a test, or a real certificate on the server", true
		}
		return CauseTLSCA, "TLS: certificate signed by an unknown authority (" + names(SettingCA) + "?)", true
	}
}

func tlsExpiry(err error) (Cause, string, bool) {
	var ie x509.CertificateInvalidError
	if !errors.As(err, &ie) || ie.Reason != x509.Expired {
		return "", "", false
	}
	if ie.Cert != nil && time.Now().Before(ie.Cert.NotBefore) {
		return CauseTLSExpiry, "TLS: certificate not valid before " + ie.Cert.NotBefore.UTC().Format(time.DateOnly), true
	}
	if ie.Cert != nil {
		return CauseTLSExpiry, "TLS: certificate expired on " + ie.Cert.NotAfter.UTC().Format(time.DateOnly), true
	}
	return CauseTLSExpiry, "TLS: certificate expired", true
}

func tlsOther(err error) (Cause, string, bool) {
	var ve *tls.CertificateVerificationError
	var re tls.RecordHeaderError
	var ae tls.AlertError
	switch {
	case errors.As(err, &ve):
		return CauseTLS, "TLS: certificate not accepted: " + innermost(ve.Err).Error(), true
	case errors.As(err, &re):
		return CauseTLS, "TLS: the server does not speak TLS (ws:// URL?)", true
	case errors.As(err, &ae):
		return CauseTLS, "TLS: the server refused the handshake: " + ae.Error(), true
	}
	return "", "", false
}

func dnsFailure(err error) (Cause, string, bool) {
	var de *net.DNSError
	if !errors.As(err, &de) {
		return "", "", false
	}
	if de.IsNotFound {
		return CauseDNS, "DNS: no such host " + de.Name, true
	}
	return CauseDNS, "DNS: cannot resolve " + de.Name + ": " + de.Err, true
}

func timeout(err error) (Cause, string, bool) {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return CauseTimeout, "timeout: the server did not answer in time", true
	}
	return "", "", false
}

func shutdown(err error) (Cause, string, bool) {
	if errors.Is(err, context.Canceled) {
		return CauseShutdown, "the bridge is shutting down", true
	}
	return "", "", false
}

func tcpFailure(err error) (Cause, string, bool) {
	var oe *net.OpError
	if !errors.As(err, &oe) {
		return "", "", false
	}
	if oe.Op == "dial" && oe.Addr != nil {
		return CauseTCP, "TCP: cannot connect to " + oe.Addr.String() + ": " + innermost(oe).Error(), true
	}
	return CauseTCP, "TCP: connection lost during the handshake: " + innermost(oe).Error(), true
}

// innermost is the last error of err's Unwrap chain: "connection refused" rather than
// "ws: dial: dial tcp 127.0.0.1:1: connect: connection refused".
func innermost(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}
