package relay

import (
	"bufio"
	"fmt"

	"github.com/moonbridge/moonbridge/relay/mc"
)

// Fallback is what the proxy answers by itself when no backend takes a session: the server
// list shows Status (its ping gets a pong), and a login gets Disconnect as its reason.
type Fallback struct {
	Status     mc.Status
	Disconnect string
}

// DefaultFallback says plainly that the server is not reachable.
func DefaultFallback() Fallback {
	return Fallback{
		Status:     mc.Status{VersionName: "moonbridge", MaxPlayers: 0, MOTD: "§cThe server is not reachable right now"},
		Disconnect: "The server is not reachable right now. Please try again in a minute.",
	}
}

// answerStatus serves the status exchange (request, then ping) from the fallback. The client's
// protocol is echoed so the entry does not show as incompatible.
func (f Fallback) answerStatus(r *bufio.Reader, down downstream, protocol int32) error {
	status := f.Status
	status.Protocol = protocol
	body, err := status.JSON()
	if err != nil {
		return fmt.Errorf("fallback status: %w", err)
	}
	for range 2 {
		packet, err := mc.ReadStatusPacket(r)
		if err != nil {
			return err
		}
		out := make([]byte, headroom, headroom+len(body)+16)
		if packet.Ping {
			out = mc.AppendPong(out, packet.Payload)
		} else {
			out = mc.AppendStatusResponse(out, body)
		}
		if err := down.WriteBatch(out); err != nil || packet.Ping {
			return err
		}
	}
	return nil
}

// answerLogin sends a login disconnect packet with reason as JSON text.
func answerLogin(down downstream, reason string) error {
	return down.WriteBatch(mc.AppendLoginDisconnect(make([]byte, headroom), reason))
}

// answerLegacy answers a pre-1.7 server-list ping with the fallback status; the proxy does not
// relay legacy pings, which modern servers answer with the same kind of text anyway.
func (f Fallback) answerLegacy(down downstream, ping *mc.LegacyPing) error {
	status := f.Status
	status.Protocol = int32(ping.Protocol)
	return down.WriteBatch(mc.AppendLegacyKick(make([]byte, headroom), ping.Form, status))
}
