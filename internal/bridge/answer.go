package bridge

import (
	"bufio"
	"errors"
	"io"
	"net"

	"github.com/moonbridge/moonbridge/relay/mc"
)

// The bridge answers the game by itself when it has no server to pass the game to: with the
// reason the WebSocket failed, and for a pre-1.7 legacy ping always, since moonbridge serve
// answers those from its own fallback and these clients cannot join a modern server anyway.

// answerFailure tells the game why there is no server, in the form its first packet asks for.
func answerFailure(game net.Conn, r *bufio.Reader, hello mc.Hello, cause *DialError) error {
	switch {
	case hello.Legacy != nil:
		return answerLegacy(game, hello.Legacy, "§ccannot reach the server: "+cause.Summary)
	case hello.Handshake.NextState == mc.NextStatus:
		motd := "§cmoonbridge client: cannot reach the server\n§7" + cause.Summary
		return answerStatus(game, r, mc.Status{VersionName: "moonbridge client", Protocol: hello.Handshake.Protocol, MOTD: motd})
	}
	reason := "moonbridge client: cannot reach the server.\n" + cause.Summary
	return write(game, mc.AppendLoginDisconnect(nil, reason))
}

// answerLegacy sends the kick packet that carries a legacy ping's answer.
func answerLegacy(game net.Conn, ping *mc.LegacyPing, motd string) error {
	status := mc.Status{VersionName: "1.7+", Protocol: int32(ping.Protocol), MOTD: motd}
	return write(game, mc.AppendLegacyKick(nil, ping.Form, status))
}

// answerStatus serves the status exchange: the status response to the request, then the pong
// to the ping, which ends it.
func answerStatus(game net.Conn, r *bufio.Reader, status mc.Status) error {
	body, err := status.JSON()
	if err != nil {
		return err
	}
	for {
		packet, err := mc.ReadStatusPacket(r)
		if errors.Is(err, io.EOF) {
			return nil // a game may leave without pinging
		}
		if err != nil {
			return err
		}
		if packet.Ping {
			return write(game, mc.AppendPong(nil, packet.Payload))
		}
		if err := write(game, mc.AppendStatusResponse(nil, body)); err != nil {
			return err
		}
	}
}

func write(c net.Conn, b []byte) error {
	_, err := c.Write(b)
	return err
}
