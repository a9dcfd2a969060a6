package relay

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const landingStatus = `{"version":{"name":"§aPaper 1.21","protocol":767},"players":{"max":20,"online":3},` +
	`"description":{"text":"§6Welcome ","extra":["to <b>Moon</b> ",{"text":"Island"}]}}`

// landingProxy runs a proxy for minecraft and ws on one port, whose route caches its status,
// with the landing page as page says, and fills the cache with one ping.
func landingProxy(t *testing.T, page LandingPage) string {
	t.Helper()
	backend := startLiveStatusServer(t, landingStatus)
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.ln.Addr().String())
		c.Routes[0].StatusCache = time.Hour
		c.LandingPage = page
	}, Minecraft, WS)
	pingStatus(t, Minecraft, addr, "127.0.0.1")
	return addr
}

func httpGet(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	return httpDo(t, http.MethodGet, url)
}

// A browser's request on any path gets the page, with the status from the cache, escaped; the
// WebSocket upgrade works as before.
func TestLandingPageOverHTTP(t *testing.T) {
	addr := landingProxy(t, LandingPage{Mode: LandingPageMode, Name: "Moon Island"})
	for _, path := range []string{"/", "/mc", "/anything"} {
		resp, body := httpGet(t, "http://"+addr+path)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("%s: %s %s", path, resp.Status, resp.Header.Get("Content-Type"))
		}
		for _, want := range []string{"<title>Moon Island</title>", "Welcome to &lt;b&gt;Moon&lt;/b&gt; Island", "3 / 20", "Paper 1.21",
			"moonbridge client --url ws://" + addr + "/mc"} {
			if !strings.Contains(body, want) {
				t.Errorf("%s: the page lacks %q:\n%s", path, want, body)
			}
		}
		if strings.Contains(body, "<script") || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Errorf("%s: a script, or no CSP %q", path, resp.Header.Get("Content-Security-Policy"))
		}
	}
	// The WebSocket upgrade on the path still works (dialClient fails the test otherwise), and
	// a ping over it is answered.
	if status := pingStatus(t, WS, addr, "127.0.0.1"); status["players"] == nil {
		t.Errorf("a ping over ws got %v", status)
	}
}

func TestLandingPageRedirectAndOff(t *testing.T) {
	addr := landingProxy(t, LandingPage{Mode: LandingRedirect, Redirect: "https://example.net/join"})
	resp, _ := httpGet(t, "http://"+addr+"/")
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "https://example.net/join" {
		t.Errorf("redirect: %s to %q", resp.Status, resp.Header.Get("Location"))
	}
	addr = landingProxy(t, LandingPage{})
	if resp, _ := httpGet(t, "http://"+addr+"/"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("off: %s, want 404 as without a landing page", resp.Status)
	}
	if _, err := New(Config{LandingPage: LandingPage{Mode: LandingRedirect}}); err == nil {
		t.Error("a redirect without a URL was accepted")
	}
}

// The page in a real browser: headless Chromium (Debian's chromium, which scripts/bootstrap.sh
// browser installs: make test runs it) loads it, its text is checked, and a screenshot goes to the test's artifacts.
func TestLandingPageInChromium(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is not installed (scripts/bootstrap.sh browser installs it; make test runs that): %v", err)
	}
	addr := landingProxy(t, LandingPage{Mode: LandingPageMode, Name: "Moon Island", Address: "play.example.net"})
	url := "http://" + addr + "/"
	dom := runChromium(t, chromium, "--dump-dom", url)
	for _, want := range []string{"Moon Island", "Welcome to &lt;b&gt;Moon&lt;/b&gt; Island", "Players online: 3 / 20",
		"moonbridge.exe client --url ws://" + addr + "/mc", "play.example.net"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page as Chromium rendered it lacks %q:\n%s", want, dom)
		}
	}
	shot := filepath.Join(t.ArtifactDir(), "landing.png")
	runChromium(t, chromium, "--screenshot="+shot, "--window-size=900,900", url)
	if info, err := os.Stat(shot); err != nil || info.Size() == 0 {
		t.Fatalf("no screenshot: %v", err)
	}
	t.Logf("screenshot of the landing page: %s", shot)
}

// runChromium runs headless Chromium on loopback only and returns its standard output.
func runChromium(t *testing.T, chromium string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, chromium, append(base, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	cmd.WaitDelay = 5 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}
