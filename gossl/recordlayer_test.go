package gossl

import (
	"errors"
	"testing"
)

// TestParseRecordLayer: the two configurable layers and "" (the default) parse, the reported
// crypto/tls layer and anything else do not; UnmarshalText is the same parse and keeps the old
// value on an error.
func TestParseRecordLayer(t *testing.T) {
	for in, want := range map[string]RecordLayer{"": DefaultRecordLayer, "boringssl-ssl": RecordLayerSSL, "aead": RecordLayerAEAD} {
		var l RecordLayer
		if err := l.UnmarshalText([]byte(in)); err != nil || l != want || l.String() != string(want) {
			t.Errorf("%q: %q %v, want %q", in, l, err, want)
		}
	}
	for _, in := range []string{"crypto/tls", "kernel", "AEAD"} {
		l := RecordLayerAEAD
		var te *TLSError
		if err := l.UnmarshalText([]byte(in)); !errors.As(err, &te) || te.Op != "config" || l != RecordLayerAEAD {
			t.Errorf("%q: %q %v, want a TLS config error and the old value", in, l, err)
		}
	}
	if DefaultRecordLayer != RecordLayerSSL {
		t.Errorf("default %q, want %q (bench/results/2026-11-30-aead-record-layer.md)", DefaultRecordLayer, RecordLayerSSL)
	}
}

// TestServerCapabilities: a BoringSSL server and its sessions can detach onto a loop, a
// crypto/tls one cannot; each reports the record layer its sessions use.
func TestServerCapabilities(t *testing.T) {
	forEachProvider(t, func(t *testing.T, p Provider) {
		srv, err := p.NewServer(testConfig(t))
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		wantDetach := p.Name() == ProviderBoringSSL
		if srv.CanDetach() != wantDetach {
			t.Errorf("%s: Server.CanDetach %v, want %v", p.Name(), srv.CanDetach(), wantDetach)
		}
		sc, _, _ := establishedSession(t, p)
		if sc.CanDetach() != wantDetach {
			t.Errorf("%s: Conn.CanDetach %v, want %v", p.Name(), sc.CanDetach(), wantDetach)
		}
		if got := srv.RecordLayer(); got != sc.State().RecordLayer {
			t.Errorf("%s: Server.RecordLayer %q, the session's %q", p.Name(), got, sc.State().RecordLayer)
		}
	})
}
