package ladder

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/bench/backend"
	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/traffic"
)

// relay is the smallest TCP relay: every connection copied both ways to the backend. With
// cutAfter > 0 it ends each session once that many bytes came down, like a relay that drops
// players.
func relay(t *testing.T, backendAddr string, cutAfter int64) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go pipe(c, backendAddr, cutAfter)
		}
	}()
	return ln.Addr().String()
}

func pipe(c net.Conn, backendAddr string, cutAfter int64) {
	defer c.Close()
	be, err := net.Dial("tcp", backendAddr)
	if err != nil {
		return
	}
	defer be.Close()
	go io.Copy(be, c)
	var down io.Reader = be
	if cutAfter > 0 {
		down = io.LimitReader(be, cutAfter)
	}
	io.Copy(c, down)
}

// lenient never calls a step invalid: these tests check the ladder's mechanics on a machine
// whose load they do not control.
var lenient = Criteria{MaxAddedP99Ms: 1e9, MaxJoinP99Ms: 1e9, MaxLateP99Ms: 1e9, MaxGenCores: 1e9}

func climbInProcess(t *testing.T, scenario string, cutAfter int64) Result {
	t.Helper()
	paced, err := PacedFor(scenario)
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder()
	be, err := backend.ListenWith("127.0.0.1:0", paced, zerolog.Nop(), backend.Options{Late: rec.Late})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, Config{
		Scenario: scenario, Counts: []int{2, 4}, Window: 2 * time.Second, Interval: time.Second,
		JoinRate: 20, LoginConcurrency: 4, DirectPlayers: 2, Criteria: lenient,
		Proxy:  client.TCPDialer{Addr: relay(t, be.Addr(), cutAfter)},
		Direct: client.TCPDialer{Addr: be.Addr()},
		PID:    os.Getpid(), FDLimit: 1 << 20, Progress: io.Discard, // this process stands in for the relay
	}, rec)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestLadderClimbsEveryScenario(t *testing.T) {
	for _, sc := range Scenarios {
		res := climbInProcess(t, sc, 0)
		if res.Supported != 4 || len(res.Steps) != 2 {
			t.Fatalf("%s: supported %d after %d steps (%s): %+v", sc, res.Supported, len(res.Steps), res.Stop, res.Steps)
		}
		for _, st := range res.Steps {
			if st.Verdict.Intervals < 1 || st.Proxy.RSSKiB <= 0 || st.Proxy.Threads < 1 || st.WindowS < 2 {
				t.Errorf("%s %d: %+v", sc, st.Players, st)
			}
			if (sc == "join") != (st.Joins == 2) {
				t.Errorf("%s %d: %d joins timed, want the step's 2 new players in join only", sc, st.Players, st.Joins)
			}
		}
	}
}

func TestLadderStopsAtClosedSessions(t *testing.T) {
	// The relay hangs up a fraction of a second of play after the 2.1 MB login burst.
	res := climbInProcess(t, "play", int64(len(traffic.Modded().LoginBurst().Bytes)+2000))
	if res.Supported != 0 || len(res.Steps) != 1 || res.Steps[0].Verdict.Result != Fail || res.Steps[0].Closed == 0 {
		t.Errorf("supported %d, steps %+v; want FAIL at the first with closed sessions", res.Supported, res.Steps)
	}
	if res.Stop != "FAIL at 2" || res.Steps[0].FirstError == "" {
		t.Errorf("stop %q, first error %q", res.Stop, res.Steps[0].FirstError)
	}
}

func TestReportAndPlot(t *testing.T) {
	st := Step{Measured: Measured{Players: 100, Intervals: []Interval{{ProxyP99Ms: 2, DirectP99Ms: 1, ProxyN: 5, DirectN: 5}}},
		Verdict: Verdict{Result: Pass}, Proxy: ProxyUse{CPUPerPlayerMs: 0.2, RSSPerPlayerKiB: 40}, WindowS: 15}
	big := st
	big.Players, big.Verdict.Result = 250, Invalid
	reports := []Report{
		{Relay: "moonbridge", Transport: "tcp", Scenarios: []Result{{Scenario: "idle", Supported: 100, Stop: "INVALID at 250", Steps: []Step{st, big}}}},
		{Relay: "haproxy", Transport: "tcp", Scenarios: []Result{{Scenario: "idle", Supported: 250, Stop: "every step passed", Steps: []Step{st}}}},
	}
	var md bytes.Buffer
	Markdown(&md, reports)
	for _, want := range []string{"| moonbridge | tcp | 100 (INVALID at 250) | - | - |", "| haproxy tcp | 100 | PASS |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	var svg bytes.Buffer
	if err := Plot(&svg, reports); err != nil {
		t.Fatal(err)
	}
	var doc struct{}
	if err := xml.Unmarshal(svg.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	// Two legend dots, then a point per step in each of the two panels: 2 + 2*3.
	if n := strings.Count(svg.String(), "<circle"); n != 8 {
		t.Errorf("%d circles, want 8", n)
	}
}

func TestMergeJoinsScenariosOfOneRelay(t *testing.T) {
	idle := Report{Relay: "haproxy", Transport: "tcp", Scenarios: []Result{{Scenario: "idle"}}}
	join := Report{Relay: "haproxy", Transport: "tcp", Scenarios: []Result{{Scenario: "join"}}}
	other := Report{Relay: "v2ray", Transport: "ws", Scenarios: []Result{{Scenario: "idle"}}}
	got := Merge([]Report{idle, other, join})
	if len(got) != 2 || len(got[0].Scenarios) != 2 || got[0].Scenarios[1].Scenario != "join" || len(idle.Scenarios) != 1 {
		t.Errorf("merged %+v", got)
	}
}
