package auth

import "errors"

// LoginError is a login the proxy refused: the player was told Message in a login disconnect;
// Outcome labels it in logs and metrics.
type LoginError struct {
	Outcome string // "bad_packet", "unknown_version", "bad_verify_token", "bad_secret", ...
	Message string // what the player reads
	Err     error
}

func (e *LoginError) Error() string { return "login refused (" + e.Outcome + "): " + e.Err.Error() }
func (e *LoginError) Unwrap() error { return e.Err }

// Login outcomes, for metrics: every series exists from the start.
const (
	OutcomeOK             = "ok"
	OutcomeBadPacket      = "bad_packet"
	OutcomeUnknownVersion = "unknown_version"
	OutcomeBadVerifyToken = "bad_verify_token"
	OutcomeBadSecret      = "bad_secret"
	OutcomeNotAuthed      = "not_authenticated"
	OutcomeSessionServer  = "session_server_unreachable"
	OutcomeNameMismatch   = "name_mismatch"
	OutcomeForwarding     = "forwarding_failed"
	OutcomeExpiredKey     = "expired_chat_key"
	OutcomeMeterRefused   = "login_meter_refused"
)

// Outcomes lists every login outcome.
var Outcomes = []string{OutcomeOK, OutcomeBadPacket, OutcomeUnknownVersion, OutcomeBadVerifyToken, OutcomeBadSecret,
	OutcomeNotAuthed, OutcomeSessionServer, OutcomeNameMismatch, OutcomeForwarding, OutcomeExpiredKey, OutcomeMeterRefused}

// Reasons a LoginError carries.
var (
	ErrVerifyToken   = errors.New("the verify token does not match")
	ErrSecretSize    = errors.New("the encrypted shared secret is not the size of the login key")
	ErrNameMismatch  = errors.New("the session server's name is not the one in Login Start")
	ErrNoPlayerKey   = errors.New("a signed verify token without a key in Login Start")
	ErrExpiredKey    = errors.New("the chat key in Login Start has expired")
	ErrNoVelocityAsk = errors.New("the backend logged the player in without asking for Velocity forwarding (is velocity forwarding on there?)")
	ErrVelocityOld   = errors.New("Velocity forwarding needs 1.13 or newer")
)
