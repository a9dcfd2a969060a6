package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/cliflags"
	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// maintenanceFlags are `moonbridge maintenance`'s flags: where the running proxy's admin
// endpoint is (its config file), and the entry to switch.
type maintenanceFlags struct {
	configFile                    string
	route, motd, message, version string
	icon, start, end              string
	allow                         listFlag
	kick                          bool
}

func (f *maintenanceFlags) register(fs *cliflags.FlagSet) {
	fs.StringVar(&f.configFile, "config", "", "the running proxy's config file: its admin.listen and admin.token_file (default: the embedded defaults)")
	fs.StringVar(&f.route, "route", "", `the route's label; "" (the default): every route`)
	fs.StringVar(&f.motd, "motd", "", "on: the server list's text (plain with § codes, or a JSON text component)")
	fs.StringVar(&f.message, "message", "", "on: what a player not on the allowlist reads")
	fs.StringVar(&f.version, "version", "", "on: the text shown in place of the player count")
	fs.StringVar(&f.icon, "icon", "", "on: a 64x64 PNG file (at most 16 KiB) for the server list")
	fs.StringVar(&f.start, "start", "", "on: when it starts (RFC 3339, 2026-12-24T18:00:00Z); default now")
	fs.StringVar(&f.end, "end", "", "on: when it ends (RFC 3339); default: when switched off")
	fs.Var(&f.allow, "allow", "on: player names and UUIDs let in (repeatable, or comma-separated)")
	fs.BoolVar(&f.kick, "kick", false, "on: end the sessions of players in play who are not on the allowlist")
}

func runMaintenance(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("maintenance", "on|off|status [flags]", "Switch a route's maintenance, or every route's, in the running proxy, through its admin endpoint (PUT /maintenance, with the token of admin.token_file), or show it (GET /maintenance). The switch lasts until the config file's entry for that route changes, or the proxy stops (docs/maintenance.md).", stdout, stderr)
	var f maintenanceFlags
	f.register(fs)
	verb := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		verb, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 || (verb != "on" && verb != "off" && verb != "status") {
		return fs.UsageError()
	}
	cfg, err := f.load()
	if err != nil {
		return err
	}
	if verb == "status" {
		return callMaintenance(cfg.Admin, http.MethodGet, nil, stdout)
	}
	entry, err := f.entry(verb == "on")
	if err != nil {
		return err
	}
	return callMaintenance(cfg.Admin, http.MethodPut, entry, stdout)
}

func (f *maintenanceFlags) load() (config.Config, error) {
	if f.configFile == "" {
		return config.Default(), nil
	}
	return config.Load(f.configFile)
}

// entry is the PUT's body: the defaults, and what the flags set.
func (f *maintenanceFlags) entry(on bool) (config.MaintenanceEntry, error) {
	e := config.DefaultMaintenanceEntry()
	e.Route, e.On, e.Kick, e.Start, e.End = f.route, on, f.kick, f.start, f.end
	for _, set := range []struct {
		dst *string
		v   string
	}{{&e.MOTD, f.motd}, {&e.Message, f.message}, {&e.Version, f.version}} {
		if set.v != "" {
			*set.dst = set.v
		}
	}
	if f.allow != nil {
		e.Allow = f.allow
	}
	if f.icon != "" {
		url, err := config.ReadIcon(f.icon)
		if err != nil {
			return e, err
		}
		e.Icon = strings.TrimPrefix(url, "data:image/png;base64,")
	}
	return e, nil
}

// callMaintenance sends one request to the admin endpoint's /maintenance and prints the answer.
func callMaintenance(admin config.Admin, method string, body any, stdout io.Writer) error {
	url, err := adminURL(admin.Listen)
	if err != nil {
		return err
	}
	var payload io.Reader
	if body != nil {
		b, _ := json.Marshal(body) // strings, bools and a list: cannot fail
		payload = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url+"/maintenance", payload)
	if err != nil {
		return err
	}
	if path := admin.TokenPath(); path != "" {
		token, err := config.ReadAPIToken(path)
		if err != nil {
			return fmt.Errorf("admin.token_file: %w", err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return fmt.Errorf("the admin endpoint at %s: %w", url, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the admin endpoint answered %s: %s", resp.Status, strings.TrimSpace(string(answer)))
	}
	return printMaintenance(stdout, answer)
}

// adminURL is the base URL of the admin endpoint listening on listen; an unspecified host
// (":9100", "0.0.0.0:9100") is reached on loopback.
func adminURL(listen string) (string, error) {
	if listen == "" {
		return "", errors.New("admin.listen is not set in the config: the proxy has no admin endpoint to ask")
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("admin.listen %q: %w", listen, err)
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return "http://" + net.JoinHostPort(host, port), nil
}

// printMaintenance prints an answer of /maintenance: one line per entry, and the kicks.
func printMaintenance(w io.Writer, answer []byte) error {
	var a maintenanceAnswer
	if err := json.Unmarshal(answer, &a); err != nil {
		return fmt.Errorf("the admin endpoint's answer: %w", err)
	}
	if len(a.Entries) == 0 {
		fmt.Fprintln(w, "no maintenance")
	}
	for _, e := range a.Entries {
		route := e.Route
		if route == "" {
			route = "(every route)"
		}
		fmt.Fprintf(w, "%s: on=%t active=%t source=%s allow=%d", route, e.On, e.Active, e.Source, len(e.Allow))
		if e.Start != "" || e.End != "" {
			fmt.Fprintf(w, " start=%s end=%s", e.Start, e.End)
		}
		fmt.Fprintln(w)
	}
	if k := a.Kicks; k != nil {
		fmt.Fprintf(w, "kicked %d (told why: %d), allowed %d\n", k.Kicked, k.Told, k.Allowed)
	}
	return nil
}
