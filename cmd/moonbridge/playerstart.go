package main

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/bridge"
	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// startWithoutCommand is `moonbridge` with no arguments, what a double-click runs. With a
// console to ask in (stdin is a terminal) or a moonbridge-client.yml to read, it is the
// player's client bridge (playerStart). With neither, in a script or a service, it prints the
// usage and exits 2, as moonbridge did before this mode; server owners run `moonbridge serve`.
// On a fatal error with a console it waits for Enter, since a console window that a
// double-click opened on Windows closes when the program exits.
func startWithoutCommand(stdin io.Reader, stdout, stderr io.Writer) int {
	files := locateClientFiles()
	p := &playerStart{in: bufio.NewReader(stdin), console: isConsole(stdin), files: files, read: files.found(), out: stdout}
	if !p.console && p.read == "" {
		printUsage(stderr)
		return 2
	}
	err := p.run()
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "\nmoonbridge client stopped: %v\n", err)
	if p.console {
		fmt.Fprint(p.out, "Press Enter to close this window.")
		p.in.ReadString('\n')
	}
	return 1
}

// isConsole is whether r is a terminal (a console on Windows): not a file, a pipe or /dev/null.
func isConsole(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// playerStart is the client bridge as a player starts it: settings from a file, or asked for,
// and plain sentences in the console.
type playerStart struct {
	in      *bufio.Reader
	console bool // in is a terminal: the player can be asked
	files   clientFiles
	read    string // the settings file found, or ""
	out     io.Writer
}

// errNoAddress is a console that closed before the player typed an address.
var errNoAddress = errors.New("no server address was typed")

func (p *playerStart) run() error {
	fmt.Fprintln(p.out, "moonbridge client lets Minecraft play on a server behind moonbridge.")
	fmt.Fprintln(p.out, "(Server owners: `moonbridge serve` runs the proxy; `moonbridge help` lists the commands.)")
	cfg := config.Default()
	if p.read != "" {
		loaded, err := config.Load(p.read)
		if err != nil {
			return err
		}
		cfg = loaded
		fmt.Fprintf(p.out, "Settings: %s\n", p.read)
	}
	if cfg.Client.URL == "" {
		if err := p.askServer(&cfg.Client); err != nil {
			return err
		}
	}
	log := zerolog.New(&playerConsole{out: p.out}).Level(zerolog.DebugLevel) // the console picks
	stop, _, release := signalContext(log, os.Exit)
	defer release()
	fmt.Fprintln(p.out)
	if err := runBridge(stop, cfg.Client, p.advice(), log, p.out); err != nil {
		return err
	}
	fmt.Fprintln(p.out, "moonbridge client stopped.")
	return nil
}

// askServer asks for the server's address until the server answers on the one typed or the
// player keeps it anyway, and saves it.
func (p *playerStart) askServer(c *config.Client) error {
	if !p.console {
		return fmt.Errorf("%s has no client.url, and there is no console to ask for the server's address in", p.read)
	}
	fmt.Fprintln(p.out, "\nWhich server? Type the address its owner gave you (such as play.example.net, or one that starts with wss://) and press Enter.")
	for {
		url, err := p.askAddress()
		if err != nil {
			return err
		}
		c.URL = url
		if p.check(*c) || p.yes("Save it anyway? Type y and press Enter to save it, or just press Enter to type another address: ") {
			break
		}
		fmt.Fprintln(p.out, "Type the server's address:")
	}
	p.save(*c)
	return nil
}

// askAddress reads lines until one is a server address.
func (p *playerStart) askAddress() (string, error) {
	for {
		fmt.Fprint(p.out, "> ")
		line, err := p.in.ReadString('\n')
		if err != nil && line == "" {
			return "", errNoAddress
		}
		url, err := serverURL(line)
		if err == nil {
			return url, nil
		}
		fmt.Fprintf(p.out, "%v. Try again:\n", err)
	}
}

// probeTimeout bounds the check of a typed address.
const probeTimeout = 5 * time.Second

// check tries the address once and says in plain words whether the server answered.
func (p *playerStart) check(c config.Client) bool {
	fmt.Fprintf(p.out, "Checking %s ...\n", c.URL)
	bcfg, err := bridgeConfig(c, p.advice(), zerolog.Nop())
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		err = bridge.Probe(ctx, bcfg)
		cancel()
	}
	if err != nil {
		fmt.Fprintf(p.out, "The server could not be reached: %v.\n", err)
		fmt.Fprintf(p.out, "If the owner gave you a %s, put it beside this program and start it again.\n", clientFileName)
		return false
	}
	fmt.Fprintln(p.out, "The server answered: this address works.")
	return true
}

// advice names the settings file a fix goes in: the one read, or where the address is saved;
// the player has no command line.
func (p *playerStart) advice() settingAdvice {
	file := cmp.Or(p.files.saveTarget(p.read), p.files.beside, clientFileName)
	return settingAdvice{file: file}
}

// yes asks question and is whether the answer is y or yes.
func (p *playerStart) yes(question string) bool {
	fmt.Fprint(p.out, question)
	answer, _ := p.in.ReadString('\n')
	answer = strings.ToLower(strings.TrimSpace(answer))
	return answer == "y" || answer == "yes"
}

// save writes the settings where the next start finds them; the bridge runs either way.
func (p *playerStart) save(c config.Client) {
	path := p.files.saveTarget(p.read)
	if err := writeClientFile(path, c); err != nil {
		fmt.Fprintf(p.out, "Could not save the address (%v): it will be asked for again next time.\n", err)
		return
	}
	fmt.Fprintf(p.out, "Saved in %s: next time it starts without asking.\n", path)
}
