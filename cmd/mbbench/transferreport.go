package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/moonbridge/moonbridge/bench/client"
	"github.com/moonbridge/moonbridge/bench/report"
	"github.com/moonbridge/moonbridge/bench/stats"
)

// transferMeta is the command line of a transfer run.
type transferMeta struct {
	Time string   `json:"time"`
	Args []string `json:"args"`
	Via  string   `json:"via"`
	From string   `json:"from"`
	To   string   `json:"to"`
}

// transferReport is what `mbbench transfer` prints: a JSON line on stdout, a summary on stderr.
type transferReport struct {
	Meta         transferMeta `json:"meta"`
	Players      int          `json:"players"`
	Moved        int          `json:"moved"`
	Disconnected int          `json:"disconnected"`
	Lost         int          `json:"lost"`
	RejoinFailed int          `json:"rejoin_failed"`
	Stayed       int          `json:"stayed"`
	// Elsewhere counts players moved, but by a Transfer naming another address than --to.
	Elsewhere int `json:"elsewhere"`
	// LastBackMs is from the drain's start to the last moved player back in play.
	LastBackMs float64 `json:"last_back_ms"`
	// TransferMs is, per moved player, from the drain's start to its Transfer; MoveMs from its
	// Transfer to being back in play.
	TransferMs stats.Range      `json:"transfer_ms"`
	MoveMs     stats.Range      `json:"move_ms"`
	EchoBefore client.EchoCount `json:"echo_before"`
	EchoAfter  client.EchoCount `json:"echo_after"`
	// Details counts the disconnect reasons and errors of the players not moved.
	Details map[string]int `json:"details,omitempty"`
}

// summarize counts the players' outcomes and times them from start, the drain's start.
func summarize(results []client.FollowResult, start time.Time, to string) transferReport {
	rep := transferReport{Players: len(results), Details: map[string]int{}}
	var transfer, move []float64
	for _, r := range results {
		rep.EchoBefore.OK, rep.EchoBefore.Bad = rep.EchoBefore.OK+r.Before.OK, rep.EchoBefore.Bad+r.Before.Bad
		rep.EchoAfter.OK, rep.EchoAfter.Bad = rep.EchoAfter.OK+r.After.OK, rep.EchoAfter.Bad+r.After.Bad
		if r.Detail != "" {
			rep.Details[r.Detail]++
		}
		*rep.outcome(r.Outcome)++
		if r.Outcome != client.OutcomeMoved {
			continue
		}
		if r.To != to {
			rep.Elsewhere++
		}
		transfer = append(transfer, ms(r.TransferAt.Sub(start)))
		move = append(move, ms(r.BackAt.Sub(r.TransferAt)))
		rep.LastBackMs = max(rep.LastBackMs, ms(r.BackAt.Sub(start)))
	}
	rep.TransferMs, rep.MoveMs = stats.Summarize(transfer), stats.Summarize(move)
	return rep
}

func (rep *transferReport) outcome(name string) *int {
	switch name {
	case client.OutcomeMoved:
		return &rep.Moved
	case client.OutcomeDisconnected:
		return &rep.Disconnected
	case client.OutcomeLost:
		return &rep.Lost
	case client.OutcomeRejoinFailed:
		return &rep.RejoinFailed
	}
	return &rep.Stayed
}

// write prints the JSON line and the summary; a run where a player was not moved where it had
// to be, or an echo came back wrong, fails.
func (rep *transferReport) write(stdout, stderr io.Writer) error {
	line, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\n", line)
	fmt.Fprintf(stderr, "transfer: %d players over %s from %s to %s\n", rep.Players, rep.Meta.Via, rep.Meta.From, rep.Meta.To)
	fmt.Fprintf(stderr, "moved %d (to another address %d), disconnected %d, lost %d, rejoin failed %d, stayed %d\n",
		rep.Moved, rep.Elsewhere, rep.Disconnected, rep.Lost, rep.RejoinFailed, rep.Stayed)
	if rep.MoveMs.N > 0 {
		fmt.Fprintf(stderr, "drain to last player back in play %s ms; per player: drain to Transfer %s ms, Transfer to back in play %s ms (median [min-max])\n",
			report.Number(rep.LastBackMs), report.Range(rep.TransferMs), report.Range(rep.MoveMs))
	}
	fmt.Fprintf(stderr, "echoes before %d ok, %d bad; after %d ok, %d bad\n", rep.EchoBefore.OK, rep.EchoBefore.Bad, rep.EchoAfter.OK, rep.EchoAfter.Bad)
	for _, d := range slices.Sorted(maps.Keys(rep.Details)) {
		fmt.Fprintf(stderr, "  %dx %s\n", rep.Details[d], d)
	}
	if rep.Moved != rep.Players || rep.Elsewhere > 0 || rep.EchoBefore.Bad+rep.EchoAfter.Bad > 0 {
		return fmt.Errorf("%d of %d players moved to %s (%d elsewhere), %d echoes bad", rep.Moved-rep.Elsewhere, rep.Players, rep.Meta.To, rep.Elsewhere, rep.EchoBefore.Bad+rep.EchoAfter.Bad)
	}
	return nil
}
