package mc_test

import (
	"fmt"

	"github.com/moonbridge/moonbridge/mc"
)

// A proxy's first read: the client's handshake says which host it dialled and what it wants
// next; n is how many bytes of the input the frame took.
func ExampleParseHandshake() {
	wire := mc.Handshake{Protocol: 767, Host: "play.example.com", Port: 25565, NextState: mc.NextLogin}.
		AppendFrame(nil, "play.example.com")
	h, n, err := mc.ParseHandshake(wire, mc.DefaultMaxHandshakeFrame)
	if err != nil {
		panic(err)
	}
	fmt.Println(h.Protocol, h.Host, h.Port, h.NextState, n == len(wire))
	// Output: 767 play.example.com 25565 login true
}

// A status answer of the proxy's own: the JSON the server list shows, in a status response
// frame, read back as a client would.
func ExampleAppendStatusResponse() {
	status := mc.Status{VersionName: "moonbridge", Protocol: 767, MaxPlayers: 20, MOTD: "Back soon"}
	body, err := status.JSON()
	if err != nil {
		panic(err)
	}
	frame := mc.AppendStatusResponse(nil, body)
	packet, _, err := mc.ReadFrame(frame, 1<<20)
	if err != nil {
		panic(err)
	}
	json, err := mc.ParseStatusResponse(packet)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(json))
	// Output: {"version":{"name":"moonbridge","protocol":767},"players":{"max":20,"online":0},"description":{"text":"Back soon"}}
}
