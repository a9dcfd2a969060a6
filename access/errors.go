package access

// Reason is why a token or a client was refused: a label of moonbridge_access_denied_total, so
// there are few of them and never one per subject.
type Reason string

const (
	ReasonMissing      Reason = "missing"       // no token where the route requires one
	ReasonOversized    Reason = "oversized"     // longer than MaxTokenLen
	ReasonMalformed    Reason = "malformed"     // not the token format
	ReasonVersion      Reason = "version"       // a version this build does not know
	ReasonAlgorithm    Reason = "algorithm"     // an algorithm this build does not know
	ReasonUnknownKey   Reason = "unknown_key"   // no verification key has the token's key id
	ReasonKeyAlgorithm Reason = "key_algorithm" // the token's algorithm is not its key's (alg confusion)
	ReasonSignature    Reason = "signature"     // the signature does not verify
	ReasonExpired      Reason = "expired"       // past its expiry
	ReasonNotYetValid  Reason = "not_yet_valid" // before its not-before time
	ReasonAudience     Reason = "audience"      // issued for another audience
	ReasonScope        Reason = "scope"         // valid, but it does not open this route
	ReasonAddress      Reason = "address"       // the client address is denied or not allowed
)

// Reasons are every Reason, for metrics that exist from the start at 0.
var Reasons = []Reason{
	ReasonMissing, ReasonOversized, ReasonMalformed, ReasonVersion, ReasonAlgorithm,
	ReasonUnknownKey, ReasonKeyAlgorithm, ReasonSignature, ReasonExpired, ReasonNotYetValid,
	ReasonAudience, ReasonScope, ReasonAddress,
}

// Error is a refusal: its Reason for metrics and callers, Detail for the log only.
type Error struct {
	Reason Reason
	Detail string
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return "access denied: " + string(e.Reason)
	}
	return "access denied: " + string(e.Reason) + ": " + e.Detail
}

func deny(reason Reason, detail string) *Error { return &Error{Reason: reason, Detail: detail} }
