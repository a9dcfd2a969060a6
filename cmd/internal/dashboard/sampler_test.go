package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay"
)

// fakeRelay has 3 players, and has relayed 1000 bytes up and 4000 down more at each reading.
type fakeRelay struct{ readings atomic.Int64 }

func (f *fakeRelay) Overview() relay.Overview {
	n := f.readings.Add(1)
	return relay.Overview{Players: 3, RelayedUp: 1000 * n, RelayedDown: 4000 * n,
		Routes: []relay.RouteOverview{{Label: "lobby", Players: 3}}}
}

func (f *fakeRelay) Health() relay.Health { return relay.Health{Live: true, Ready: true} }

// The history keeps the last Points samples, each with the players and the bytes a second
// relayed since the sample before.
func TestSamplesAreBoundedAndCarryRates(t *testing.T) {
	d := New(&fakeRelay{}, Sampling{Every: 5 * time.Millisecond, Points: 4}, true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.Run(ctx) }()
	testutil.WaitFor(t, "10 samples taken", func() bool { return d.src.(*fakeRelay).readings.Load() > 10 })
	cancel()
	<-done
	samples := d.sampler.samples.All()
	if len(samples) != 4 {
		t.Fatalf("%d samples kept, want the last 4", len(samples))
	}
	for i, s := range samples {
		if s.Players != 3 || s.UpPerSecond <= 0 || s.DownPerSecond != 4*s.UpPerSecond {
			t.Errorf("sample %d: %+v, want 3 players and 4 times as much down as up", i, s)
		}
		if i > 0 && !s.At.After(samples[i-1].At) {
			t.Errorf("sample %d is not after the one before", i)
		}
	}
}

// GET /dashboard/state is the relay's counts and the history, as JSON.
func TestStateIsTheRelaysCounts(t *testing.T) {
	mux := http.NewServeMux()
	New(&fakeRelay{}, DefaultSampling(), false).Handle(mux)
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/dashboard/state", nil))
	var st state
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
		t.Fatalf("%v: %s", err, rec.Body)
	}
	if !st.Ready || st.TokenSet || st.Players != 3 || len(st.Routes) != 1 || st.Routes[0].Label != "lobby" ||
		st.Routes[0].Hosts == nil || st.History.EverySeconds != 10 || st.History.Points == nil {
		t.Errorf("state %+v", st)
	}
}
