package target

import (
	"fmt"
	"os"
	"strconv"
)

// OnlineLogin makes a managed moonbridge run the players' logins itself (its route's
// auth: online) against a fake session server.
type OnlineLogin struct {
	SessionServer string // base URL, login.session_server
	Forwarding    string // none or bungeecord
}

// onlineConfig writes the moonbridge config of one catch-all route to backend with auth online;
// the caller passes it as --config (instead of --backend, which would replace the route) and
// removes it.
func onlineConfig(backend string, login OnlineLogin) (string, error) {
	f, err := os.CreateTemp("", "mbbench-online-*.yml")
	if err != nil {
		return "", err
	}
	_, err = fmt.Fprintf(f, `routes:
  - hosts: ["*"]
    backends: [%s]
    auth: online
    forwarding: %s
login:
  session_server: %s
`, strconv.Quote(backend), strconv.Quote(login.Forwarding), strconv.Quote(login.SessionServer))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}
