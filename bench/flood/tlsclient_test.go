package flood

import (
	"crypto/tls"
	"net"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/gossl"
)

// Each TLS client mode makes the handshakes it says: the group the server sees, and whether a
// second connection resumes.
func TestTLSClientModes(t *testing.T) {
	pair, err := gossl.SelfSigned([]string{floodTestHost}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(pair.CertPEM, pair.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	seen := make(chan tls.ConnectionState, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			tc := c.(*tls.Conn)
			if tc.Handshake() == nil {
				seen <- tc.ConnectionState()
				tc.Write([]byte{1}) // the client reads it, and with it the session ticket before it
			}
			tc.Close()
		}
	}()
	cases := []struct {
		mode    string
		group   tls.CurveID
		resumes bool
	}{
		{TLSDefault, tls.X25519MLKEM768, false},
		{TLSX25519, tls.X25519, false},
		{TLSResume, tls.X25519, true},
	}
	for _, tc := range cases {
		cfg, err := tlsClientConfig(tc.mode, floodTestHost)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			cl := tls.Client(c, cfg)
			if _, err := cl.Read(make([]byte, 1)); err != nil {
				t.Fatalf("%s: %v", tc.mode, err)
			}
			cl.Close()
			st := <-seen
			wantResumed := i == 1 && tc.resumes
			if st.CurveID != tc.group || st.DidResume != wantResumed {
				t.Errorf("%s connection %d: group %v, resumed %v; want %v, %v", tc.mode, i+1, st.CurveID, st.DidResume, tc.group, wantResumed)
			}
		}
	}
	if _, err := tlsClientConfig("rsa", floodTestHost); err == nil {
		t.Error("an unknown mode was taken")
	}
}
