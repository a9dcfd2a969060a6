package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// browser is a headless Chromium (Debian's chromium, which scripts/bootstrap.sh browser
// installs) driven over its DevTools protocol on loopback, with gorilla/websocket: one page,
// navigated, read with JavaScript and photographed. It ends with the test.
type browser struct {
	t    *testing.T
	conn *websocket.Conn
	last int // the last command's id
}

// chromiumBound bounds a browser's whole life, so that a hung Chromium cannot hang the tests.
const chromiumBound = 2 * time.Minute

var devtoolsLine = regexp.MustCompile(`DevTools listening on (ws://[^\s]+)`)

func startChromium(t *testing.T) *browser {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is not installed (scripts/bootstrap.sh browser installs it; make test runs that): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), chromiumBound)
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--disable-crash-reporter", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--window-size=1280,1100",
		"--user-data-dir="+t.TempDir(), "about:blank")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	// Chromium's helpers (zygote, renderer, crash handler) outlive a killed parent and go on
	// writing its profile; in a group of their own they end with it, before the profile's
	// directory is removed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait(); awaitGroupGone(cmd.Process.Pid) })
	endpoint := devtoolsEndpoint(t, stderr)
	b := &browser{t: t, conn: dialPage(t, endpoint)}
	t.Cleanup(func() { b.conn.Close() })
	return b
}

// awaitGroupGone waits, for a few seconds at most, until no process of the group is left.
func awaitGroupGone(group int) {
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(-group, 0) == syscall.ESRCH {
			return
		}
	}
}

// devtoolsEndpoint reads Chromium's standard error until it names its DevTools address, and
// drains the rest, so that Chromium never blocks on a full pipe.
func devtoolsEndpoint(t *testing.T, stderr interface{ Read([]byte) (int, error) }) string {
	t.Helper()
	found := make(chan string, 1)
	var seen testutil.SyncBuffer
	go func() {
		scan := bufio.NewScanner(stderr)
		for scan.Scan() {
			seen.Write(append(scan.Bytes(), '\n'))
			if m := devtoolsLine.FindStringSubmatch(scan.Text()); m != nil {
				select {
				case found <- m[1]:
				default: // named already
				}
			}
		}
	}()
	select {
	case endpoint := <-found:
		return endpoint
	case <-time.After(time.Minute):
		t.Fatalf("chromium named no DevTools address within a minute:\n%s", seen.String())
		return ""
	}
}

// dialPage connects to the DevTools socket of Chromium's first page.
func dialPage(t *testing.T, browserEndpoint string) *websocket.Conn {
	t.Helper()
	host := strings.SplitN(strings.TrimPrefix(browserEndpoint, "ws://"), "/", 2)[0]
	var targets []struct{ Type, WebSocketDebuggerURL string }
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + host + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
		t.Fatal(err)
	}
	for _, target := range targets {
		if target.Type == "page" {
			dialer := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
			conn, _, err := dialer.Dial(target.WebSocketDebuggerURL, nil)
			if err != nil {
				t.Fatal(err)
			}
			return conn
		}
	}
	t.Fatalf("chromium has no page: %+v", targets)
	return nil
}

// call sends one DevTools command and returns its result, skipping the events in between.
func (b *browser) call(method string, params any) json.RawMessage {
	b.t.Helper()
	b.last++
	b.conn.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if err := b.conn.WriteJSON(map[string]any{"id": b.last, "method": method, "params": params}); err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	b.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		var msg struct {
			ID     int
			Result json.RawMessage
			Error  *struct{ Message string }
		}
		if err := b.conn.ReadJSON(&msg); err != nil {
			b.t.Fatalf("%s: %v", method, err)
		}
		switch {
		case msg.ID != b.last:
			continue
		case msg.Error != nil:
			b.t.Fatalf("%s: %s", method, msg.Error.Message)
		}
		return msg.Result
	}
}

// navigate loads url and waits until the page and its scripts have loaded.
func (b *browser) navigate(url string) {
	b.t.Helper()
	b.call("Page.navigate", map[string]any{"url": url})
	b.waitFor("the page loaded", "location.href === "+jsString(url)+" && document.readyState === 'complete'")
}

// eval runs a JavaScript expression in the page (awaiting a promise) and decodes its value into out.
func (b *browser) eval(expr string, out any) {
	b.t.Helper()
	var res struct {
		Result           struct{ Value json.RawMessage }
		ExceptionDetails *struct {
			Text      string
			Exception struct{ Description string }
		}
	}
	raw := b.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	if err := json.Unmarshal(raw, &res); err != nil {
		b.t.Fatal(err)
	}
	if res.ExceptionDetails != nil {
		b.t.Fatalf("%s: %s %s", expr, res.ExceptionDetails.Text, res.ExceptionDetails.Exception.Description)
	}
	if len(res.Result.Value) > 0 {
		if err := json.Unmarshal(res.Result.Value, out); err != nil {
			b.t.Fatalf("%s: %v (%s)", expr, err, res.Result.Value)
		}
	}
}

// text is a string expression's value in the page.
func (b *browser) text(expr string) string {
	b.t.Helper()
	var s string
	b.eval(expr, &s)
	return s
}

// waitFor polls a boolean expression in the page until it holds, and fails the test after
// testutil.WaitBound with what the page shows.
func (b *browser) waitFor(what, expr string) {
	b.t.Helper()
	if !testutil.Within(testutil.WaitBound, func() bool { var ok bool; b.eval("Boolean("+expr+")", &ok); return ok }) {
		b.t.Fatalf("the page never showed %s (%s); it shows:\n%s", what, expr, b.text("document.body.innerText"))
	}
}

// screenshot writes the page as a PNG to path.
func (b *browser) screenshot(path string) {
	b.t.Helper()
	var shot struct{ Data string }
	if err := json.Unmarshal(b.call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}), &shot); err != nil {
		b.t.Fatal(err)
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil || len(png) == 0 {
		b.t.Fatalf("no screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", path)
}
