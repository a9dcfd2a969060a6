package relay

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/clientaddr"
)

// countryRoute lets in what countries says, from any host.
func countryRoute(backend string, countries Countries) []Route {
	routes := routeTo(backend)
	routes[0].Countries = countries
	return routes
}

// wsLoginAnswer sends a login handshake for host and returns all the proxy sends until it closes.
func wsLoginAnswer(t *testing.T, c *websocket.Conn, host string) []byte {
	t.Helper()
	c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if err := c.WriteMessage(websocket.BinaryMessage, handshakeFrame(host, mc.NextLogin)); err != nil {
		t.Fatal(err)
	}
	var got []byte
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, msg, err := c.ReadMessage()
		if err != nil {
			return got
		}
		got = append(got, msg...)
	}
}

// The country header is believed only from a trusted proxy, and only with the forward secret
// when one is set; a value that is not a country code is no country. A route that allows DE lets
// in only a client a believed header says is in DE, refuses the others at login before any
// backend is dialled, counts them and logs the believed country (and only that) on the end line.
func TestCountryHeaderBelievedLikeAddressHeaders(t *testing.T) {
	cases := []struct {
		name    string
		trusted string
		secret  string // ForwardSecret's value, in X-Origin-Secret
		header  http.Header
		in      bool
		logged  string // the country on the end line; "": none believed
	}{
		{"trusted DE", "127.0.0.0/8", "", http.Header{"Cf-Ipcountry": {"DE"}}, true, "DE"},
		{"trusted FR", "127.0.0.0/8", "", http.Header{"Cf-Ipcountry": {"FR"}}, false, "FR"},
		{"untrusted client says DE", "10.0.0.0/8", "", http.Header{"Cf-Ipcountry": {"DE"}}, false, ""},
		{"trusted with the secret", "127.0.0.0/8", "s3cret", http.Header{"Cf-Ipcountry": {"DE"}, "X-Origin-Secret": {"s3cret"}}, true, "DE"},
		{"trusted without the secret", "127.0.0.0/8", "s3cret", http.Header{"Cf-Ipcountry": {"DE"}}, false, ""},
		{"lower case", "127.0.0.0/8", "", http.Header{"Cf-Ipcountry": {"de"}}, false, ""},
		{"too long", "127.0.0.0/8", "", http.Header{"Cf-Ipcountry": {"DEU-injected"}}, false, ""},
		{"empty", "127.0.0.0/8", "", http.Header{"Cf-Ipcountry": {""}}, false, ""},
		{"several values", "127.0.0.0/8", "", http.Header{"Cf-Ipcountry": {"DE", "DE"}}, false, ""},
		{"missing", "127.0.0.0/8", "", http.Header{}, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			backend := startBackend(t, false)
			var lines *logLines
			srv, addr := startProxy(t, func(c *Config) {
				lines = captureLog(t, c)
				c.TrustedProxies = mustTrust(t, tc.trusted)
				c.CountryHeader = "CF-IPCountry"
				c.ForwardSecret = clientaddr.ForwardSecret{Header: "X-Origin-Secret", Value: tc.secret}
				c.Routes = countryRoute(backend.addr(), Countries{Allow: []string{"DE"}})
			}, WS)
			c, _, err := dialAccess(t, WS, addr, wsDial{header: tc.header})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if tc.in {
				wsExchange(t, c, "play.example")
				c.Close()
			} else if got := wsLoginAnswer(t, c, "play.example"); !bytes.Contains(got, []byte(countryText)) {
				t.Fatalf("a refused client got %q, want a disconnect saying %q", got, countryText)
			}
			waitForLines(t, lines, 1, `"message":"session ended"`)
			if n := lines.count(`"country":"`); tc.logged == "" && n != 0 {
				t.Errorf("%d lines name a country no one believed:\n%s", n, lines.String())
			} else if n := lines.count(`"message":"session ended"`, `"country":"`+tc.logged+`"`); tc.logged != "" && n != 1 {
				t.Errorf("the end line does not say the believed country %s:\n%s", tc.logged, lines.String())
			}
			if strings.Contains(lines.String(), "injected") {
				t.Error("the header's raw value was logged")
			}
			if tc.in {
				return
			}
			waitForMetric(t, srv, refusedSeries, map[string]string{"reason": refusedCountry}, 1)
			waitForLines(t, lines, 1, `"message":"session ended"`, `"answered":"country"`)
			if n := backend.acceptedCount(t); n != 0 {
				t.Errorf("%d connections reached the backend", n)
			}
		})
	}
}

// A deny list refuses the countries it names and lets in the rest, unknown included.
func TestCountryDenyList(t *testing.T) {
	backend := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) {
		c.TrustedProxies = mustTrust(t, "127.0.0.0/8")
		c.CountryHeader = "CF-IPCountry"
		c.Routes = countryRoute(backend.addr(), Countries{Deny: []string{"FR"}})
	}, WS)
	for _, header := range []http.Header{{"Cf-Ipcountry": {"DE"}}, {}} {
		c, _, err := dialAccess(t, WS, addr, wsDial{header: header})
		if err != nil {
			t.Fatal(err)
		}
		wsExchange(t, c, "play.example")
		c.Close()
	}
	wsRefusedByCountry(t, addr, http.Header{"Cf-Ipcountry": {"FR"}})
	waitForMetric(t, srv, refusedSeries, map[string]string{"reason": refusedCountry}, 1)
}

// A header with no name set reads none: the country stays unknown however trusted the proxy.
func TestCountryHeaderOff(t *testing.T) {
	backend := startBackend(t, false)
	_, addr := startProxy(t, func(c *Config) {
		c.TrustedProxies = mustTrust(t, "127.0.0.0/8")
		c.Routes = countryRoute(backend.addr(), Countries{Allow: []string{"DE"}})
	}, WS)
	wsRefusedByCountry(t, addr, http.Header{"Cf-Ipcountry": {"DE"}})
}

// wsRefusedByCountry logs in over ws with header and wants the login disconnect saying the
// country is not let in.
func wsRefusedByCountry(t *testing.T, addr string, header http.Header) {
	t.Helper()
	c, _, err := dialAccess(t, WS, addr, wsDial{header: header})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := wsLoginAnswer(t, c, "play.example"); !bytes.Contains(got, []byte(countryText)) {
		t.Fatalf("a client with %v got %q, want a disconnect saying %q", header, got, countryText)
	}
}

// Raw TCP has no country: an allow list refuses its login and answers its ping with the
// fallback's entry saying why, unless the list names XX.
func TestCountryRawTCPIsUnknown(t *testing.T) {
	backend := startBackend(t, false)
	srv, addr := startProxy(t, func(c *Config) {
		c.CountryHeader = "CF-IPCountry"
		c.Routes = []Route{
			{Hosts: []string{"de.example"}, Backends: routeTo(backend.addr())[0].Backends, Countries: Countries{Allow: []string{"DE"}}},
			{Hosts: []string{"open.example"}, Backends: routeTo(backend.addr())[0].Backends, Countries: Countries{Allow: []string{"DE", "XX"}}},
		}
	}, Minecraft)
	conn := dialClient(t, Minecraft, addr)
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	conn.Write(handshakeFrame("de.example", mc.NextLogin))
	if got, _ := io.ReadAll(conn); !bytes.Contains(got, []byte(countryText)) {
		t.Fatalf("a raw TCP login got %q", got)
	}
	status := pingStatus(t, Minecraft, addr, "de.example")
	if motd := jsonText(t, status["description"]); !strings.Contains(motd, countryText) {
		t.Errorf("a raw TCP ping got the MOTD %s", motd)
	}
	waitForMetric(t, srv, refusedSeries, map[string]string{"reason": refusedCountry}, 2)
	open := dialClient(t, Minecraft, addr)
	defer open.Close()
	exchange(t, open, "open.example", 300)
	if n := backend.acceptedCount(t); n != 1 {
		t.Errorf("%d connections reached the backend, want the one to the route that lists XX", n)
	}
}

// Route codes are checked and upper-cased once; Cloudflare's XX and T1 are codes an owner may list.
func TestParseCountries(t *testing.T) {
	c, err := ParseCountries([]string{"de", "XX", "t1"}, []string{"Fr"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Allow, ",") != "DE,XX,T1" || strings.Join(c.Deny, ",") != "FR" {
		t.Errorf("parsed %v", c)
	}
	for _, bad := range []string{"UK", "DEU", "D", "", "1A", "ZZ"} {
		_, err := ParseCountries([]string{"DE"}, []string{bad})
		if err == nil || !strings.Contains(err.Error(), `"`+bad+`"`) || !strings.Contains(err.Error(), "deny[0]") {
			t.Errorf("%q: %v, want an error naming deny[0] and the code", bad, err)
		}
	}
	if n := len(strings.Fields(iso3166)); n != 249 {
		t.Errorf("%d ISO 3166-1 codes, want the 249 assigned", n)
	}
}
