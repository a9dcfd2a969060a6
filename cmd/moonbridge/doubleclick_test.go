package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay"
)

// A player double-clicks moonbridge (no arguments, a console) with no server set yet: it asks
// for the address, says in words that a bare name (wss://) got no answer from this ws-only
// server, takes the ws:// address, saves it, and says what to type in Minecraft; a game
// through that address reaches the server, the console tells the join and the leave in
// sentences, and Ctrl+C stops it with status 0.
//
// The user's settings file holds only listen: 127.0.0.1:0 beforehand, because tests take no
// fixed port and the default is 25565: the address is asked for exactly as when there is no
// file, and saved into that file.
func TestDoubleClickAsksForTheServer(t *testing.T) {
	backend, _ := echoBackend(t)
	addr := startTokenRelay(t, relay.WS, "", backend)
	player := newPlayerMachine(t)
	writeFile(t, player.userFile(), []byte("client:\n  listen: 127.0.0.1:0\n"))
	pane := startInTmux(t, player.env(), player.program)

	pane.waitFor("Which server? Type the address")
	pane.typeLine("127.0.0.1:" + portOf(t, addr))
	pane.waitFor("The server could not be reached: TLS: the server does not speak TLS (ws:// URL?).")
	pane.waitFor("Save it anyway?")
	pane.typeLine("")
	pane.waitFor("Type the server's address:")
	pane.typeLine("ws://" + addr + "/mc")
	pane.waitFor("The server answered: this address works.")
	pane.waitFor("Saved in " + player.userFile())
	text := pane.waitFor("close this window or press Ctrl+C.")
	game := regexp.MustCompile(`Multiplayer → Direct Connection → localhost:(\d+) → Join Server`).FindStringSubmatch(text)
	if game == nil {
		t.Fatalf("no Minecraft instructions in:\n%s", text)
	}

	conn := dialGame(t, "127.0.0.1:"+game[1])
	if err := echo(conn); err != nil {
		t.Fatalf("a game through the bridge: %v", err)
	}
	pane.waitFor("Minecraft connected: joining the server.")
	conn.Close()
	pane.waitFor("Minecraft left the server after ")
	pane.waitFor(": the game closed the connection.")

	saved, err := config.Load(player.userFile())
	if err != nil || saved.Client.URL != "ws://"+addr+"/mc" || saved.Client.Listen != "127.0.0.1:0" {
		t.Errorf("saved settings %+v, %v", saved.Client, err)
	}
	if info, err := os.Stat(player.userFile()); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("saved file %v, %v; want mode 0600", info, err)
	}
	pane.keys("C-c")
	pane.waitFor("moonbridge client stopped.")
	if status := pane.waitExit(); status != 0 {
		t.Errorf("exit status %d after Ctrl+C, want 0", status)
	}
}

// A fatal error of a double-clicked bridge waits for Enter, so that the window (on Windows it
// closes when the program exits) can be read.
func TestDoubleClickWaitsForEnterAfterAnError(t *testing.T) {
	player := newPlayerMachine(t)
	writeFile(t, player.besideFile(), []byte("client:\n  url: https://play.example.net/mc\n"))
	pane := startInTmux(t, player.env(), player.program)
	pane.waitFor("client.url")
	pane.waitFor("Press Enter to close this window.")
	time.Sleep(100 * time.Millisecond) // it would have exited by now
	if status := pane.exitStatus(); status != -1 {
		t.Fatalf("exited (status %d) before Enter", status)
	}
	pane.typeLine("")
	if status := pane.waitExit(); status != 1 {
		t.Errorf("exit status %d after Enter, want 1", status)
	}
}

// A server owner writes a player's file with --write-config; the player puts it beside the
// program, which started without a console (a file manager, a script) reads it and plays
// through the token route. Without the file and without a console, moonbridge prints the
// usage and exits 2, as before: stdin is /dev/null, a character device that is no terminal.
func TestWriteConfigFileBesideTheProgram(t *testing.T) {
	pub, _, tokenFile := issueToken(t, t.TempDir())
	backend, seen := echoBackend(t)
	addr := startTokenRelay(t, relay.WS, pub, backend)
	player := newPlayerMachine(t)

	usage := player.command()
	out, err := usage.CombinedOutput()
	if code := usage.ProcessState.ExitCode(); code != 2 || !strings.Contains(string(out), "Usage: moonbridge COMMAND") {
		t.Fatalf("no file, no console: exit %d (%v), output %q; want the usage and 2", code, err, out)
	}

	if code, stdout, stderr := run("client", "--write-config", player.besideFile(), "--url", "ws://"+addr+"/mc",
		"--token-file", tokenFile, "--listen", "127.0.0.1:0"); code != 0 {
		t.Fatalf("--write-config: exit %d, %s%s", code, stdout, stderr)
	}
	bridge := player.command()
	stdout, err := bridge.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := bridge.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bridge.Process.Kill(); bridge.Wait() })
	gameAddr := readGameAddress(t, stdout)
	if err := echo(dialGame(t, gameAddr)); err != nil || seen.Load() != 1 {
		t.Errorf("a game through the bridge: %v (backend saw %d sessions); want the echo through the token route", err, seen.Load())
	}
}

// playerMachine is a player's machine in a temporary folder: the program in bin/ (a copy of
// this test binary, which runs moonbridge's main with runMainEnv), and a home folder.
type playerMachine struct {
	program, home string
}

func newPlayerMachine(t *testing.T) playerMachine {
	t.Helper()
	dir := t.TempDir()
	m := playerMachine{program: filepath.Join(dir, "bin", "moonbridge"), home: filepath.Join(dir, "home")}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	for _, folder := range []string{filepath.Dir(m.program), filepath.Dir(m.userFile())} {
		if err := os.MkdirAll(folder, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(m.program, body, 0o700); err != nil {
		t.Fatal(err)
	}
	return m
}

func (m playerMachine) besideFile() string {
	return filepath.Join(filepath.Dir(m.program), clientFileName)
}
func (m playerMachine) userFile() string {
	return filepath.Join(m.home, ".config", "moonbridge", clientFileName)
}

// env is what the program runs with: this machine's home folder and moonbridge's main.
func (m playerMachine) env() []string {
	return []string{"HOME=" + m.home, "XDG_CONFIG_HOME=" + filepath.Join(m.home, ".config"), runMainEnv + "=1"}
}

// command runs the program with no arguments and stdin /dev/null.
func (m playerMachine) command() *exec.Cmd {
	cmd := exec.Command(m.program)
	cmd.Env = append(os.Environ(), m.env()...)
	return cmd
}

// readGameAddress reads the bridge's output until it says what to type in Minecraft.
func readGameAddress(t *testing.T, out io.Reader) string {
	t.Helper()
	found := make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(out)
		for scanner.Scan() {
			if _, addr, ok := strings.Cut(scanner.Text(), "Direct Connection → "); ok {
				found <- strings.Replace(strings.Fields(addr)[0], "localhost", "127.0.0.1", 1)
				io.Copy(io.Discard, out)
				return
			}
		}
		close(found)
	}()
	select {
	case addr, ok := <-found:
		if !ok {
			t.Fatal("the bridge ended its output without the Minecraft instructions")
		}
		return addr
	case <-time.After(testutil.WaitBound):
		t.Fatal("no Minecraft instructions in time")
	}
	return ""
}

func dialGame(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, testutil.WaitBound)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(testutil.WaitBound))
	t.Cleanup(func() { conn.Close() })
	return conn
}

func portOf(t *testing.T, addr string) string {
	t.Helper()
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// tmuxPane is a program running in a console of its own: a tmux session on a private server,
// 200 columns wide, that stays after the program exits so its last words can be read. A shell
// runs the program and writes its exit status in the pane ("[exit status N]"): tmux's own
// #{pane_dead_status} is not reliable here, as tmux sometimes leaves the exited program a
// zombie under -race. The shell's trap keeps it alive through the Ctrl+C that stops the
// program, which gets SIGINT with its default handling.
type tmuxPane struct {
	t      *testing.T
	socket string
}

func startInTmux(t *testing.T, env []string, program string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (scripts/bootstrap.sh base installs it): no console to double-click in")
	}
	p := &tmuxPane{t: t, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	command := `sh -c 'trap : INT; "$@"; echo "[exit status $?]"' sh env`
	for _, arg := range append(env, program) {
		command += " " + shellQuote(arg)
	}
	p.tmux("new-session", "-d", "-s", "player", "-x", "200", "-y", "80", command, ";",
		"set-option", "-t", "player", "remain-on-exit", "on")
	t.Cleanup(func() { exec.Command("tmux", "-S", p.socket, "kill-server").Run() })
	return p
}

// tmux runs one tmux command against the pane's server and returns what it printed.
func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testutil.WaitBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tmux", append([]string{"-u", "-S", p.socket, "-f", "/dev/null"}, args...)...)
	cmd.Env = append(os.Environ(), "TMUX=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// text is everything the pane shows, wrapped lines joined.
func (p *tmuxPane) text() string {
	return p.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "player")
}

// waitFor waits until the pane shows want, and returns the text.
func (p *tmuxPane) waitFor(want string) string {
	p.t.Helper()
	var text string
	if !testutil.Within(testutil.WaitBound, func() bool { text = p.text(); return strings.Contains(text, want) }) {
		p.t.Fatalf("the console does not show %q:\n%s", want, text)
	}
	return text
}

// typeLine types line and Enter.
func (p *tmuxPane) typeLine(line string) {
	if line != "" {
		p.tmux("send-keys", "-t", "player", "-l", line)
	}
	p.keys("Enter")
}

func (p *tmuxPane) keys(keys ...string) {
	p.tmux(append([]string{"send-keys", "-t", "player"}, keys...)...)
}

// exitStatus is the program's exit status once it has exited, else -1.
func (p *tmuxPane) exitStatus() int {
	found := regexp.MustCompile(`\[exit status (\d+)\]`).FindStringSubmatch(p.text())
	if found == nil {
		return -1
	}
	n, _ := strconv.Atoi(found[1])
	return n
}

// waitExit waits for the program to exit and returns its status; -1 if it did not in time.
func (p *tmuxPane) waitExit() int {
	status := -1
	testutil.Within(testutil.WaitBound, func() bool { status = p.exitStatus(); return status != -1 })
	return status
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
