package auth_test

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc/auth"
)

// State says what the meter does now: the requests it let through, who waits, its refusals,
// its settings and whether attack mode made it strict.
func TestMeterStateSaysWhoWaitsAndWhatWentThrough(t *testing.T) {
	set := auth.MeterSettings{Rate: 0.1, Burst: 1, Queue: 1, MaxWait: time.Minute}
	m := auth.NewMeter(set, zerolog.Nop())
	defer m.Close()
	if _, err := m.Acquire(context.Background(), netip.MustParsePrefix("192.0.2.0/24")); err != nil {
		t.Fatal(err)
	}
	go m.Acquire(context.Background(), netip.MustParsePrefix("198.51.100.0/24")) // waits: the bucket is empty
	testutil.WaitFor(t, "a login waiting", func() bool { return m.State().Waiting == 1 })
	if _, err := m.Acquire(context.Background(), netip.MustParsePrefix("203.0.113.0/24")); err == nil {
		t.Fatal("a third login got a turn past a full queue")
	}
	m.SetStrict(true)
	got := m.State()
	want := auth.MeterState{Settings: set, Sent: 1, Waiting: 1, Refused: 1, Strict: true}
	if got != want {
		t.Errorf("state %+v, want %+v", got, want)
	}
	var none *auth.Meter
	if got := none.State(); got != (auth.MeterState{}) {
		t.Errorf("no meter: %+v, want the zero state", got)
	}
}
