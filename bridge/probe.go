package bridge

import (
	"context"

	"github.com/moonbridge/moonbridge/ws"
)

// probeCloseReason is the close frame's reason for the server's log.
const probeCloseReason = "moonbridge client: address check"

// Probe opens one WebSocket to cfg.Remote as a session does, sends no Minecraft bytes and
// closes it at once: nil when the server answered the upgrade, else a *DialError in the words a
// game would see (with cfg.SettingNames). ctx bounds the attempt (with Remote.HandshakeTimeout,
// the shorter wins).
func Probe(ctx context.Context, cfg Config) error {
	conn, err := ws.Dial(ctx, cfg.Remote)
	if err != nil {
		return classify(err, cfg.SettingNames)
	}
	conn.CloseWithCode(ws.CloseNormal, probeCloseReason) // it answered: how the close goes does not matter
	return nil
}
