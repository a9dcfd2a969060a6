package bridge

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/moonbridge/moonbridge/bench/login"
	"github.com/moonbridge/moonbridge/mc"
)

// The test game client: what Minecraft sends to the bridge and what it reads back.

const gameHost = "localhost" // what the player typed

func dialGame(t *testing.T, b *Bridge) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", b.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(testTimeout))
	t.Cleanup(func() { conn.Close() })
	return conn
}

// joinOffline plays an offline login and checks the server's answer byte for byte.
func joinOffline(t *testing.T, conn net.Conn, name string) {
	t.Helper()
	if _, err := conn.Write(login.AppendRequest(nil, gameHost, 25565, name)); err != nil {
		t.Fatal(err)
	}
	readLoginAnswer(t, conn, name)
}

// readLoginAnswer reads the server's answer to name's offline login and checks it byte for byte.
func readLoginAnswer(t *testing.T, conn net.Conn, name string) {
	t.Helper()
	want := login.AppendAnswer(nil, name)
	got := make([]byte, len(want))
	if _, err := io.ReadFull(conn, got); err != nil {
		t.Fatalf("reading the login answer: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("login answer % x, want % x", got[:min(len(got), 32)], want[:min(len(want), 32)])
	}
}

// echoCheck sends size pseudo-random bytes in uneven writes while reading the echo, and checks
// that the echo is byte-exact.
func echoCheck(t *testing.T, conn net.Conn, size int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(size), 7))
	sent := make([]byte, size)
	for i := range sent {
		sent[i] = byte(rng.Uint32())
	}
	written := make(chan error, 1)
	go func() {
		rest := sent
		for len(rest) > 0 {
			n := min(len(rest), 1+rng.IntN(40<<10))
			if _, err := conn.Write(rest[:n]); err != nil {
				written <- err
				return
			}
			rest = rest[n:]
		}
		written <- nil
	}()
	echoed := make([]byte, size)
	if _, err := io.ReadFull(conn, echoed); err != nil {
		t.Fatalf("reading the echo: %v", err)
	}
	if err := <-written; err != nil {
		t.Fatalf("writing: %v", err)
	}
	if !bytes.Equal(echoed, sent) {
		t.Fatal("the echo differs from what the game sent")
	}
}

func handshake(next mc.NextState) []byte {
	hs := mc.Handshake{Protocol: 767, Host: gameHost, Port: 25565, NextState: next}
	return hs.AppendFrame(nil, gameHost)
}

// askStatus plays a server-list ping (handshake, status request, ping) and returns the MOTD.
func askStatus(t *testing.T, b *Bridge) string {
	t.Helper()
	conn := dialGame(t, b)
	if _, err := conn.Write(append(handshake(mc.NextStatus), 0x01, 0x00)); err != nil {
		t.Fatal(err)
	}
	r := mc.NewFrameReader(conn, 4096)
	var status struct {
		Description struct{ Text string } `json:"description"`
	}
	if err := json.Unmarshal([]byte(readStringPacket(t, r, 0x00)), &status); err != nil {
		t.Fatalf("status JSON: %v", err)
	}
	ping := []byte{0x09, 0x01, 1, 2, 3, 4, 5, 6, 7, 8}
	if _, err := conn.Write(ping); err != nil {
		t.Fatal(err)
	}
	if _, body, err := r.ReadFrame(); err != nil || !bytes.Equal(body, ping[1:]) {
		t.Fatalf("pong % x (%v), want % x", body, err, ping[1:])
	}
	return status.Description.Text
}

// askLogin starts a login and returns the disconnect message it gets.
func askLogin(t *testing.T, b *Bridge) string {
	t.Helper()
	conn := dialGame(t, b)
	if _, err := conn.Write(login.AppendRequest(nil, gameHost, 25565, "Steve")); err != nil {
		t.Fatal(err)
	}
	var reason struct{ Text string }
	if err := json.Unmarshal([]byte(readStringPacket(t, mc.NewFrameReader(conn, 4096), 0x00)), &reason); err != nil {
		t.Fatalf("disconnect JSON: %v", err)
	}
	return reason.Text
}

// askLegacy sends a 1.4 legacy ping and returns the kick's text.
func askLegacy(t *testing.T, b *Bridge) string {
	t.Helper()
	conn := dialGame(t, b)
	if _, err := conn.Write([]byte{0xfe, 0x01}); err != nil {
		t.Fatal(err)
	}
	kick, err := io.ReadAll(conn)
	if err != nil || len(kick) < 3 || kick[0] != 0xff || len(kick) != 3+2*int(binary.BigEndian.Uint16(kick[1:])) {
		t.Fatalf("legacy kick % x (%v)", kick, err)
	}
	units := make([]uint16, (len(kick)-3)/2)
	for i := range units {
		units[i] = binary.BigEndian.Uint16(kick[3+2*i:])
	}
	return string(utf16.Decode(units))
}

// readStringPacket reads a frame whose body is packet id wantID and one String.
func readStringPacket(t *testing.T, r *mc.FrameReader, wantID int32) string {
	t.Helper()
	_, body, err := r.ReadFrame()
	if err != nil {
		t.Fatalf("reading a packet: %v", err)
	}
	id, fields, err := mc.PacketID(body)
	if err != nil || id != wantID {
		t.Fatalf("packet id %#x (%v), want %#x", id, err, wantID)
	}
	size, n, err := mc.ReadVarInt(fields)
	if err != nil || int(size) != len(fields)-n {
		t.Fatalf("string of %d bytes in %d (%v)", size, len(fields)-n, err)
	}
	return string(fields[n:])
}
