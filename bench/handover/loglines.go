package handover

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
)

// What a hand-over's log lines (docs/upgrade.md, "The log lines") say, by the start of their
// message: moonbridge writes them as JSON (--log-format json), the old process's and the new
// one's to the same output.
const (
	msgHanded  = "upgrade: the new process accepts on the listeners now" // old: new_pid, moved, stayed_by_reason
	msgTaken   = "upgrade: "                                             // new: "N sessions moved in from the old process, M refused"
	takenTail  = "sessions moved in from the old process"
	msgFailed  = "upgrade failed"
	msgIgnored = "SIGUSR2 ignored"
	msgLost    = "upgrade: the new process has ended"
	msgStarted = "upgrade: started the new binary" // old: new_pid, before the new process serves
)

// line is the fields of a log line the harness reads.
type line struct {
	Level    string         `json:"level"`
	Message  string         `json:"message"`
	Error    string         `json:"error"`
	NewPID   int            `json:"new_pid"`
	Moved    int            `json:"moved"`
	Unknown  int            `json:"unknown"`
	Sessions int            `json:"sessions"`
	Stayed   map[string]int `json:"stayed_by_reason"`
	Taken    int            `json:"taken"`
	Refused  int            `json:"refused"`
}

// Kinds of the lines that matter to a run.
const (
	kindOther   = iota
	kindHanded  // the old process handed over to new_pid
	kindTaken   // the new process took the sessions it was sent
	kindFailed  // the upgrade failed; the old process serves on
	kindIgnored // a SIGUSR2 arrived at a process that could not act on it
	kindLost    // the new process ended during the stay
)

func (l line) kind() int {
	switch {
	case strings.HasPrefix(l.Message, msgHanded):
		return kindHanded
	case strings.HasPrefix(l.Message, msgTaken) && strings.Contains(l.Message, takenTail):
		return kindTaken
	case strings.HasPrefix(l.Message, msgFailed):
		return kindFailed
	case strings.HasPrefix(l.Message, msgIgnored):
		return kindIgnored
	case strings.HasPrefix(l.Message, msgLost):
		return kindLost
	}
	return kindOther
}

// readLines copies r to raw line by line, gives every JSON line to seen and sends those of a
// kind that matters to out (a line that is not JSON, a panic's trace, is raw only). It closes
// out when r ends.
func readLines(r io.Reader, raw io.Writer, out chan<- line, seen func(line)) {
	defer close(out)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		raw.Write(append(sc.Bytes(), '\n'))
		var l line
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		seen(l)
		if l.kind() != kindOther {
			out <- l
		}
	}
}
