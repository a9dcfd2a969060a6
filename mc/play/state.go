package play

// State is the protocol state of the server-to-client stream: which packets its ids name.
type State uint8

const (
	Login         State = iota // from the first byte after Login Start, to Login Success
	Configuration              // after Login Success, and after Start Configuration in play
	Play                       // after Finish Configuration
)

func (s State) String() string {
	switch s {
	case Login:
		return "login"
	case Configuration:
		return "configuration"
	case Play:
		return "play"
	}
	return "unknown"
}
