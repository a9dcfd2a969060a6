package config

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/moonbridge/moonbridge/access"
	"github.com/moonbridge/moonbridge/bridge"
)

// Client configures `moonbridge client`, the bridge on a player's machine; its flags have the
// same names. Only URL has no usable default, and only the client command needs it.
type Client struct {
	Listen  string   `yaml:"listen"`  // local address the game connects to
	URL     string   `yaml:"url"`     // ws://HOST[:PORT]/PATH or wss://...
	Connect string   `yaml:"connect"` // HOST:PORT to dial instead of the URL's (a CDN edge)
	SNI     string   `yaml:"sni"`     // TLS server name; empty: the URL's host
	Host    string   `yaml:"host"`    // HTTP Host header; empty: the URL's host[:port]
	Headers []string `yaml:"headers"` // extra request headers, "Name: value"
	Token   string   `yaml:"token"`   // sent as "Authorization: Bearer <token>"
	// TokenFile holds the token instead, so that it stays out of the process list.
	TokenFile string `yaml:"token_file"`
	CA        string `yaml:"ca"`       // PEM file of authorities to trust; empty: the system's
	Insecure  bool   `yaml:"insecure"` // no TLS verification: tests only
	TLSMin    string `yaml:"tls_min"`  // "1.2" or "1.3"
	// HelloWait is how long the game may take to send its first packet (bridge.Config's
	// HelloTimeout).
	HelloWait time.Duration `yaml:"hello_wait"`
	// EarlyData puts the game's first bytes in the upgrade request (bridge.Config's EarlyData);
	// RawStream asks for no WebSocket framing after it (ws.DialConfig's RawStream). Each works
	// with a server whose listener has it on; another gets the bytes as without.
	EarlyData bool `yaml:"early_data"`
	RawStream bool `yaml:"raw_stream"`
}

func defaultClient() Client {
	return Client{Listen: "127.0.0.1:25565", Headers: []string{}, TLSMin: "1.2", HelloWait: bridge.DefaultHelloTimeout}
}

func (c Client) validate() []error {
	errs := []error{listenAddr("client.listen", c.Listen), oneOf("client.tls_min", c.TLSMin, "1.2", "1.3"), readableFile("client.ca", c.CA)}
	if c.URL != "" {
		if u, err := url.Parse(c.URL); err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Hostname() == "" {
			errs = append(errs, invalid("client.url", "%q is not ws://HOST[:PORT]/PATH or wss://...", c.URL))
		}
	}
	if c.Connect != "" {
		errs = append(errs, dialAddr("client.connect", c.Connect))
	}
	if c.HelloWait <= 0 {
		errs = append(errs, invalid("client.hello_wait", "must be a positive duration such as 10s"))
	}
	if c.Token != "" && c.TokenFile != "" {
		errs = append(errs, invalid("client.token_file", "set client.token or client.token_file, not both"))
	} else if _, err := c.HTTPHeader(); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// HTTPHeader is the extra upgrade request headers: Headers, and Token as a bearer token.
func (c Client) HTTPHeader() (http.Header, error) {
	h := http.Header{}
	for i, line := range c.Headers {
		name, value, err := parseHeaderLine(line)
		if err != nil {
			return nil, invalid(fmt.Sprintf("client.headers[%d]", i), "%v", err)
		}
		h.Add(name, value)
	}
	token, err := c.token()
	if err != nil {
		return nil, err
	}
	if token != "" {
		if h.Get("Authorization") != "" {
			return nil, invalid("client.token", "an Authorization header is set too; use one of them")
		}
		h.Set("Authorization", "Bearer "+token)
	}
	return h, nil
}

// parseHeaderLine splits "Name: value" and refuses what would corrupt the request.
func parseHeaderLine(line string) (name, value string, err error) {
	name, value, ok := strings.Cut(line, ":")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	switch {
	case !ok || name == "":
		return "", "", fmt.Errorf("%q is not \"Name: value\"", line)
	case strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r >= 0x7f }):
		return "", "", fmt.Errorf("header name %q has spaces or control characters", name)
	case strings.ContainsAny(value, "\r\n\x00"):
		return "", "", fmt.Errorf("header %s: the value has a line break or NUL", name)
	}
	return name, value, nil
}

// token is Token, or the one TokenFile holds.
func (c Client) token() (string, error) {
	if c.TokenFile == "" {
		return c.Token, nil
	}
	token, err := access.ReadTokenFile(c.TokenFile)
	if err != nil {
		return "", invalid("client.token_file", "cannot read %s: %v", c.TokenFile, pathErrorReason(err))
	}
	return token, nil
}

// File renders c as a config file of its own, the client: section alone, for a player's machine:
// the token TokenFile names is written in as client.token, since that machine has no such file.
func (c Client) File() ([]byte, error) {
	token, err := c.token()
	if err != nil {
		return nil, err
	}
	c.Token, c.TokenFile = token, ""
	return yaml.MarshalWithOptions(struct {
		Client Client `yaml:"client"`
	}{c}, yaml.IndentSequence(true))
}
