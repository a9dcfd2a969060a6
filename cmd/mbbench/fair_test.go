package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// fairRun is a short mbbench flood-fair against a served moonbridge, its report decoded.
func fairRun(t *testing.T, extra ...string) fairReport {
	t.Helper()
	args := append([]string{"flood-fair", "--serve", moonbridgeBinary(t), "--bursts", "2", "--every", "1500ms",
		"--burst", "1s", "--tail", "1s", "--hold", "1s"}, extra...)
	code, stdout, stderr := serveRun(args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep fairReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	return rep
}

// TestFairPingsBesideOneAddress: the bursts come from one address at their rate, the attack
// mode is read once a second over the run, and each of the player's pings is a status answer
// of the sink behind the flood's route.
func TestFairPingsBesideOneAddress(t *testing.T) {
	if testing.Short() {
		t.Skip("starts moonbridge and floods it for a few seconds")
	}
	rep := fairRun(t, "--rate", "200")
	if len(rep.Bursts) != 2 {
		t.Fatalf("%d bursts, want 2", len(rep.Bursts))
	}
	for i, b := range rep.Bursts {
		if b.Started < 150 || b.Started > 201 || b.Sources != 1 {
			t.Errorf("burst %d: %d connections from %d addresses, want about 200 from one", i, b.Started, b.Sources)
		}
	}
	if len(rep.Samples) < 3 {
		t.Errorf("%d attack-mode samples over 3.5 s, want one a second", len(rep.Samples))
	}
	for _, s := range rep.Samples {
		if s.Mode != 0 && s.Mode != 1 {
			t.Errorf("sample %+v: want the gauge, 0 or 1", s)
		}
	}
	if len(rep.Probes) < 3 || rep.ProbesOK != len(rep.Probes) {
		t.Errorf("%d of %d pings read the sink's status: %+v", rep.ProbesOK, len(rep.Probes), rep.Probes)
	}
	if !hasCounter(rep.Counters, "moonbridge_connections_refused_total") {
		t.Errorf("counters %v: one address at 200/s was never refused", rep.Counters)
	}
}

// TestFairLoginsBesideLoginsWithoutAccount: the attacker's logins reach the session server
// without an account (not_authenticated), and the player's online logins are each counted
// through or refused with the proxy's reason.
func TestFairLoginsBesideLoginsWithoutAccount(t *testing.T) {
	if testing.Short() {
		t.Skip("starts moonbridge and floods it for a few seconds")
	}
	rep := fairRun(t, "--class", "noaccount", "--rate", "4", "--probe", "login", "--probes", "2", "--probe-every", "500ms")
	if len(rep.Probes) != 2 || rep.ProbesOK != 2 {
		t.Errorf("%d of %d logins through, want 2 of 2: %+v", rep.ProbesOK, len(rep.Probes), rep.Probes)
	}
	var notAuthenticated bool
	for _, c := range rep.Counters {
		notAuthenticated = notAuthenticated || strings.Contains(c.Series, `outcome="not_authenticated"`) && c.Delta > 0
	}
	if !notAuthenticated {
		t.Errorf("counters %v: no login refused as not authenticated", rep.Counters)
	}
}
