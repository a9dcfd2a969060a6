package procfs

import (
	"errors"
	"os"
	"testing"
	"time"
)

// A stat line whose command name holds spaces and a parenthesis; utime 250, stime 50 ticks.
const statFixture = "4445 (ha) proxy) S 1 4445 4445 0 -1 4194624 1375 0 0 0 250 50 0 0 20 0 1 0 1500 " +
	"16580608 1722 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0\n"

func TestParseStat(t *testing.T) {
	got, err := ParseStat(statFixture)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Stat{PPID: 1, CPU: 3 * time.Second}); got != want {
		t.Errorf("stat = %+v, want %+v", got, want)
	}
}

func TestParseStatShort(t *testing.T) {
	var pe *ParseError
	for _, bad := range []string{"", "12 (x) S 1 2", "12 x S"} {
		if _, err := ParseStat(bad); !errors.As(err, &pe) {
			t.Errorf("%q: err = %v, want *ParseError", bad, err)
		}
	}
}

const statusFixture = `Name:	haproxy
Umask:	0022
State:	S (sleeping)
VmPeak:	  100672 kB
VmHWM:	    7100 kB
VmRSS:	    6936 kB
RssAnon:	    2176 kB
Threads:	7
`

func TestParseVmRSS(t *testing.T) {
	got, err := ParseVmRSSKiB(statusFixture)
	if err != nil || got != 6936 {
		t.Errorf("VmRSS = %d, %v; want 6936", got, err)
	}
	var pe *ParseError
	if _, err := ParseVmRSSKiB("Name:\tkthreadd\nState:\tS\n"); !errors.As(err, &pe) {
		t.Errorf("no VmRSS: err = %v, want *ParseError", err)
	}
}

func TestParseThreads(t *testing.T) {
	got, err := ParseThreads(statusFixture)
	if err != nil || got != 7 {
		t.Errorf("Threads = %d, %v; want 7", got, err)
	}
	var pe *ParseError
	if _, err := ParseThreads("Threads:\n"); !errors.As(err, &pe) {
		t.Errorf("empty Threads line: err = %v, want *ParseError", err)
	}
}

func TestSelfCPUGrows(t *testing.T) {
	before, err := SelfCPU()
	if err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(30 * time.Millisecond); time.Now().Before(end); {
	}
	after, _ := SelfCPU()
	if after <= before {
		t.Errorf("30 ms of spinning: CPU %v -> %v", before, after)
	}
}

const snmpFixture = `Ip: Forwarding DefaultTTL InReceives
Ip: 1 64 71234
Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors
Tcp: 1 200 120000 -1 67 22 1 10 0 61705 37474 6 0 13 0
Udp: InDatagrams NoPorts
Udp: 5 0
`

func TestParseOutSegs(t *testing.T) {
	got, err := ParseOutSegs(snmpFixture)
	if err != nil || got != 37474 {
		t.Errorf("OutSegs = %d, %v; want 37474", got, err)
	}
	var pe *ParseError
	if _, err := ParseOutSegs("Ip: a b\nIp: 1 2\n"); !errors.As(err, &pe) {
		t.Errorf("no Tcp lines: err = %v, want *ParseError", err)
	}
}

func TestTakeReadsThisProcess(t *testing.T) {
	s, err := Take(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if s.RSSKiB <= 0 || s.CPU < 0 || s.Threads < 1 {
		t.Errorf("implausible sample %+v", s)
	}
	if _, err := Take(1 << 30); !errors.Is(err, ErrNoProcess) {
		t.Errorf("absent pid: err = %v, want ErrNoProcess", err)
	}
}

func TestDescendantsCPU(t *testing.T) {
	stats := map[int]Stat{
		10: {PPID: 1, CPU: 1 * time.Second},  // the relay
		11: {PPID: 10, CPU: 2 * time.Second}, // a forked session
		12: {PPID: 11, CPU: 4 * time.Second}, // its child
		20: {PPID: 1, CPU: 8 * time.Second},  // unrelated
	}
	fromStat := func(int) (time.Duration, error) { return 0, ErrNoProcess }
	if got := descendantsCPU(10, stats, fromStat); got != 6*time.Second {
		t.Errorf("descendants = %v, want 6s", got)
	}
	exact := func(pid int) (time.Duration, error) { return time.Duration(pid) * time.Millisecond, nil }
	if got := descendantsCPU(10, stats, exact); got != 23*time.Millisecond {
		t.Errorf("descendants by their own clock = %v, want 23ms (11 + 12)", got)
	}
}

func TestParseSchedstat(t *testing.T) {
	got, err := ParseSchedstat("35729916322 62192849016 1360908\n")
	if err != nil || got != 35729916322*time.Nanosecond {
		t.Errorf("schedstat = %v, %v; want 35.729916322s", got, err)
	}
	var pe *ParseError
	for _, bad := range []string{"", "1 2", "x 2 3", "-1 2 3"} {
		if _, err := ParseSchedstat(bad); !errors.As(err, &pe) {
			t.Errorf("schedstat %q: err = %v, want *ParseError", bad, err)
		}
	}
}

// TestTreeCPUAgreesWithGetrusage: over 100 ms of this process's CPU (getrusage's count), the
// scheduler's clock that TreeCPU reads counts about the same.
func TestTreeCPUAgreesWithGetrusage(t *testing.T) {
	tree0, err := TreeCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	self0, _ := SelfCPU()
	self := self0
	for deadline := time.Now().Add(20 * time.Second); self-self0 < 100*time.Millisecond && time.Now().Before(deadline); {
		for end := time.Now().Add(time.Millisecond); time.Now().Before(end); {
		}
		self, _ = SelfCPU()
	}
	tree, err := TreeCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if d, s := tree-tree0, self-self0; d < s/2 || d > 2*s {
		t.Errorf("TreeCPU counted %v while getrusage counted %v", d, s)
	}
}

func TestParseSched(t *testing.T) {
	text := "mbbench (123, #threads: 7)\n---\nse.exec_start : 1.5\nse.nr_migrations :  42\nnr_switches  : 1360\nnr_voluntary_switches : 1300\n"
	got, err := ParseSched(text)
	if err != nil || got != (Sched{Switches: 1360, Migrations: 42}) {
		t.Errorf("sched = %+v, %v; want 1360 switches, 42 migrations", got, err)
	}
	var pe *ParseError
	for _, bad := range []string{"", "nr_switches : 1\n", "nr_switches : x\nse.nr_migrations : 1\n"} {
		if _, err := ParseSched(bad); !errors.As(err, &pe) {
			t.Errorf("sched %q: err = %v, want *ParseError", bad, err)
		}
	}
}

func TestTakeCountsSwitches(t *testing.T) {
	s, err := Take(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if !s.HasSched {
		t.Skip("kernel without per-thread sched files")
	}
	if s.Sched.Switches == 0 {
		t.Errorf("this process's threads have %d switches, want some", s.Sched.Switches)
	}
}

func TestParseVmHWM(t *testing.T) {
	got, err := ParseVmHWMKiB(statusFixture)
	if err != nil || got != 7100 {
		t.Errorf("VmHWM = %d, %v; want 7100", got, err)
	}
}

func TestParseListenDrops(t *testing.T) {
	netstat := "TcpExt: SyncookiesSent ListenOverflows ListenDrops TCPHPHits\nTcpExt: 4 2055 2056 9\n" +
		"IpExt: InNoRoutes ListenDrops\nIpExt: 0 77\n"
	if got, err := ParseListenDrops(netstat); got != 2056 || err != nil {
		t.Errorf("ListenDrops = %d, %v; want 2056 (TcpExt's, not IpExt's)", got, err)
	}
	var pe *ParseError
	if _, err := ParseListenDrops("IpExt: ListenDrops\nIpExt: 77\n"); !errors.As(err, &pe) {
		t.Errorf("no TcpExt line: err %v, want a ParseError", err)
	}
}
