package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

func TestServerURLFromWhatThePlayerTyped(t *testing.T) {
	for typed, want := range map[string]string{
		"play.example.net":                 "wss://play.example.net/mc",
		"  play.example.net:8443 \n":       "wss://play.example.net:8443/mc",
		"play.example.net/game":            "wss://play.example.net/game",
		"play.example.net/":                "wss://play.example.net/",
		"wss://play.example.net/mc":        "wss://play.example.net/mc",
		"WSS://play.example.net":           "wss://play.example.net/mc",
		"ws://127.0.0.1:25577/mc":          "ws://127.0.0.1:25577/mc",
		"https://play.example.net/mc":      "wss://play.example.net/mc",
		"http://play.example.net/mc":       "ws://play.example.net/mc",
		"[2001:db8::1]:443/mc":             "wss://[2001:db8::1]:443/mc",
		"wss://play.example.net/mc?v=1&x=": "wss://play.example.net/mc?v=1&x=",
	} {
		if got, err := serverURL(typed); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", typed, got, err, want)
		}
	}
	for typed, want := range map[string]string{
		"":                          "nothing was typed",
		"play example net":          "has a space in it",
		"ftp://play.example.net/mc": "starts with wss://",
		"wss:///mc":                 "is not a server address",
		"wss://%zz/mc":              "is not a server address",
	} {
		if got, err := serverURL(typed); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %q, %v; want an error with %q", typed, got, err, want)
		}
	}
}

// The console turns the bridge's log lines into sentences and drops the rest.
func TestPlayerConsoleSentences(t *testing.T) {
	for line, want := range map[string]string{
		`{"level":"debug","next":"login","message":"game connected"}`:                                                                                  "Minecraft connected: joining the server.",
		`{"level":"debug","next":"status","message":"game connected"}`:                                                                                 "",
		`{"level":"info","next":"login","duration":"1m3.4s","close_reason":"the game closed the connection","message":"session ended"}`:                "Minecraft left the server after 1m3s: the game closed the connection.",
		`{"level":"info","next":"login","duration":"12.3456ms","close_reason":"the server closed the WebSocket","message":"session ended"}`:            "Minecraft left the server after 12ms: the server closed the WebSocket.",
		`{"level":"warn","next":"login","cause":"DNS","close_reason":"DNS: no such host play.example.net","message":"session ended"}`:                  "Minecraft could not join, the server cannot be reached: DNS: no such host play.example.net",
		`{"level":"warn","next":"status","cause":"TCP","close_reason":"TCP: cannot connect","message":"session ended"}`:                                "Minecraft's server list could not reach the server: TCP: cannot connect",
		`{"level":"info","next":"status","close_reason":"the game closed the connection","message":"session ended"}`:                                   "Minecraft's server list reached the server.",
		`{"level":"info","close_reason":"the game connected but sent nothing for 10s, so the bridge closed the connection","message":"session ended"}`: "A game connection ended before it began: the game connected but sent nothing for 10s, so the bridge closed the connection.",
		`{"level":"warn","url":"ws://x/mc","message":"ws:// is not encrypted"}`:                                                                        "Warning: ws:// is not encrypted",
		`{"level":"error","error":"too many open files","message":"accepting game connections failed"}`:                                                "Warning: accepting game connections failed: too many open files",
		`{"level":"info","listen":"127.0.0.1:25565","message":"client bridge started"}`:                                                                "",
	} {
		var out bytes.Buffer
		console := &playerConsole{out: &out}
		if n, err := console.Write([]byte(line + "\n")); err != nil || n != len(line)+1 {
			t.Errorf("%s: wrote %d, %v", line, n, err)
		}
		got := out.String()
		if want == "" && got != "" || want != "" && (len(got) < 9 || got[8:] != " "+want+"\n") {
			t.Errorf("%s:\n got %q\nwant the time and %q", line, got, want)
		}
	}
	if _, err := (&playerConsole{out: new(bytes.Buffer)}).Write([]byte("not json")); err == nil {
		t.Error("a line that is not JSON was taken")
	}
}

// The console reads the bridge's own lines: a logger writing to it from the real bridge is
// tested end to end in TestDoubleClickAsksForTheServer; this checks that zerolog's JSON is
// what it reads.
func TestPlayerConsoleReadsZerolog(t *testing.T) {
	var out bytes.Buffer
	log := zerolog.New(&playerConsole{out: &out}).Level(zerolog.DebugLevel)
	log.Debug().Str("host", "localhost").Str("next", "login").Msg("game connected")
	if !strings.HasSuffix(out.String(), " Minecraft connected: joining the server.\n") {
		t.Errorf("console %q", out.String())
	}
}

// A settings file beside the program wins over the one in the user's config folder; the
// address typed is saved in the file that was read, else in the user's config folder, 0600.
func TestClientFilesOrderAndSave(t *testing.T) {
	dir := t.TempDir()
	files := clientFiles{beside: filepath.Join(dir, "bin", clientFileName), user: filepath.Join(dir, "config", "moonbridge", clientFileName)}
	if got := files.found(); got != "" {
		t.Errorf("found %q in empty folders", got)
	}
	if got := files.saveTarget(""); got != files.user {
		t.Errorf("nothing read: saves to %q, want %q", got, files.user)
	}
	c := config.Default().Client
	c.URL = "wss://play.example.net/mc"
	if err := writeClientFile(files.user, c); err != nil {
		t.Fatal(err)
	}
	if got := files.found(); got != files.user {
		t.Errorf("found %q, want the user's %q", got, files.user)
	}
	info, err := os.Stat(files.user)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("saved file %v, %v; want mode 0600", info, err)
	}
	if dirInfo, _ := os.Stat(filepath.Dir(files.user)); dirInfo.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, want 0700", dirInfo.Mode().Perm())
	}
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, files.beside, []byte("client:\n  url: ws://127.0.0.1:1/mc\n"))
	if got := files.found(); got != files.beside {
		t.Errorf("found %q, want the one beside the program %q", got, files.beside)
	}
	if got := files.saveTarget(files.beside); got != files.beside {
		t.Errorf("saves to %q, want the file read %q", got, files.beside)
	}
	if err := writeClientFile("", c); err == nil {
		t.Error("saved with no user config folder")
	}
}

// --write-config writes the settings, the token of --token-file included, to a 0600 file that
// the client reads back as the command line gave them, and says what the player does with it.
func TestWriteConfigForAPlayer(t *testing.T) {
	dir := t.TempDir()
	_, token, tokenFile := issueToken(t, dir)
	file := filepath.Join(dir, "alice.yml")
	code, stdout, stderr := run("client", "--write-config", file, "--url", "wss://play.example.net/mc", "--token-file", tokenFile,
		"--listen", "127.0.0.1:25570", "--hello-wait", "40s")
	if code != 0 || !strings.Contains(stdout, "Wrote "+file) || !strings.Contains(stdout, "holds the token") ||
		!strings.Contains(stdout, "named "+clientFileName) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	info, err := os.Stat(file)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("%v, %v; want mode 0600", info, err)
	}
	cfg, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Client
	if c.URL != "wss://play.example.net/mc" || c.Token != token || c.TokenFile != "" || c.Listen != "127.0.0.1:25570" || c.HelloWait.String() != "40s" {
		t.Errorf("file reads back as %+v", c)
	}
	if code, _, stderr := run("client", "--write-config", file); code != 1 || !strings.Contains(stderr, "no server URL") {
		t.Errorf("without --url: exit %d, %q", code, stderr)
	}
}
