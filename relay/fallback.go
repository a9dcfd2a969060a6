package relay

import "github.com/moonbridge/moonbridge/relay/mc"

// DefaultFallback says plainly that the server is not reachable. A Config's Fallback answers
// legacy pings always (the proxy does not relay them: modern servers answer them with the same
// kind of text anyway), and status pings and logins when no backend takes the session.
func DefaultFallback() mc.Answer {
	return mc.Answer{
		Status:     mc.Status{VersionName: "moonbridge", MaxPlayers: 0, MOTD: "§cThe server is not reachable right now"},
		Disconnect: "The server is not reachable right now. Please try again in a minute.",
	}
}

// sendAnswer writes one frame of a fallback answer to the player as one batch.
func (s *session) sendAnswer(frame []byte) error {
	return s.down.WriteBatch(append(make([]byte, headroom, headroom+len(frame)), frame...))
}
