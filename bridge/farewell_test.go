package bridge

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/ws"
)

// disconnectSeen is the Disconnect a game should get after the server's bytes.
type disconnectSeen struct {
	id         int32 // 0x00 login (JSON text), 0x02 configuration, 0x1D play (NBT text) in 767
	text       string
	compressed bool // the stream to the game carries data lengths
}

const restarting = "The server is restarting"

// A proxy that closes the WebSocket says why (a drain: 1001 and a reason); the game is shown
// that reason in a Disconnect where the stream to it has room for one, and gets only the
// server's bytes and EOF where it has none.
func TestServerCloseReasonReachesTheGame(t *testing.T) {
	cases := []struct {
		name     string
		hello    []byte   // what the game sends; a 767 login when nil
		messages [][]byte // what the proxy sends before its close frame
		code     int
		reason   string
		want     *disconnectSeen // nil: nothing after the server's bytes
	}{
		{"play", nil, loginToPlay(-1), 1001, restarting, &disconnectSeen{id: 0x1D, text: restarting}},
		{"play, compressed", nil, loginToPlay(256), 1001, restarting, &disconnectSeen{id: 0x1D, text: restarting, compressed: true}},
		{"configuration", nil, loginToPlay(256)[:3], 1001, restarting, &disconnectSeen{id: 0x02, text: restarting, compressed: true}},
		{"a code without reason", nil, loginToPlay(-1), 1011, "",
			&disconnectSeen{id: 0x1D, text: "The server closed the connection (internal error)"}},
		{"login, before anything", nil, nil, 1001, restarting, &disconnectSeen{id: 0x00, text: restarting}},
		{"login, before anything, 1.8", javaHello(47, mc.NextLogin), nil, 1001, restarting, &disconnectSeen{id: 0x00, text: restarting}},
		{"a normal close without reason", nil, loginToPlay(-1), 1000, "", nil},
		{"the server's own Disconnect", nil, append(loginToPlay(-1), playPacket(0x1D, nbtString("Kicked"), -1)), 1001, restarting, nil},
		{"the server's Transfer", nil, append(loginToPlay(-1), playPacket(0x73, transferFields, -1)), 1001, restarting, nil},
		{"mid-frame", nil, append(loginToPlay(-1), playPacket(0x26, make([]byte, 8), -1)[:5]), 1001, restarting, nil},
		{"encrypted", nil, encrypted(), 1001, restarting, nil},
		{"before 1.20.5", javaHello(765, mc.NextLogin), loginToPlay(-1), 1001, restarting, nil},
		{"a status ping", append(javaHello(767, mc.NextStatus), 0x01, 0x00), nil, 1001, restarting, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			addr := startFakeProxy(t, closingScript(tc.messages, tc.code, tc.reason))
			b := startBridge(t, ws.DialConfig{URL: "ws://" + addr + "/mc"}, nil)
			hello := tc.hello
			if hello == nil {
				hello = loginRequest767("Steve")
			}
			got := playUntilEOF(t, b, hello)
			sent := bytes.Join(tc.messages, nil)
			if !bytes.HasPrefix(got, sent) {
				t.Fatalf("the game got % x, want the server's % x first", got[:min(len(got), 64)], sent[:min(len(sent), 64)])
			}
			rest := got[len(sent):]
			if tc.want == nil {
				if len(rest) > 0 {
					t.Fatalf("after the server's bytes the game got % x, want EOF only", rest)
				}
				return
			}
			id, text := readDisconnect(t, rest, tc.want.compressed)
			if id != tc.want.id || text != tc.want.text {
				t.Fatalf("the game got packet %#x %q, want %#x %q", id, text, tc.want.id, tc.want.text)
			}
		})
	}
}

// The session's log line has the server's close code and reason, also where the game could
// not be told (here: the stream went encrypted).
func TestServerCloseReasonIsLogged(t *testing.T) {
	addr := startFakeProxy(t, closingScript(encrypted(), 1001, restarting))
	var logged testutil.SyncBuffer
	b := startBridge(t, ws.DialConfig{URL: "ws://" + addr + "/mc"}, func(b *Bridge) { b.log = zerolog.New(&logged) })
	playUntilEOF(t, b, loginRequest767("Steve"))
	want := `"server_close_code":1001,"server_close_reason":"The server is restarting","game_told":false`
	testutil.WaitFor(t, "the session's log line", func() bool { return strings.Contains(logged.String(), want) })
}

// closingScript is a proxy that reads the game's first message, sends messages, then closes
// with code and reason and reads until the bridge answers.
func closingScript(messages [][]byte, code int, reason string) func(*websocket.Conn) {
	return func(c *websocket.Conn) {
		if _, _, err := c.ReadMessage(); err != nil {
			return
		}
		for _, m := range messages {
			if err := c.WriteMessage(websocket.BinaryMessage, m); err != nil {
				return
			}
		}
		c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(testTimeout))
		testutil.ReadUntilClose(c, testTimeout)
	}
}

// playUntilEOF connects a game that sends hello and returns all it reads until EOF.
func playUntilEOF(t *testing.T, b *Bridge, hello []byte) []byte {
	t.Helper()
	game := dialGame(t, b)
	if _, err := game.Write(hello); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(game)
	if err != nil {
		t.Fatalf("the game read %d bytes, then %v; want EOF", len(got), err)
	}
	return got
}

func javaHello(protocol int32, next mc.NextState) []byte {
	hs := mc.Handshake{Protocol: protocol, Host: gameHost, Port: 25565, NextState: next}
	return hs.AppendFrame(nil, gameHost)
}

// loginRequest767 is a 1.21 game's handshake and Login Start.
func loginRequest767(name string) []byte {
	shape, _, _ := mc.LoginShapeOf(767)
	return mc.AppendLoginStart(javaHello(767, mc.NextLogin), shape, mc.LoginStart{Name: name, HasUUID: true})
}

// loginToPlay is what a 1.21 (767) server sends from Login Success to the play state, in four
// WebSocket messages: Set Compression when threshold >= 0 and Login Success; the brand and the
// first half of a large plugin message (compressed when compression is on); its second half,
// which ends the configuration state's packets; Finish Configuration and a play Keep Alive. The
// client's acknowledgements are not the tracker's to see.
func loginToPlay(threshold int) [][]byte {
	var login []byte
	if threshold >= 0 {
		login = mc.AppendFrame(nil, mc.SetCompressionID, mc.AppendVarInt(nil, int32(threshold)))
	}
	success := append(make([]byte, 16), mc.AppendString(nil, "Steve")...)
	success = append(success, 0, 1) // no properties; strict error handling
	login = append(login, playPacket(mc.LoginSuccessID, success, threshold)...)
	brand := playPacket(0x01, mc.AppendString(mc.AppendString(nil, "minecraft:brand"), "vanilla"), threshold)
	large := playPacket(0x01, mc.AppendString(mc.AppendString(nil, "test:large"), strings.Repeat("moon", 1000)), threshold)
	play := append(playPacket(0x03, nil, threshold), playPacket(0x26, make([]byte, 8), threshold)...) // Finish Configuration, Keep Alive
	return [][]byte{login, append(brand, large[:len(large)/2]...), large[len(large)/2:], play}
}

// encrypted is a 1.21 login that turns to encryption: an Encryption Request, then what looks
// like its ciphertext.
func encrypted() [][]byte {
	shape, _, _ := mc.LoginShapeOf(767)
	request := mc.AppendEncryptionRequest(nil, shape, "", bytes.Repeat([]byte{0x30}, 162), []byte{1, 2, 3, 4})
	rng := rand.New(rand.NewPCG(1, 2))
	cipher := make([]byte, 600)
	for i := range cipher {
		cipher[i] = byte(rng.Uint32())
	}
	return [][]byte{request, cipher}
}

// playPacket frames packet id and fields; threshold >= 0 is the compressed format, zlib from
// threshold bytes on.
func playPacket(id int32, fields []byte, threshold int) []byte {
	packet := append(mc.AppendVarInt(nil, id), fields...)
	switch {
	case threshold < 0:
		return append(mc.AppendVarInt(nil, int32(len(packet))), packet...)
	case len(packet) < threshold:
		body := append([]byte{0}, packet...)
		return append(mc.AppendVarInt(nil, int32(len(body))), body...)
	}
	body := append(mc.AppendVarInt(nil, int32(len(packet))), testutil.Zlib(packet)...)
	return append(mc.AppendVarInt(nil, int32(len(body))), body...)
}

// transferFields send a game to 127.0.0.1:25565.
var transferFields = mc.AppendVarInt(mc.AppendString(nil, "127.0.0.1"), 25565)

// nbtString is a text component as 1.20.3+ sends it: a nameless NBT string tag.
func nbtString(s string) []byte {
	return append([]byte{0x08, byte(len(s) >> 8), byte(len(s))}, s...)
}

// readDisconnect reads the one frame b holds, a Disconnect, and returns its id and text: JSON
// in the login state, NBT (a string tag, or a compound's "text") after it.
func readDisconnect(t *testing.T, b []byte, compressed bool) (int32, string) {
	t.Helper()
	body, n, err := mc.ReadFrame(b, mc.MaxFrameLen)
	if err != nil || n != len(b) {
		t.Fatalf("the game got % x after the server's bytes, want one frame (%v)", b, err)
	}
	id, fields := packetOf(t, body, compressed)
	if id == 0x00 {
		size, n, _ := mc.ReadVarInt(fields)
		var reason struct{ Text string }
		if int(size) != len(fields)-n || json.Unmarshal(fields[n:], &reason) != nil {
			t.Fatalf("login disconnect % x is not a JSON text", fields)
		}
		return id, reason.Text
	}
	text, ok := nbtText(fields)
	if !ok {
		t.Fatalf("disconnect %#x: % x is not an NBT text", id, fields)
	}
	return id, text
}
