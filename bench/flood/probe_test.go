package flood

import (
	"context"
	"net/netip"
	"strings"
	"testing"
)

func TestPingStatusReadsTheSinksAnswer(t *testing.T) {
	sink, err := ListenSink("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	status, err := PingStatus(context.Background(), netip.MustParseAddr("127.2.0.1"), sink.Addr(), "flood.test")
	if err != nil {
		t.Fatal(err)
	}
	if !IsSinkStatus(status) {
		t.Errorf("status %q: not the sink's", status)
	}
	if IsSinkStatus(`{"description":{"text":"The server is not reachable right now"}}`) {
		t.Error("a fallback text taken for the sink's answer")
	}
}

func TestParseValueFindsOneSeries(t *testing.T) {
	const exposition = "# TYPE moonbridge_attack_mode gauge\nmoonbridge_attack_mode 1\n" +
		"moonbridge_attack_mode_activations_total 3\n"
	v, err := ParseValue(strings.NewReader(exposition), "moonbridge_attack_mode")
	if err != nil || v != 1 {
		t.Errorf("moonbridge_attack_mode = %v, %v; want 1", v, err)
	}
	if _, err := ParseValue(strings.NewReader(exposition), "moonbridge_absent"); err == nil {
		t.Error("an absent series read without an error")
	}
}
