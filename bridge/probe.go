package bridge

import (
	"context"

	"github.com/moonbridge/moonbridge/ws"
)

// probeCloseReason is the close frame's reason for the server's log.
const probeCloseReason = "moonbridge client: address check"

// Probe opens one WebSocket to remote as a session does, sends no Minecraft bytes and closes
// it at once: nil when the server answered the upgrade, else a *DialError in the words a game
// would see. ctx bounds the attempt (with remote.HandshakeTimeout, the shorter wins).
func Probe(ctx context.Context, remote ws.DialConfig) error {
	conn, err := ws.Dial(ctx, remote)
	if err != nil {
		return classify(err)
	}
	conn.CloseWithCode(ws.CloseNormal, probeCloseReason) // it answered: how the close goes does not matter
	return nil
}
