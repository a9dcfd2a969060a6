package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// adminToken is the token the tests' token files hold.
const adminToken = "0123456789abcdef0123456789"

// serveAdmin runs serve with the admin endpoint on loopback, changed by change, and returns
// its base URL.
func serveAdmin(t *testing.T, change func(*config.Admin)) string {
	t.Helper()
	cfg := config.Default()
	cfg.Listeners[0].Addr = "127.0.0.1:0"
	cfg.Admin.Listen = "127.0.0.1:0"
	change(&cfg.Admin)
	return "http://" + adminAddr(t, startServe(t, cfg))
}

// writeAdminToken writes adminToken to a file and returns its path.
func writeAdminToken(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "admin.token")
	if err := os.WriteFile(path, []byte(adminToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// adminCall sends one request with the given Host (none: the URL's) and headers, and returns
// the status and the body.
func adminCall(t *testing.T, method, url, host string, header http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(body))
}

func bearer(token string) http.Header { return http.Header{"Authorization": {"Bearer " + token}} }

// Issue 38: with admin.token_file, every state-changing request, on any path, needs the token;
// reading does not.
func TestAdminStateChangesNeedTheToken(t *testing.T) {
	tokenFile := writeAdminToken(t)
	admin := serveAdmin(t, func(a *config.Admin) { a.TokenFile = tokenFile })
	for _, tc := range []struct {
		method, path string
		header       http.Header
		code         int
	}{
		{"POST", "/blocklist/clear", nil, http.StatusUnauthorized},
		{"POST", "/blocklist/clear", bearer("0123456789abcdef0123456788"), http.StatusUnauthorized},
		{"POST", "/blocklist/clear", http.Header{"Authorization": {adminToken}}, http.StatusUnauthorized},
		{"POST", "/transfer?route=survival", nil, http.StatusUnauthorized},
		{"POST", "/metrics", nil, http.StatusUnauthorized},
		{"DELETE", "/routes/survival", nil, http.StatusUnauthorized},
		{"PUT", "/livez", nil, http.StatusUnauthorized},
		{"POST", "/blocklist/clear", bearer(adminToken), http.StatusOK},
		{"POST", "/transfer?route=survival", bearer(adminToken), http.StatusBadRequest}, // no to
		{"GET", "/blocklist", nil, http.StatusOK},
		{"GET", "/metrics", nil, http.StatusOK},
		{"HEAD", "/readyz", nil, http.StatusOK},
	} {
		if code, body := adminCall(t, tc.method, admin+tc.path, "", tc.header); code != tc.code {
			t.Errorf("%s %s with %v: %d %.80q, want %d", tc.method, tc.path, tc.header, code, body, tc.code)
		}
	}
	if code, body := adminCall(t, "POST", admin+"/blocklist/clear", "", nil); !strings.Contains(body, "admin.token_file") {
		t.Errorf("a refusal says which token it needs: %d %q", code, body)
	}
	os.Remove(tokenFile)
	if code, _ := adminCall(t, "POST", admin+"/blocklist/clear", "", bearer(adminToken)); code != http.StatusServiceUnavailable {
		t.Errorf("POST with the token file gone: %d, want 503 (nothing changes without a token to check)", code)
	}
}

// Issue 38: DNS rebinding. A page of evil.example that resolved to 127.0.0.1 sends its own name
// as Host (and Sec-Fetch-Site: same-origin): refused, on every path; loopback names, the address
// the connection arrived on and admin.allowed_hosts are served. A cross-site state change is refused
// on every path too.
func TestAdminRefusesForeignHosts(t *testing.T) {
	admin := serveAdmin(t, func(a *config.Admin) { a.AllowedHosts = []string{"moonbridge-admin.internal"} })
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(admin, "http://"))
	sameOrigin := http.Header{"Sec-Fetch-Site": {"same-origin"}}
	for _, tc := range []struct {
		method, path, host string
		header             http.Header
		code               int
	}{
		{"POST", "/blocklist/clear", "evil.example:" + port, sameOrigin, http.StatusMisdirectedRequest},
		{"POST", "/transfer?route=survival", "evil.example", sameOrigin, http.StatusMisdirectedRequest},
		{"GET", "/metrics", "evil.example:" + port, nil, http.StatusMisdirectedRequest},
		{"GET", "/blocklist", "localhost.evil.example", nil, http.StatusMisdirectedRequest},
		{"GET", "/livez", "10.0.0.9:" + port, nil, http.StatusMisdirectedRequest},
		{"POST", "/metrics", "", http.Header{"Sec-Fetch-Site": {"cross-site"}}, http.StatusForbidden},
		{"POST", "/blocklist/clear", "", http.Header{"Sec-Fetch-Site": {"cross-site"}}, http.StatusForbidden},
		{"GET", "/livez", "localhost:" + port, nil, http.StatusOK},
		{"GET", "/livez", "LOCALHOST.", nil, http.StatusOK},
		{"GET", "/livez", "127.0.0.2", nil, http.StatusOK},
		{"GET", "/livez", "[::1]:" + port, nil, http.StatusOK},
		{"GET", "/livez", "Moonbridge-Admin.Internal:" + port, nil, http.StatusOK},
		{"POST", "/blocklist/clear", "127.0.0.1:" + port, sameOrigin, http.StatusOK},
	} {
		if code, body := adminCall(t, tc.method, admin+tc.path, tc.host, tc.header); code != tc.code {
			t.Errorf("%s %s, Host %q, %v: %d %.80q, want %d", tc.method, tc.path, tc.host, tc.header, code, body, tc.code)
		}
	}
}

// rawConn opens a connection to the admin endpoint at base.
func rawConn(t *testing.T, base string) net.Conn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// getLivez sends GET /livez on conn, kept alive, and reads the answer's status within d.
func getLivez(conn net.Conn, r *bufio.Reader, d time.Duration) (int, error) {
	if _, err := conn.Write([]byte("GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")); err != nil {
		return 0, err
	}
	conn.SetReadDeadline(time.Now().Add(d))
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// closedWithin says whether the server closes conn within d (a read ends in EOF or a reset,
// not in the deadline).
func closedWithin(conn net.Conn, r *bufio.Reader, d time.Duration) bool {
	conn.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, r)
	var ne net.Error
	return err == nil || !(errorAs(err, &ne) && ne.Timeout())
}

func errorAs(err error, target *net.Error) bool {
	ne, ok := err.(net.Error)
	if ok {
		*target = ne
	}
	return ok
}

// Issue 38: kept-alive connections were never closed and their number had no cap, so idle
// ones took every descriptor. Now the connections beyond admin.max_connections wait (in the
// kernel's queue) and an idle one is closed after admin.idle_timeout, which lets the waiting
// one in.
func TestAdminCapsAndClosesIdleConnections(t *testing.T) {
	const idle = 400 * time.Millisecond
	admin := serveAdmin(t, func(a *config.Admin) { a.MaxConnections, a.IdleTimeout = 2, idle })
	var kept []net.Conn
	var readers []*bufio.Reader
	for range 2 {
		conn := rawConn(t, admin)
		r := bufio.NewReader(conn)
		if code, err := getLivez(conn, r, 5*time.Second); err != nil || code != 200 {
			t.Fatalf("GET /livez within the cap: %d %v", code, err)
		}
		kept, readers = append(kept, conn), append(readers, r)
	}
	extra := rawConn(t, admin)
	extraReader := bufio.NewReader(extra)
	start := time.Now()
	if code, err := getLivez(extra, extraReader, idle/2); err == nil {
		t.Fatalf("a third connection over a cap of 2 was served at once (%d)", code)
	}
	for i, conn := range kept {
		if !closedWithin(conn, readers[i], 5*time.Second) {
			t.Fatalf("idle connection %d still open %v after an idle_timeout of %v", i, time.Since(start), idle)
		}
	}
	if code, err := getLivez(extra, extraReader, 5*time.Second); err != nil || code != 200 {
		t.Fatalf("the waiting connection, once the idle ones closed: %d %v", code, err)
	}
}

// Issue 38: a client that sends its headers a byte at a time (slowloris) is cut off after
// admin.read_timeout, and one whose headers are huge is refused.
func TestAdminBoundsSlowAndHugeHeaders(t *testing.T) {
	const read = 500 * time.Millisecond
	admin := serveAdmin(t, func(a *config.Admin) { a.ReadTimeout = read })
	slow := rawConn(t, admin)
	slow.Write([]byte("GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n"))
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for time.Since(start) < 5*time.Second {
			if _, err := slow.Write([]byte("X-A: b\r\n")); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	if !closedWithin(slow, bufio.NewReader(slow), 4*time.Second) {
		t.Errorf("slow headers still being read after %v, with read_timeout %v", time.Since(start), read)
	}
	slow.Close()
	<-done

	huge := http.Header{"X-Huge": {strings.Repeat("a", 100<<10)}}
	if code, _ := adminCall(t, "GET", admin+"/livez", "", huge); code != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("100 KiB of headers: %d, want 431", code)
	}
}

// A CPU profile streams for its seconds, beyond the read and write timeouts.
func TestAdminProfileOutlastsTheWriteTimeout(t *testing.T) {
	admin := serveAdmin(t, func(a *config.Admin) {
		a.Pprof, a.ReadTimeout, a.WriteTimeout = true, 300*time.Millisecond, 300*time.Millisecond
	})
	code, body := adminCall(t, "GET", admin+"/debug/pprof/profile?seconds=1", "", nil)
	if code != http.StatusOK || len(body) == 0 {
		t.Errorf("a 1 s profile with a 300 ms write timeout: %d, %d bytes %.100q", code, len(body), body)
	}
}

// Issue 38: check-config and serve's flags refuse an admin port beyond loopback without a token,
// naming the key.
func TestCheckConfigRefusesAnAdminPortWithoutToken(t *testing.T) {
	file := filepath.Join(t.TempDir(), "open.yml")
	if err := os.WriteFile(file, []byte("admin:\n  listen: 0.0.0.0:9100\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := run("check-config", file); code == 0 || !strings.Contains(stderr, "admin.token_file") {
		t.Errorf("check-config of an open admin port: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	_, err := parseCommandLine("serve", &serveFlags{}, "--admin", "[::]:9100")
	if err == nil || !strings.Contains(err.Error(), "admin.token_file") {
		t.Errorf("serve --admin [::]:9100: %v, want a refusal naming admin.token_file", err)
	}
}
