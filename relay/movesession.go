package relay

// What Server.MoveSessions (movesession_linux.go) reports, and what its offer answers.

// MoveFate is what became of a session offered to the new process.
type MoveFate int

const (
	// MoveTaken: the new process runs it now; here it is forgotten, with no end line.
	MoveTaken MoveFate = iota
	// MoveKept: the new process refused it, or it could not be sent: it runs on here.
	MoveKept
	// MoveUnknown: nobody knows whether the new process took it (no answer in time, a garbled
	// one): this process lets go of its copies of the sockets, so that it is never run twice.
	MoveUnknown
)

// MoveOffer is what the offer of one session said: its fate, why (for MoveKept, counted
// under it) and whether to offer no more (the channel is done: the others stay).
type MoveOffer struct {
	Fate MoveFate
	Why  string
	Stop bool
}

// MoveReport is what MoveSessions did: how many sessions moved, how many stayed by reason, and
// how many were let go without knowing.
type MoveReport struct {
	Moved   int
	Stayed  map[string]int
	Unknown int
}
