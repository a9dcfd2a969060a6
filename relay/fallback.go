package relay

import "github.com/moonbridge/moonbridge/mc"

// DefaultFallback says plainly that the server is not reachable. A Config's Fallback answers
// status pings, legacy pings and logins when no backend takes the session.
func DefaultFallback() mc.Answer {
	return mc.Answer{
		Status:     mc.Status{VersionName: "moonbridge", MaxPlayers: 0, MOTD: "§cThe server is not reachable right now"},
		Disconnect: "The server is not reachable right now. Please try again in a minute.",
	}
}

// sendAnswer writes one frame of a fallback answer to the player as one batch (encrypted once a
// login the proxy ran turned the player's cipher on).
func (s *session) sendAnswer(frame []byte) error {
	buf := append(make([]byte, headroom, headroom+len(frame)), frame...)
	s.encrypt(buf[headroom:])
	return s.down.WriteBatch(buf)
}
