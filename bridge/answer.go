package bridge

import (
	"bufio"
	"errors"
	"io"
	"net"

	"github.com/moonbridge/moonbridge/mc"
)

// The bridge answers the game by itself when it has no server to pass the game to: with the
// reason the WebSocket failed, and for a pre-1.7 legacy ping always, since moonbridge serve
// answers those from its own fallback and these clients cannot join a modern server anyway.

// answerFailure tells the game why there is no server, in the form its first packet asks for.
func answerFailure(game net.Conn, r *bufio.Reader, hello mc.Hello, cause *DialError) error {
	answer := mc.Answer{
		Status:     mc.Status{VersionName: "moonbridge client", MOTD: "§cmoonbridge client: cannot reach the server\n§7" + cause.Summary},
		Disconnect: "moonbridge client: cannot reach the server.\n" + cause.Summary,
	}
	if hello.Legacy != nil {
		answer = legacyAnswer("§ccannot reach the server: " + cause.Summary)
	}
	err := answer.Serve(r, hello, writeTo(game))
	if errors.Is(err, io.EOF) {
		return nil // a game may leave without pinging
	}
	return err
}

// legacyAnswer is the kick that answers a legacy ping: motd, and as the version the client
// shows in red, what it takes to join.
func legacyAnswer(motd string) mc.Answer {
	return mc.Answer{Status: mc.Status{VersionName: "1.7+", MOTD: motd}}
}

// writeTo sends each answer frame to the game with one write.
func writeTo(game net.Conn) func([]byte) error {
	return func(frame []byte) error {
		_, err := game.Write(frame)
		return err
	}
}
