package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// DefaultSessionServer is Mojang's session server.
const DefaultSessionServer = "https://sessionserver.mojang.com"

// SessionServer asks a session server whether a player has joined (the client's join call
// before it answered the Encryption Request).
type SessionServer struct {
	BaseURL string        // without the trailing /session/...; "" is DefaultSessionServer
	Timeout time.Duration // for the whole request; 0: 5 s
	Client  *http.Client  // nil: http.DefaultClient
}

// ErrNotAuthenticated: the session server does not know of this join (a cracked client, a
// proxy in between, a name that is not the account's).
var ErrNotAuthenticated = errors.New("the session server did not confirm the login")

// SessionServerError is a session server that could not be asked: down, slow or answering
// nonsense. Players are told the login servers are unreachable, not that they are not who they
// say.
type SessionServerError struct {
	Err        error
	Status     int           // the HTTP status when it answered one, else 0
	RetryAfter time.Duration // its Retry-After header (429, 503), 0 when absent
}

func (e *SessionServerError) Error() string { return "session server: " + e.Err.Error() }
func (e *SessionServerError) Unwrap() error { return e.Err }

// Timeout says whether the session server gave no answer within the request's timeout.
func (e *SessionServerError) Timeout() bool {
	var ne net.Error
	return errors.Is(e.Err, context.DeadlineExceeded) || (errors.As(e.Err, &ne) && ne.Timeout())
}

// maxProfileBytes bounds the session server's answer (a profile with a skin is about 1 KB).
const maxProfileBytes = 64 << 10

// HasJoined asks whether name joined with serverHash; ip, if not "", is the player's address
// (the session server then also checks the client asked from it).
func (s SessionServer) HasJoined(ctx context.Context, name, serverHash, ip string) (Profile, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout())
	defer cancel()
	q := url.Values{"username": {name}, "serverId": {serverHash}}
	if ip != "" {
		q.Set("ip", ip)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base()+"/session/minecraft/hasJoined?"+q.Encode(), nil)
	if err != nil {
		return Profile{}, &SessionServerError{Err: err}
	}
	resp, err := s.client().Do(req)
	if err != nil {
		return Profile{}, &SessionServerError{Err: err}
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNoContent, http.StatusForbidden:
		return Profile{}, ErrNotAuthenticated
	default:
		return Profile{}, &SessionServerError{Err: fmt.Errorf("HTTP %s", resp.Status), Status: resp.StatusCode,
			RetryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now())}
	}
	return readProfile(resp.Body)
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date; 0 when absent or neither.
func retryAfter(header string, now time.Time) time.Duration {
	if secs, err := strconv.Atoi(header); err == nil {
		return max(time.Duration(secs)*time.Second, 0)
	}
	if at, err := http.ParseTime(header); err == nil {
		return max(at.Sub(now), 0)
	}
	return 0
}

func readProfile(body io.Reader) (Profile, error) {
	var p Profile
	data, err := io.ReadAll(io.LimitReader(body, maxProfileBytes+1))
	switch {
	case err != nil:
		return Profile{}, &SessionServerError{Err: err}
	case len(data) == 0:
		return Profile{}, ErrNotAuthenticated // 200 with no body: what Mojang sends for no
	case len(data) > maxProfileBytes:
		return Profile{}, &SessionServerError{Err: errors.New("profile larger than 64 KiB")}
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return Profile{}, &SessionServerError{Err: fmt.Errorf("profile: %w", err)}
	}
	if p.ID, err = parseUUID(p.RawID); err != nil {
		return Profile{}, &SessionServerError{Err: err}
	}
	return p, nil
}

func (s SessionServer) base() string {
	if s.BaseURL == "" {
		return DefaultSessionServer
	}
	return s.BaseURL
}

func (s SessionServer) timeout() time.Duration {
	if s.Timeout <= 0 {
		return 5 * time.Second
	}
	return s.Timeout
}

func (s SessionServer) client() *http.Client {
	if s.Client == nil {
		return http.DefaultClient
	}
	return s.Client
}
