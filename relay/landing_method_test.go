package relay

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Issue 26: a listener serving Minecraft and ws sniffed only "GET " as HTTP, so a HEAD or POST
// was read as a Minecraft hello and got no answer at all. Every method is HTTP now and gets the
// landing page (HEAD its headers only); with the page off, the 404 as before.
func TestLandingPageForEveryMethod(t *testing.T) {
	page := landingProxy(t, LandingPage{Mode: LandingPageMode, Name: "Moon Island"})
	redirect := landingProxy(t, LandingPage{Mode: LandingRedirect, Redirect: "https://example.net/join"})
	off := landingProxy(t, LandingPage{})
	for _, method := range []string{"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "PROPFIND"} {
		t.Run(method, func(t *testing.T) {
			resp, body := httpDo(t, method, "http://"+page+"/")
			wantBody := method != http.MethodHead
			if resp.StatusCode != http.StatusOK || strings.Contains(body, "Moon Island") != wantBody ||
				!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
				t.Errorf("page: %s %s, %d bytes of body (want one: %v)", resp.Status, resp.Header.Get("Content-Type"), len(body), wantBody)
			}
			if resp, _ := httpDo(t, method, "http://"+redirect+"/"); resp.StatusCode != http.StatusFound ||
				resp.Header.Get("Location") != "https://example.net/join" {
				t.Errorf("redirect: %s to %q", resp.Status, resp.Header.Get("Location"))
			}
			if resp, _ := httpDo(t, method, "http://"+off+"/"); resp.StatusCode != http.StatusNotFound {
				t.Errorf("off: %s, want 404", resp.Status)
			}
		})
	}
}

// TestSniffHTTPMethods: an HTTP method token and a space is ws; a Minecraft handshake whose
// length byte is a letter (its second byte is the packet id 0x00), a legacy ping and a token
// with no space after it are not.
func TestSniffHTTPMethods(t *testing.T) {
	for _, c := range []struct {
		in   string
		http bool
	}{
		{"GET / HTTP/1.1\r\n", true}, {"HEAD / HTTP/1.1\r\n", true}, {"POST /mc HTTP/1.1\r\n", true},
		{"PUT / HTTP/1.1\r\n", true}, {"OPTIONS * HTTP/1.1\r\n", true}, {"M-SEARCH * HTTP/1.1\r\n", true},
		{"P\x00\xff\x05", false}, {"G\x00\x10", false}, {"\xfe\x01\xfa", false}, {" GET", false},
		{strings.Repeat("A", maxMethodLen+1) + " ", false}, {"GET", false}, // cut short: the peer closed
	} {
		if got := startsLikeHTTP(bufio.NewReader(strings.NewReader(c.in))); got != c.http {
			t.Errorf("%q: HTTP %v, want %v", c.in, got, c.http)
		}
	}
}

// httpDo sends one request with method on a connection of its own.
func httpDo(t *testing.T, method, url string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{
		Timeout:       10 * time.Second,
		Transport:     &http.Transport{DisableKeepAlives: true}, // each request sniffed afresh
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}
