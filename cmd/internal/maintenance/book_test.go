package maintenance

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay"
)

// fakeRelay keeps what the book hands it.
type fakeRelay struct {
	m      relay.Maintenance
	kicked []string
}

func (f *fakeRelay) SetMaintenance(m relay.Maintenance) { f.m = m }
func (f *fakeRelay) KickForMaintenance(label string) relay.MaintenanceKicks {
	f.kicked = append(f.kicked, label)
	return relay.MaintenanceKicks{Kicked: 1}
}
func (f *fakeRelay) RouteLabels() []string { return []string{"lobby", "pvp"} }

func entry(route string, on bool, motd string) config.MaintenanceEntry {
	e := config.DefaultMaintenanceEntry()
	e.Route, e.On, e.MOTD = route, on, motd
	return e
}

func read(t *testing.T, entries ...config.MaintenanceEntry) File {
	t.Helper()
	f, err := Read(entries)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// The last writer of a route's entry wins: a switch through the admin endpoint survives a
// reload of a file whose entry for the route did not change, and gives way when it did.
func TestLastWriterWins(t *testing.T) {
	r := &fakeRelay{}
	var logs bytes.Buffer
	b := New(r, zerolog.New(&logs))
	defer b.Stop()
	b.ApplyFile(read(t, entry("lobby", true, "file")))
	if r.m.Routes["lobby"] == nil {
		t.Fatal("the file's maintenance is not in force")
	}
	if _, err := b.Put(entry("lobby", false, ""), "127.0.0.1:5000"); err != nil {
		t.Fatal(err)
	}
	if r.m.Routes["lobby"] != nil {
		t.Error("switched off through the API, the route is still under maintenance")
	}
	b.ApplyFile(read(t, entry("lobby", true, "file")))
	if r.m.Routes["lobby"] != nil {
		t.Error("a reload of an unchanged file undid the API's switch")
	}
	b.ApplyFile(read(t, entry("lobby", true, "file, changed")))
	if m := r.m.Routes["lobby"]; m == nil || !strings.Contains(string(m.MOTD), "changed") {
		t.Errorf("the file's changed entry is not in force: %+v", m)
	}
	if got := b.Status().Entries; len(got) != 1 || got[0].Source != "file" || !got[0].Active {
		t.Errorf("entries %+v", got)
	}
	b.ApplyFile(read(t))
	if r.m.Routes["lobby"] != nil {
		t.Error("an entry the file dropped is still in force")
	}
	if n := strings.Count(logs.String(), `"by":"the config file"`); n != 3 {
		t.Errorf("%d lines by the config file, want one per change (3):\n%s", n, logs.String())
	}
}

// A switch names a route that is served (or every route), kicks only when asked, and a
// maintenance that starts later is in force without applying yet.
func TestPut(t *testing.T) {
	r := &fakeRelay{}
	b := New(r, zerolog.Nop())
	defer b.Stop()
	var unknown *UnknownRouteError
	if _, err := b.Put(entry("creative", true, "x"), "a"); !errors.As(err, &unknown) {
		t.Errorf("unknown route: %v", err)
	}
	e := entry("", true, "all")
	e.Kick = true
	if k, err := b.Put(e, "a"); err != nil || k == nil || len(r.kicked) != 1 || r.kicked[0] != "" || r.m.All == nil {
		t.Errorf("every route with kick: %+v, %v, kicked %v", k, err, r.kicked)
	}
	later := entry("pvp", true, "later")
	later.Start = time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	if k, err := b.Put(later, "a"); err != nil || k != nil {
		t.Fatalf("later: %+v, %v", k, err)
	}
	if m := r.m.Routes["pvp"]; m == nil || m.ActiveAt(time.Now()) {
		t.Errorf("a maintenance an hour ahead: %+v", m)
	}
	if list := b.Status().Entries; len(list) != 2 || list[0].Route != "" || list[1].Active || list[0].Kick {
		t.Errorf("entries %+v", list)
	}
	ended := entry("lobby", true, "over")
	ended.End = time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	if _, err := b.Put(ended, "a"); !errors.Is(err, ErrEndPassed) {
		t.Errorf("an end in the past: %v", err)
	}
}

// A maintenance's start time is logged when it comes, by its time.
func TestScheduledStartIsLogged(t *testing.T) {
	var logs testutil.SyncBuffer
	b := New(&fakeRelay{}, zerolog.New(&logs))
	defer b.Stop()
	soon := entry("lobby", true, "soon")
	soon.Start = time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339)
	if _, err := b.Put(soon, "a"); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, "the line of the start", func() bool {
		return strings.Contains(logs.String(), `"by":"its start or end time"`)
	})
}

// Every route's maintenance with one route left open: the relay gets the open route's own
// (off) entry, and the status says, for each served route, which entry decides and whether it
// applies.
func TestEveryRouteButOne(t *testing.T) {
	r := &fakeRelay{}
	b := New(r, zerolog.Nop())
	defer b.Stop()
	if _, err := b.Put(entry("", true, "all"), "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(entry("pvp", false, ""), "a"); err != nil {
		t.Fatal(err)
	}
	if mode, listed := r.m.Routes["pvp"]; !listed || mode != nil || r.m.All == nil {
		t.Errorf("the relay got all %v, pvp %v (listed %v); want every route's, and pvp open", r.m.All, mode, listed)
	}
	st := b.Status()
	want := []RouteState{{Route: "lobby", On: true, Active: true}, {Route: "pvp", Own: true}}
	if !st.On || !st.Active || st.Message != config.DefaultMaintenanceEntry().Message || !slices.Equal(st.Routes, want) {
		t.Errorf("status %+v, want every route on with its message and routes %+v", st, want)
	}
}
