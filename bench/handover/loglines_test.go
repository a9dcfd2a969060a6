package handover

import (
	"strings"
	"testing"
)

// Lines as moonbridge writes them (cmd/moonbridge/upgrade.go, upgrademove_linux.go), shortened.
const (
	handedLine = `{"level":"info","new_pid":28792,"new_version":"dev","moved":40,"unknown":1,"sessions":10,"stayed_by_reason":{"wss: TLS state not movable yet":10},"stay":"10m0s","message":"upgrade: the new process accepts on the listeners now, this one no more; 40 sessions moved to it, 1 let go without its answer; the 10 here stay"}`
	takenLine  = `{"level":"info","taken":40,"refused":0,"message":"upgrade: 40 sessions moved in from the old process, 0 refused"}`
	failedLine = `{"level":"error","error":"not ready within upgrade.timeout (30s)","message":"upgrade failed; this process keeps serving"}`
	endLine    = `{"level":"info","session":"abc","message":"session ended"}`
	startLine  = `{"level":"info","new_pid":28790,"binary":"bin/moonbridge","timeout":"30s","message":"upgrade: started the new binary; waiting for it to serve"}`
)

func TestReadLinesSendsTheHandOversLinesAndCopiesAll(t *testing.T) {
	in := strings.Join([]string{startLine, endLine, takenLine, "panic: not json", handedLine, failedLine}, "\n") + "\n"
	var raw strings.Builder
	out := make(chan line, 8)
	var log runLog
	readLines(strings.NewReader(in), &raw, out, log.add)
	if raw.String() != in {
		t.Errorf("raw copy:\n%s\nwant:\n%s", raw.String(), in)
	}
	var kinds []int
	var handed line
	for l := range out {
		kinds = append(kinds, l.kind())
		if l.kind() == kindHanded {
			handed = l
		}
	}
	if want := []int{kindTaken, kindHanded, kindFailed}; !equalInts(kinds, want) {
		t.Errorf("kinds %v, want %v", kinds, want)
	}
	if handed.NewPID != 28792 || handed.Moved != 40 || handed.Unknown != 1 || handed.Sessions != 10 || handed.Stayed["wss: TLS state not movable yet"] != 10 {
		t.Errorf("hand-over line read as %+v", handed)
	}
	if texts := log.texts(); log.errors.Load() != 1 || len(texts) != 1 || !strings.HasPrefix(texts[0], "upgrade failed") {
		t.Errorf("%d error lines %q, want the failed upgrade's", log.errors.Load(), texts)
	}
	// The process an upgrade started is stopped at the end even when its hand-over line never
	// came (a run that stopped signalling early left one running before).
	if pids := log.pids(100); !equalInts(pids, []int{100, 28790}) {
		t.Errorf("pids to stop %v, want the first and the started one", pids)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
