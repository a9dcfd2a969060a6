package bridge_test

import (
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/moonbridge/moonbridge/bridge"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/ws"
)

// The client bridge listens where the game connects and opens one WebSocket per game
// connection. Here the far side is a WebSocket echo in place of moonbridge serve, so the game
// reads back its own handshake, which the bridge sent on first.
func ExampleNew() {
	echo := ws.NewServer(ws.ServerConfig{Conn: ws.DefaultConfig()}, func(c *ws.Conn, _ *http.Request) { io.Copy(c, c) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	server := echo.HTTPServer()
	go server.Serve(ln)
	defer server.Close()

	b, err := bridge.New(bridge.Config{
		Listen: "127.0.0.1:0",
		Remote: ws.DialConfig{URL: "ws://" + ln.Addr().String() + ws.DefaultPath, Conn: ws.DefaultConfig()},
	})
	if err != nil {
		panic(err)
	}
	if err := b.Start(); err != nil {
		panic(err)
	}
	defer b.Close()

	game, err := net.Dial("tcp", b.Addr().String())
	if err != nil {
		panic(err)
	}
	defer game.Close()
	hello := mc.Handshake{Protocol: 767, Host: "play.example.com", Port: 25565, NextState: mc.NextLogin}.
		AppendFrame(nil, "play.example.com")
	if _, err := game.Write(hello); err != nil {
		panic(err)
	}
	back := make([]byte, len(hello))
	if _, err := io.ReadFull(game, back); err != nil {
		panic(err)
	}
	h, _, err := mc.ParseHandshake(back, mc.DefaultMaxHandshakeFrame)
	if err != nil {
		panic(err)
	}
	fmt.Println(h.Host, h.NextState)
	// Output: play.example.com login
}
