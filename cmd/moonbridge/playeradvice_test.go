package main

import (
	"bytes"
	"io"
	"net"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay"
)

// A double-clicked bridge's player has no command line: what would fix a failure is a key in
// the settings file it read or saved, named with that file, never a flag (issue 39).

// The address check of a typed wss address, whose server has a throwaway certificate.
func TestPlayerCheckNamesTheFileForAThrowawayCertificate(t *testing.T) {
	backend, _ := echoBackend(t)
	addr := startTokenRelay(t, relay.WSS, "", backend)
	var out bytes.Buffer
	files := clientFiles{user: filepath.Join(t.TempDir(), "moonbridge", clientFileName)}
	p := &playerStart{out: &out, files: files}
	c := config.Default().Client
	c.URL = "wss://" + addr + "/mc"
	if p.check(c) {
		t.Fatalf("a throwaway certificate passed the check:\n%s", out.String())
	}
	wantAdvice(t, out.String(), "set insecure: true under client: in "+files.user, "--insecure")
}

// The game port is taken: the bridge read its settings beside the program, with no console.
func TestDoubleClickPortTakenNamesTheFile(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	player := newPlayerMachine(t)
	writeFile(t, player.besideFile(), []byte("client:\n  url: ws://127.0.0.1:1/mc\n  listen: "+taken.Addr().String()+"\n"))
	cmd := player.command()
	out, _ := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	wantAdvice(t, string(out), "set listen: 127.0.0.1:25566 under client: in "+player.besideFile(), "--listen")
}

// A game joins through a bridge whose server has a throwaway certificate: the console line and
// the game's disconnect name the file and the key.
func TestDoubleClickThrowawayCertificateNamesTheFile(t *testing.T) {
	backend, _ := echoBackend(t)
	addr := startTokenRelay(t, relay.WSS, "", backend)
	player := newPlayerMachine(t)
	writeFile(t, player.besideFile(), []byte("client:\n  url: wss://"+addr+"/mc\n  listen: 127.0.0.1:0\n"))
	var out testutil.SyncBuffer
	cmd := player.command()
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	gameAddr := regexp.MustCompile(`Direct Connection → localhost:(\d+) `)
	var port []string
	if !testutil.Within(testutil.WaitBound, func() bool { port = gameAddr.FindStringSubmatch(out.String()); return port != nil }) {
		t.Fatalf("no Minecraft instructions:\n%s", out.String())
	}
	game := dialGame(t, "127.0.0.1:"+port[1])
	hs := mc.Handshake{Protocol: 767, Host: "play.example", Port: 25565, NextState: mc.NextLogin}
	if _, err := game.Write(hs.AppendFrame(nil, hs.Host)); err != nil {
		t.Fatal(err)
	}
	disconnect, _ := io.ReadAll(game) // the login disconnect, then the bridge closes
	advice := "set insecure: true under client: in " + player.besideFile()
	wantAdvice(t, string(disconnect), advice, "--insecure")
	testutil.Within(testutil.WaitBound, func() bool { return strings.Contains(out.String(), "Minecraft could not join") })
	wantAdvice(t, out.String(), advice, "--insecure")
}

// wantAdvice wants text to name the key and file (advice) and not the flag.
func wantAdvice(t *testing.T, text, advice, flag string) {
	t.Helper()
	if !strings.Contains(text, advice) {
		t.Errorf("the player is not told %q:\n%s", advice, text)
	}
	if strings.Contains(text, flag) {
		t.Errorf("the player is told of %s, a flag of a command line they do not have:\n%s", flag, text)
	}
}
