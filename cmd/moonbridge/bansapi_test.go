package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/relay"
	"github.com/moonbridge/moonbridge/relay/bans"
)

// fakeSessions is one open session, id "7", of Steve (online when online) from 198.51.100.4;
// it records what was asked of it.
type fakeSessions struct {
	online  bool
	kicked  []string // messages
	banned  []bans.Ban
	movedTo string
}

func (f *fakeSessions) info() relay.SessionInfo {
	return relay.SessionInfo{ID: "7", Route: "survival", Player: "Steve", UUID: "069a79f4-44e9-4726-a5be-fca90e38aaf5",
		Online: f.online, Client: "198.51.100.4:50123", Transport: "minecraft"}
}

func (f *fakeSessions) Sessions() []relay.SessionInfo { return []relay.SessionInfo{f.info()} }

func (f *fakeSessions) Session(id string) (relay.SessionInfo, error) {
	if id != "7" {
		return relay.SessionInfo{}, &relay.UnknownSessionError{ID: id}
	}
	return f.info(), nil
}

func (f *fakeSessions) Kick(id, message string) (relay.KickResult, error) {
	if _, err := f.Session(id); err != nil {
		return relay.KickResult{}, err
	}
	if err := bans.CheckText("message", message, relay.MaxMessageBytes); err != nil || message == "" {
		return relay.KickResult{}, &bans.InputError{Field: "message", Value: message, Reason: "bad"}
	}
	f.kicked = append(f.kicked, message)
	return relay.KickResult{ID: id, DisconnectSent: true}, nil
}

func (f *fakeSessions) TransferSession(id, host string, port uint16) (relay.SessionTransfer, error) {
	if _, err := f.Session(id); err != nil {
		return relay.SessionTransfer{}, err
	}
	f.movedTo = host
	return relay.SessionTransfer{ID: id, To: host, TransferSent: true}, nil
}

func (f *fakeSessions) KickBanned(b bans.Ban) []relay.KickResult {
	f.banned = append(f.banned, b)
	if !b.Matches("Steve", f.info().UUID, netip.MustParseAddr("198.51.100.4")) {
		return nil
	}
	return []relay.KickResult{{ID: "7", DisconnectSent: true}}
}

// consoleServer serves the bans and sessions APIs behind the guard with the token, over a
// bans file at path; it returns the server, the store and the log.
func consoleServer(t *testing.T, path string, src *fakeSessions) (*httptest.Server, *banStore, *testutil.SyncBuffer) {
	t.Helper()
	logs := &testutil.SyncBuffer{}
	log := zerolog.New(logs)
	store, err := openBans(path, log)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	audit := adminAudit{log: log, token: true}
	handleBans(mux, store, src, audit)
	handleSessions(mux, src, store, audit)
	server := httptest.NewServer(newAdminGuard(config.Admin{TokenFile: writeAdminToken(t)}, log).wrap(mux))
	t.Cleanup(server.Close)
	return server, store, logs
}

// call sends body (a string, "" for none) with the token.
func call(t *testing.T, server *httptest.Server, method, path, body string) (int, string) {
	t.Helper()
	code, out := testutil.BearerCall(t, method, server.URL+path, adminToken, body)
	return code, strings.TrimSpace(out)
}

func TestBansAndSessionsNeedTheTokenToRead(t *testing.T) {
	server, _, _ := consoleServer(t, "", &fakeSessions{})
	for _, path := range []string{"/bans", "/sessions"} {
		for _, method := range []string{"GET", "HEAD"} {
			if code, _ := adminRequest(t, server, method, path, nil); code != http.StatusUnauthorized {
				t.Errorf("%s %s without the token: %d, want 401", method, path, code)
			}
		}
		if code, _ := adminRequest(t, server, "GET", path, bearer(adminToken)); code != http.StatusOK {
			t.Errorf("GET %s with the token: %d", path, code)
		}
	}
	if code, _ := adminRequest(t, server, "POST", "/sessions/7/kick", http.Header{"Sec-Fetch-Site": {"cross-site"},
		"Authorization": {"Bearer " + adminToken}}); code != http.StatusForbidden {
		t.Errorf("a cross-site kick with the token: %d, want 403", code)
	}
}

// What the least trusted writer of the API can send is refused with a clear error, and
// changes nothing.
func TestBansAPIRefusesHostileInput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bans.yaml")
	src := &fakeSessions{}
	server, store, logs := consoleServer(t, path, src)
	for _, c := range []struct {
		body string
		code int
		want string
	}{
		{`{"kind":"name","value":"Ste\u001bve","reason":"x"}`, 400, "control or space"},
		{`{"kind":"name","value":"` + strings.Repeat("a", 10<<10) + `"}`, 400, "at most 16 characters"},
		{`{"kind":"uuid","value":"not-a-uuid"}`, 400, "32 hex digits"},
		{`{"kind":"address","value":"0.0.0.0/0","confirm_wide":true}`, 400, "ban everyone"},
		{`{"kind":"address","value":"10.0.0.0/8"}`, 400, "confirm_wide"},
		{`{"kind":"address","value":"10.0.0.1/8"}`, 400, "without host bits"},
		{`{"kind":"name","value":"Steve","expires":"yesterday"}`, 400, "RFC 3339"},
		{`{"kind":"name","value":"Steve","expires":"2001-01-01T00:00:00Z"}`, 400, "passed"},
		{`{"kind":"name","value":"Steve","reason":"` + strings.Repeat("r", 300) + `"}`, 400, "at most 200 bytes"},
		{`{"kind":"name","value":"Steve","admin":true}`, 400, "unknown field"},
		{`{"kind":"name","value":"Steve"}{"kind":"name","value":"Alex"}`, 400, "more than one JSON value"},
		{`{"kind":"name","value":"` + strings.Repeat("a", 20<<10) + `"}`, 413, "too large"},
		{`[1,2]`, 400, "request body"},
		{``, 400, "request body"},
		{`{"kind":"ip","value":"1.2.3.4"}`, 400, "want name, uuid or address"},
	} {
		code, body := call(t, server, "POST", "/bans", c.body)
		if code != c.code || !strings.Contains(body, c.want) || !strings.HasPrefix(body, `{"error":`) {
			t.Errorf("POST /bans %.60s: %d %.200s; want %d and %q", c.body, code, body, c.code, c.want)
		}
	}
	if !strings.Contains(logs.String(), `"value":"Ste?ve"`) || !strings.Contains(logs.String(), `"value":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..."`) {
		t.Errorf("refused values are not logged shortened, without control characters:\n%.2000s", logs.String())
	}
	if got := store.list.All(time.Now()); len(got) != 0 || len(src.banned) != 0 {
		t.Errorf("refused requests changed the list: %+v, kicked for %+v", got, src.banned)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("refused requests wrote the file: %v", err)
	}
	for _, p := range []string{"/bans/name/Nobody", "/bans/uuid/zzz", "/bans/ip/1.2.3.4"} {
		if code, _ := call(t, server, "DELETE", p, ""); code != 404 && code != 400 {
			t.Errorf("DELETE %s: %d", p, code)
		}
	}
}

// A ban added through the API is listed, kicks the players it matches, lands in the file (in
// its format), goes out again by DELETE, and is logged with who asked.
func TestBansAPIWritesTheFile(t *testing.T) {
	for _, name := range []string{"bans.yaml", "bans.json"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			src := &fakeSessions{}
			server, _, logs := consoleServer(t, path, src)
			code, body := call(t, server, "POST", "/bans", `{"kind":"name","value":"Steve","reason":"x-ray","expires":"7d"}`)
			var added banAdded
			json.Unmarshal([]byte(body), &added)
			if code != 201 || added.Ban.Value != "steve" || len(added.Kicked) != 1 || added.Ban.Expires.IsZero() {
				t.Fatalf("POST /bans: %d %s", code, body)
			}
			code, body = call(t, server, "POST", "/bans", `{"kind":"address","value":"203.0.113.0/24","reason":"a bot farm"}`)
			if code != 201 {
				t.Fatalf("POST /bans (address): %d %s", code, body)
			}
			list, _, err := readBansFile(path, time.Now())
			if err != nil || len(list) != 2 || list[0].Value != "steve" || list[1].Value != "203.0.113.0/24" {
				t.Fatalf("the file holds %+v, %v", list, err)
			}
			if _, body := call(t, server, "GET", "/bans", ""); !strings.Contains(body, `"value":"steve"`) || !strings.Contains(body, path) {
				t.Errorf("GET /bans: %s", body)
			}
			if code, body := call(t, server, "DELETE", "/bans/address/203.0.113.0/24", ""); code != 200 || !strings.Contains(body, "a bot farm") {
				t.Errorf("DELETE a network: %d %s", code, body)
			}
			call(t, server, "POST", "/bans", `{"kind":"address","value":"203.0.113.0/24"}`)
			if code, body := call(t, server, "DELETE", "/bans/address/203.0.113.0%2F24", ""); code != 200 {
				t.Errorf("DELETE a network with its slash escaped (encodeURIComponent): %d %s", code, body)
			}
			if code, _ := call(t, server, "DELETE", "/bans/name/STEVE", ""); code != 200 {
				t.Errorf("DELETE by another case: %d", code)
			}
			if code, _ := call(t, server, "DELETE", "/bans/name/steve", ""); code != 404 {
				t.Errorf("DELETE again: %d, want 404", code)
			}
			if list, _, _ := readBansFile(path, time.Now()); len(list) != 0 {
				t.Errorf("after the deletes the file holds %+v", list)
			}
			if n := strings.Count(logs.String(), `"token":true`); n != 7 || !strings.Contains(logs.String(), `"from":"127.0.0.1:`) {
				t.Errorf("want 7 action lines saying who asked (the refused one too), log:\n%s", logs.String())
			}
		})
	}
}

// An owner's edit of the file that was not reloaded yet is never overwritten: the API's change
// is refused until the reload, which takes the edit in.
func TestBansAPIDoesNotOverwriteAnEditNotReloaded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bans.yaml")
	os.WriteFile(path, []byte("bans:\n  - kind: name\n    value: Alex\n"), 0o600)
	server, store, _ := consoleServer(t, path, &fakeSessions{})
	edit := "bans:\n  - kind: name\n    value: Alex\n  - kind: name\n    value: Notch\n"
	os.WriteFile(path, []byte(edit), 0o600)
	if code, body := call(t, server, "POST", "/bans", `{"kind":"name","value":"Steve"}`); code != 409 || !strings.Contains(body, "reload") {
		t.Errorf("a change over an edit not reloaded: %d %s", code, body)
	}
	if got, _ := os.ReadFile(path); string(got) != edit {
		t.Fatalf("the owner's edit was overwritten: %q", got)
	}
	store.reload(path)
	if code, _ := call(t, server, "POST", "/bans", `{"kind":"name","value":"Steve"}`); code != 201 {
		t.Errorf("after the reload: %d", code)
	}
	if got := store.list.Counts(time.Now()); got[0] != 3 {
		t.Errorf("names in force %d, want Alex, Notch and Steve", got[0])
	}
}

// A bans file that does not load keeps the bans in force on reload, and says why, with the
// entry's index; at start it is an error.
func TestMalformedBansFileKeepsTheList(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bans.yaml")
	os.WriteFile(path, []byte("bans:\n  - kind: name\n    value: Alex\n    reason: griefing\n"), 0o600)
	logs := &testutil.SyncBuffer{}
	store, err := openBans(path, zerolog.New(logs))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		"bans:\n  - kind: name\n    value: Alex\n  - kind: address\n    value: 0.0.0.0/0\n",
		"bans:\n  - kind: name\n    value: [Alex\n",
		"bans:\n  - kind: name\n    value: Alex\n    colour: red\n",
		"bans: 7\n",
	} {
		os.WriteFile(path, []byte(bad), 0o600)
		store.reload(path)
		if b, ok := store.list.Player("alex", "", time.Now()); !ok || b.Reason != "griefing" {
			t.Errorf("after a reload of %q the old list is gone", bad)
		}
		if _, err := openBans(path, zerolog.Nop()); err == nil {
			t.Errorf("openBans took %q", bad)
		}
	}
	if !strings.Contains(logs.String(), "bans[1]: value") || !strings.Contains(logs.String(), "bans not reloaded") {
		t.Errorf("the log does not say which entry and why:\n%s", logs.String())
	}
}

// Bans that have ended by the time the file is read are left out, not refused: the file
// keeps what the API wrote until the next change.
func TestBansFileLeavesEndedBansOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bans.json")
	os.WriteFile(path, []byte(`{"bans":[{"kind":"name","value":"Alex","expires":"2001-01-01T00:00:00Z"},{"kind":"uuid","value":"069a79f444e94726a5befca90e38aaf5"}]}`), 0o600)
	list, _, err := readBansFile(path, time.Now())
	if err != nil || len(list) != 1 || list[0].Kind != bans.KindUUID {
		t.Errorf("read %+v, %v", list, err)
	}
}

func TestSessionsAPI(t *testing.T) {
	src := &fakeSessions{}
	server, store, logs := consoleServer(t, "", src)
	if code, body := call(t, server, "GET", "/sessions", ""); code != 200 || !strings.Contains(body, `"player":"Steve"`) || !strings.Contains(body, `"id":"7"`) {
		t.Errorf("GET /sessions: %d %s", code, body)
	}
	for _, c := range []struct {
		path, body string
		code       int
	}{
		{"/sessions/7/kick", `{"message":"Bye"}`, 200},
		{"/sessions/8/kick", `{"message":"Bye"}`, 404},
		{"/sessions/7/kick", `{"message":{"text":"Bye","color":"red"}}`, 400},
		{"/sessions/7/kick", `{"message":"a\u0007b"}`, 400},
		{"/sessions/7/kick", `{"msg":"Bye"}`, 400},
		{"/sessions/7/transfer", `{"host":"lobby.example.net","port":25565}`, 200},
		{"/sessions/7/transfer", `{"host":"lobby.example.net","port":70000}`, 400},
		{"/sessions/7/transfer", `{"host":"lobby.example.net","port":-1}`, 400},
		{"/sessions/999/transfer", `{"host":"lobby.example.net","port":25565}`, 404},
		{"/sessions/7/ban", `{"reason":"x","expires":"soon"}`, 400},
		{"/sessions/8/ban", `{"reason":"x"}`, 404},
	} {
		if code, body := call(t, server, "POST", c.path, c.body); code != c.code {
			t.Errorf("POST %s %s: %d %s, want %d", c.path, c.body, code, body, c.code)
		}
	}
	if len(src.kicked) != 1 || src.movedTo != "lobby.example.net" {
		t.Errorf("kicked %q, moved to %q", src.kicked, src.movedTo)
	}
	if n := strings.Count(logs.String(), `"action":"kick"`); n != 5 {
		t.Errorf("%d kick lines, want one per request, refused ones too", n)
	}
	// A passed-through login's UUID is only the client's word: its player is banned by name;
	// one the session server vouched for, by UUID.
	code, body := call(t, server, "POST", "/sessions/7/ban", `{"reason":"x-ray","expires":"1h"}`)
	if code != 200 || !strings.Contains(body, `"kind":"name","value":"steve"`) || !strings.Contains(body, `"kicked":[{"id":"7"`) {
		t.Errorf("POST /sessions/7/ban: %d %s", code, body)
	}
	src.online = true
	if code, body := call(t, server, "POST", "/sessions/7/ban", `{"reason":"x-ray"}`); code != 200 || !strings.Contains(body, `"kind":"uuid"`) {
		t.Errorf("POST /sessions/7/ban of an online player: %d %s", code, body)
	}
	if got := store.list.Counts(time.Now()); got != [3]int{1, 1, 0} {
		t.Errorf("bans by kind %v", got)
	}
}

// What the API writes to a YAML file reads back as the same bans, whatever the reason holds.
func TestBansFileYAMLRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bans.yaml")
	var list []bans.Ban
	for _, e := range []bans.Entry{
		{Kind: bans.KindName, Value: "Steve", Reason: `x-ray: "again" # not a comment` + "\nline two \\ é ✓ <b>&", Expires: "2099-01-01T00:00:00Z", Added: "2026-12-04T00:00:00Z"},
		{Kind: bans.KindAddress, Value: "10.0.0.0/8", ConfirmWide: true},
		{Kind: bans.KindUUID, Value: "069a79f444e94726a5befca90e38aaf5", Reason: "yes"},
	} {
		list = append(list, mustEntryBan(t, e))
	}
	text, err := encodeBans(path, list)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, text, 0o600)
	got, _, err := readBansFile(path, time.Now())
	if err != nil || len(got) != len(list) {
		t.Fatalf("read back %+v, %v from:\n%s", got, err, text)
	}
	for i := range list {
		if got[i] != list[i] {
			t.Errorf("ban %d read back as %+v, want %+v", i, got[i], list[i])
		}
	}
	if text, _ := encodeBans(path, nil); !strings.HasSuffix(string(text), "bans: []\n") {
		t.Errorf("an empty list is written as %q", text)
	}
}

func mustEntryBan(t *testing.T, e bans.Entry) bans.Ban {
	t.Helper()
	b, err := e.Ban(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return b
}
