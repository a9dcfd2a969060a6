package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// clientFlags are `moonbridge client`'s flags, named after the config file's client keys; each
// one that is given overrides the file.
type clientFlags struct {
	commonFlags
	listen    string
	url       string
	connect   string
	sni       string
	host      string
	headers   headerList
	token     string
	tokenFile string
	ca        string
	insecure  bool
	tlsMin    string
	helloWait string
	earlyData bool
	rawStream bool

	writeConfig string // write the settings to this file instead of running
}

func (f *clientFlags) register(fs *flag.FlagSet) {
	f.commonFlags.register(fs, "YAML config `file` whose client: section is read (see moonbridge.example.yml)")
	fs.StringVar(&f.listen, "listen", "", "local `ADDR` the game connects to (default 127.0.0.1:25565)")
	fs.StringVar(&f.url, "url", "", "server `URL`: ws://HOST[:PORT]/PATH or wss://HOST[:PORT]/PATH (required)")
	fs.StringVar(&f.connect, "connect", "", "dial this `HOST:PORT` (a CDN edge) instead of the URL's host; TLS and Host still name the URL's host")
	fs.StringVar(&f.sni, "sni", "", "TLS server `name` to send and verify (default the URL's host)")
	fs.StringVar(&f.host, "host", "", "HTTP Host header `name` (default the URL's host[:port])")
	fs.Var(&f.headers, "header", "extra upgrade request header `\"Name: value\"`; repeatable")
	fs.StringVar(&f.token, "token", "", "send `T` as \"Authorization: Bearer T\" (other users of this machine can see it in the process list: prefer --token-file)")
	fs.StringVar(&f.tokenFile, "token-file", "", "read the token from `FILE` (from `moonbridge token issue`) and send it as --token does")
	fs.StringVar(&f.ca, "ca", "", "PEM `file` of the authorities to trust for wss (default the system's)")
	fs.BoolVar(&f.insecure, "insecure", false, "do not verify the server's certificate: for tests only, never for playing")
	fs.StringVar(&f.tlsMin, "tls-min", "", "lowest TLS `version`: 1.2 or 1.3 (default 1.2)")
	fs.StringVar(&f.helloWait, "hello-wait", "", "how long the game may take to send its first packet once connected (default 10s; longer for a client that checks the server's version first, such as mineflayer)")
	fs.BoolVar(&f.earlyData, "early-data", false, "put the game's first bytes in the WebSocket upgrade request, so that a server whose listener takes them (early_data) connects a round trip sooner; any other gets them after the upgrade")
	fs.BoolVar(&f.rawStream, "raw-stream", false, "ask the server for no WebSocket framing after the upgrade (its listener's raw_stream); without it on, the framing stays. No keepalive ping then: only for a path that passes the upgraded connection as a stream")
	fs.StringVar(&f.writeConfig, "write-config", "", "write these settings, the token included, to `FILE` (0600) for a player to put beside moonbridge as "+clientFileName+", instead of running")
}

// errNoURL is a client started without a server to go to.
var errNoURL = errors.New("no server URL: pass --url wss://HOST/PATH, set client.url in the config file, or run moonbridge without a command to be asked for it")

// effectiveConfig loads the file (or the defaults) and applies the flags given.
func (f *clientFlags) effectiveConfig() (config.Config, error) {
	cfg, keys, err := f.load()
	if err != nil {
		return config.Config{}, err
	}
	c := &cfg.Client
	keys.set(&c.Listen, f.listen, "client.listen", "--listen")
	keys.set(&c.URL, f.url, "client.url", "--url")
	keys.set(&c.Connect, f.connect, "client.connect", "--connect")
	keys.set(&c.SNI, f.sni, "client.sni", "--sni")
	keys.set(&c.Host, f.host, "client.host", "--host")
	f.overrideToken(c, keys)
	keys.set(&c.CA, f.ca, "client.ca", "--ca")
	keys.set(&c.TLSMin, f.tlsMin, "client.tls_min", "--tls-min")
	if len(f.headers) > 0 {
		c.Headers = f.headers
		for i := range f.headers {
			keys[fmt.Sprintf("client.headers[%d]", i)] = "--header"
		}
	}
	c.Insecure = c.Insecure || f.insecure
	c.EarlyData = c.EarlyData || f.earlyData
	c.RawStream = c.RawStream || f.rawStream
	waitErr := overrideText(durationText{&c.HelloWait}, "client.hello_wait", f.helloWait)
	if f.helloWait != "" {
		keys["client.hello_wait"] = "--hello-wait"
	}
	if err := errors.Join(keys.rename(waitErr), keys.validate(cfg)); err != nil {
		return config.Config{}, fmt.Errorf("invalid configuration:\n%w", err)
	}
	if c.URL == "" {
		return config.Config{}, errNoURL
	}
	return cfg, nil
}

// overrideToken lets a token flag replace the file's token, whichever way the file gives it;
// both flags at once are refused by validation.
func (f *clientFlags) overrideToken(c *config.Client, keys flagKeys) {
	if f.token != "" || f.tokenFile != "" {
		c.Token, c.TokenFile = "", ""
		keys.set(&c.Token, f.token, "client.token", "--token")
		keys.set(&c.TokenFile, f.tokenFile, "client.token_file", "--token-file")
	}
}

// durationText parses a flag's duration ("10s", "1m30s") into the setting it points to.
type durationText struct{ d *time.Duration }

func (t durationText) UnmarshalText(text []byte) error {
	d, err := time.ParseDuration(string(text))
	if err != nil {
		return fmt.Errorf("%q is not a duration such as 10s or 1m", text)
	}
	*t.d = d
	return nil
}

// headerList is a repeatable --header.
type headerList []string

func (h *headerList) String() string { return strings.Join(*h, ", ") }

func (h *headerList) Set(v string) error {
	*h = append(*h, v)
	return nil
}
