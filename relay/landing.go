package relay

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"regexp"

	"github.com/gorilla/websocket"

	"github.com/moonbridge/moonbridge/internal/enum"
	"github.com/moonbridge/moonbridge/mc"
)

// LandingPage is what a browser gets from a ws or wss listener for a request that is not a
// WebSocket upgrade, on any path and with any method (HEAD: the headers only): a small page
// saying what the server is and how to join, or a redirect. The zero value is off: such
// requests get 404 or 426 as before.
type LandingPage struct {
	Mode LandingMode `yaml:"mode"`
	// Redirect is where LandingRedirect sends the browser (302).
	Redirect string `yaml:"redirect"`
	// Name is the server's name on the page; "": the host the browser asked for.
	Name string `yaml:"name"`
	// Address is what players put in the server list (with a client mod, or direct); "": the
	// host the browser asked for.
	Address string `yaml:"address"`
}

// DefaultLandingPage is what a server owner gets: the page.
func DefaultLandingPage() LandingPage { return LandingPage{Mode: LandingPageMode} }

// LandingMode says what the landing page is.
type LandingMode string

const (
	LandingOff      LandingMode = "off" // also the zero value
	LandingPageMode LandingMode = "page"
	LandingRedirect LandingMode = "redirect"
)

var landingModes = []LandingMode{LandingPageMode, LandingRedirect, LandingOff}

// UnmarshalText reads page, redirect or off.
func (m *LandingMode) UnmarshalText(text []byte) (err error) {
	*m, err = enum.Parse(text, landingModes...)
	return err
}

func (m LandingMode) String() string { return string(m) }

func (p LandingPage) check() error {
	if err := enum.Check(p.Mode, landingModes...); err != nil {
		return fmt.Errorf("landing page mode: %w", err)
	}
	if p.Mode == LandingRedirect && p.Redirect == "" {
		return fmt.Errorf("landing page: redirect needs a URL")
	}
	return nil
}

// landing puts the landing page in front of next, the WebSocket upgrade, for a listener
// serving protocol (ws or wss).
func (ln *listener) landing(protocol string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		set := ln.srv.settings()
		page := set.LandingPage
		if websocket.IsWebSocketUpgrade(r) || page.Mode == "" || page.Mode == LandingOff {
			next.ServeHTTP(w, r)
			return
		}
		if page.Mode == LandingRedirect {
			http.Redirect(w, r, page.Redirect, http.StatusFound)
			return
		}
		writeLanding(w, landingFor(set, page, protocol, r))
	})
}

// landingData is what the page shows.
type landingData struct {
	Name, Address, URL string
	Status             *statusSummary // nil: no live answer is cached yet
}

// statusSummary is a status answer as the page shows it.
type statusSummary struct {
	MOTD           string
	Online, Max    int
	Version        string
	Favicon        template.URL // a checked data:image/png URL, or ""
	PlayersUnknown bool
}

func landingFor(set *settings, page LandingPage, protocol string, r *http.Request) landingData {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	d := landingData{Name: page.Name, Address: page.Address, URL: protocol + "://" + r.Host + set.WebSocket.Path}
	if d.Name == "" {
		d.Name = host
	}
	if d.Address == "" {
		d.Address = host
	}
	if route, ok := set.router.Match(host, set.WebSocket.Path); ok {
		if body, ok := route.status.last(statusKey{}); ok {
			d.Status = summarize(body)
		}
	}
	return d
}

// summarize reads what the page shows from a server's status JSON.
func summarize(body []byte) *statusSummary {
	var status struct {
		Description json.RawMessage `json:"description"`
		Players     *struct {
			Max    int `json:"max"`
			Online int `json:"online"`
		} `json:"players"`
		Version struct {
			Name string `json:"name"`
		} `json:"version"`
		Favicon string `json:"favicon"`
	}
	if json.Unmarshal(body, &status) != nil {
		return nil
	}
	s := &statusSummary{MOTD: mc.StripFormatting(mc.PlainText(status.Description)), Version: mc.StripFormatting(status.Version.Name)}
	if status.Players != nil {
		s.Online, s.Max = status.Players.Online, status.Players.Max
	} else {
		s.PlayersUnknown = true
	}
	if pngDataURL.MatchString(status.Favicon) {
		s.Favicon = template.URL(status.Favicon) // checked: a PNG in base64, nothing else
	}
	return s
}

var pngDataURL = regexp.MustCompile(`^data:image/png;base64,[A-Za-z0-9+/=\r\n]+$`)

// writeLanding writes the page; it loads nothing from elsewhere and runs no script.
func writeLanding(w http.ResponseWriter, d landingData) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
	landingTemplate.Execute(w, d) // a failed write is the browser gone; nothing to tell it
}

var landingTemplate = template.Must(template.New("landing").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Name}}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#222;background:#f6f6f4}
header{display:flex;gap:1rem;align-items:center}
img{width:64px;height:64px;image-rendering:pixelated}
.motd{font-size:1.1rem;white-space:pre-line}
code,pre{background:#e8e8e4;padding:.15rem .35rem;border-radius:4px}
pre{padding:.6rem;overflow-x:auto}
</style></head><body>
<header>{{with .Status}}{{if .Favicon}}<img src="{{.Favicon}}" alt="">{{end}}{{end}}<h1>{{.Name}}</h1></header>
{{with .Status}}<p class="motd" id="motd">{{.MOTD}}</p>
<p id="players">{{if .PlayersUnknown}}Players online: not shown by the server{{else}}Players online: {{.Online}} / {{.Max}}{{end}}{{if .Version}} &middot; {{.Version}}{{end}}</p>
{{else}}<p id="players">The server's status is not known yet.</p>{{end}}
<h2>How to join</h2>
<p>This is a Minecraft server. Open Minecraft, choose Multiplayer, and add the server:</p>
<ul>
<li>With a WebSocket client mod: <code id="url">{{.URL}}</code></li>
<li>Otherwise run the moonbridge client bridge on your computer, then add <code>localhost:25565</code>:
<p>Linux and macOS:</p><pre>moonbridge client --url {{.URL}}</pre>
<p>Windows:</p><pre>moonbridge.exe client --url {{.URL}}</pre></li>
</ul>
<p>Server address: <code id="address">{{.Address}}</code></p>
</body></html>
`))
