package auth

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// TestMeterForgetsNetworks: the meter remembers a network while it has a request pending or a
// refusal to double, and forgets it after a clean spell of networkPenaltyMax past its pause: a
// flood from many networks does not grow the map beyond what the meter's turns allow.
func TestMeterForgetsNetworks(t *testing.T) {
	m := NewMeter(MeterSettings{Rate: 100, Burst: 10, Queue: 5, MaxWait: time.Second}, zerolog.Nop())
	ok, refused := netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("198.51.100.0/24")
	for network, err := range map[netip.Prefix]error{ok: nil, refused: ErrNotAuthenticated} {
		ticket, aerr := m.Acquire(context.Background(), network)
		if aerr != nil {
			t.Fatal(aerr)
		}
		if len(m.networks) == 0 {
			t.Fatalf("no network remembered while its request is in flight")
		}
		m.Observe(ticket, err)
	}
	if _, kept := m.networks[refused]; len(m.networks) != 1 || !kept {
		t.Fatalf("networks remembered %v, want only the refused one", m.networks)
	}
	m.mu.Lock()
	m.forgetNetworks(m.networks[refused].until.Add(networkPenaltyMax))
	m.mu.Unlock()
	if len(m.networks) != 0 {
		t.Errorf("networks remembered %v after a clean spell, want none", m.networks)
	}
}
