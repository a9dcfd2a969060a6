package config

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
)

// RoutesAPI is admin.routes_api: routes added, changed and removed over HTTP on the admin
// endpoint, beside the file's (cmd/internal/routebook). Off by default; on, it needs a
// bearer token and, unless AllowRemote, an admin.listen on loopback.
type RoutesAPI struct {
	Enabled bool `yaml:"enabled"`
	// TokenFile is admin.token_file's older name (Admin.TokenPath): the bearer token every
	// request must carry (ReadAPIToken), read again at each request.
	TokenFile string `yaml:"token_file"`
	// StateFile keeps the API's routes across restarts: written whole (a new file renamed over
	// the old) after each change and read at start. "": they last until the process ends.
	StateFile string `yaml:"state_file"`
	// AllowRemote serves the API on an admin.listen that is not loopback, where the token
	// and the changes cross the network in plain HTTP.
	AllowRemote bool `yaml:"allow_remote"`
	// RouteTrust: the hosts the API's routes may take from the file's, and the commands,
	// webhooks, containers and files they may name (routetrust.go).
	RouteTrust `yaml:",inline"`
}

// MinAPITokenLength is the shortest token the routes API takes, in bytes.
const MinAPITokenLength = 16

// ReadAPIToken reads the routes API's bearer token from path: the file's content without the
// white space around it, at least MinAPITokenLength bytes.
func ReadAPIToken(path string) (string, error) {
	return readSecretFile(path, "token", MinAPITokenLength, strings.TrimSpace)
}

// CarriesToken says whether r carries "Authorization: Bearer token"; the comparison takes as
// long whatever the two hold (both are hashed first, so not even their lengths show).
func CarriesToken(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	wantSum, gotSum := sha256.Sum256([]byte(token)), sha256.Sum256([]byte(got))
	return ok && subtle.ConstantTimeCompare(wantSum[:], gotSum[:]) == 1
}

// readSecretFile reads a secret (what names it in the error) from path, trim applied, and
// refuses one shorter than minLen bytes.
func readSecretFile(path, what string, minLen int, trim func(string) string) (string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", pathErrorReason(err)
	}
	secret := trim(string(raw))
	if len(secret) < minLen {
		return "", fmt.Errorf("%s holds %d bytes of %s; want at least %d, such as the output of: head -c 32 /dev/urandom | base64",
			path, len(secret), what, minLen)
	}
	return secret, nil
}

// validateRoutesAPI checks admin.routes_api when it is on: an admin address to serve it on, on
// loopback unless allow_remote says otherwise, a token (Admin.TokenPath), and a directory for
// the state file.
func (a Admin) validateRoutesAPI() []error {
	api := a.RoutesAPI
	if !api.Enabled {
		return nil
	}
	errs := api.RouteTrust.validate("admin.routes_api")
	switch {
	case a.Listen == "":
		errs = append(errs, invalid("admin.routes_api.enabled", "the API is served on the admin endpoint: set admin.listen, such as 127.0.0.1:9100"))
	case !api.AllowRemote && !isLoopback(a.Listen):
		errs = append(errs, invalid("admin.listen", "%q is not a loopback address, and the routes API takes changes in plain HTTP: "+
			"listen on 127.0.0.1 or [::1], or set admin.routes_api.allow_remote: true", a.Listen))
	}
	if a.TokenPath() == "" { // validateToken reads it
		errs = append(errs, invalid("admin.token_file", "the routes API needs the admin token: a file with it, such as one made with: head -c 32 /dev/urandom | base64"))
	}
	if api.StateFile != "" {
		errs = append(errs, stateDir("admin.routes_api.state_file", api.StateFile))
	}
	return errs
}

// isLoopback says whether a listen address (HOST:PORT) is on loopback only: localhost, or an
// address in 127.0.0.0/8 or ::1. An empty host listens everywhere.
func isLoopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.IsLoopback()
}

// stateDir checks that the directory a state file is written in exists: the file itself may
// not yet.
func stateDir(key, path string) error {
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	switch {
	case err != nil:
		return invalid(key, "directory %s: %v", dir, pathErrorReason(err))
	case !info.IsDir():
		return invalid(key, "%s is not a directory", dir)
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		return invalid(key, "%s is a directory, not a file", path)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return invalid(key, "%s: %v", path, pathErrorReason(err))
	}
	return nil
}
