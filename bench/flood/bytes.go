package flood

import (
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strings"

	"github.com/moonbridge/moonbridge/bench/login"
	"github.com/moonbridge/moonbridge/mc"
)

// handshakePort is the port the flood's handshakes name; the proxy does not route by it.
const handshakePort = 25565

// Garbage is a first write that no listener protocol starts with: a zero-length frame.
func Garbage(rng *rand.Rand) []byte {
	b := make([]byte, 64)
	for i := 1; i < len(b); i++ {
		b[i] = byte(rng.UintN(256))
	}
	return b
}

// malformedKinds are the ways Malformed breaks a handshake.
var malformedKinds = []func(host string) []byte{
	func(host string) []byte { // next state 7
		return mc.Handshake{Protocol: login.Protocol, Port: handshakePort, NextState: 7}.AppendFrame(nil, host)
	},
	func(string) []byte { // a host above the 255 characters a handshake may carry
		return mc.Handshake{Protocol: login.Protocol, Port: handshakePort, NextState: mc.NextLogin}.AppendFrame(nil, strings.Repeat("a", 300))
	},
	func(host string) []byte { // the body's length says 3 bytes more than the fields take
		f := mc.Handshake{Protocol: login.Protocol, Port: handshakePort, NextState: mc.NextLogin}.AppendFrame(nil, host)
		f[0] += 3
		return append(f, 0xff, 0xff, 0xff)
	},
}

// Malformed is a handshake that breaks one of its rules, picked by rng.
func Malformed(rng *rand.Rand, host string) []byte {
	return malformedKinds[rng.IntN(len(malformedKinds))](host)
}

// Ping is a server-list ping: the handshake, the status request and a ping with payload.
func Ping(host string, payload uint64) []byte {
	return mc.AppendFrame(StatusRequest(host), 0x01, binary.BigEndian.AppendUint64(nil, payload))
}

// StatusRequest is the handshake and the status request, what a server list sends first.
func StatusRequest(host string) []byte {
	b := mc.Handshake{Protocol: login.Protocol, Port: handshakePort, NextState: mc.NextStatus}.AppendFrame(nil, host)
	return mc.AppendFrame(b, 0x00, nil)
}

// Login is a joining client's first write: the handshake and Login Start with name.
func Login(host, name string) []byte { return login.AppendRequest(nil, host, handshakePort, name) }

// nameChars are those of a Minecraft player name.
const nameChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

// RandomName is a valid player name of 3 to 16 characters.
func RandomName(rng *rand.Rand) string {
	b := make([]byte, 3+rng.IntN(14))
	for i := range b {
		b[i] = nameChars[rng.IntN(len(nameChars))]
	}
	return string(b)
}

// UpgradeRequest is a WebSocket upgrade to path; a non-empty token goes in Authorization.
func UpgradeRequest(host, path, token string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n", path, host)
	if token != "" {
		fmt.Fprintf(&b, "Authorization: Bearer %s\r\n", token)
	}
	b.WriteString("\r\n")
	return []byte(b.String())
}

// BadToken is a token-shaped string that no key signed: three base64url parts.
func BadToken(rng *rand.Rand) string {
	part := func(n int) string {
		const c = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
		b := make([]byte, n)
		for i := range b {
			b[i] = c[rng.IntN(len(c))]
		}
		return string(b)
	}
	return part(20) + "." + part(60) + "." + part(86)
}

// ClientHello is the first flight of a crypto/tls client for serverName: what slow TLS sends.
func ClientHello(serverName string) ([]byte, error) {
	client, server := net.Pipe()
	defer server.Close()
	go func() {
		tc := tls.Client(client, &tls.Config{ServerName: serverName, InsecureSkipVerify: true})
		_ = tc.Handshake() // ends when the pipe closes
		client.Close()
	}()
	head := make([]byte, 5)
	if _, err := io.ReadFull(server, head); err != nil {
		return nil, err
	}
	body := make([]byte, int(head[3])<<8|int(head[4]))
	if _, err := io.ReadFull(server, body); err != nil {
		return nil, err
	}
	return append(head, body...), nil
}
