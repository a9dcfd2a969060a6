package access

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Version is the token format this package writes and reads.
const Version = 1

// MaxTokenLen bounds a token's text, checked before anything is decoded: a composite token is
// about 4.6 KB.
const MaxTokenLen = 6144

// MaxScopes bounds the routes or hosts one token opens.
const MaxScopes = 16

// Claims are what a token says.
type Claims struct {
	Algorithm Algorithm // filled in from the key when issuing
	KeyID     string    // idem
	Subject   string    // the player or group, 1-255 bytes; goes on the session's log line
	Audience  string    // the server the token is for, 0-255 bytes
	IssuedAt  time.Time
	NotBefore time.Time
	Expires   time.Time
	// Scopes are route names or hosts the token opens; none means every route.
	Scopes []string
}

var b64 = base64.RawURLEncoding.Strict()

// Issue signs c with key and returns the token's text. The algorithm and key id are the key's.
func Issue(key *PrivateKey, c Claims) (string, error) {
	c.Algorithm, c.KeyID = key.Algorithm, key.ID
	body, err := c.marshal()
	if err != nil {
		return "", err
	}
	sig, err := key.sign(body)
	if err != nil {
		return "", err
	}
	token := b64.EncodeToString(body) + "." + b64.EncodeToString(sig)
	if len(token) > MaxTokenLen {
		// Many long scopes under a post-quantum key: a verifier would refuse it.
		return "", deny(ReasonOversized, fmt.Sprintf("the token would be %d characters, over %d: use fewer or shorter scopes", len(token), MaxTokenLen))
	}
	return token, nil
}

// marshal writes the body (see the package doc), refusing claims it could not read back.
func (c Claims) marshal() ([]byte, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	b := []byte{Version, byte(c.Algorithm)}
	b = appendString(b, c.KeyID)
	for _, t := range []time.Time{c.IssuedAt, c.NotBefore, c.Expires} {
		b = binary.BigEndian.AppendUint64(b, uint64(t.Unix()))
	}
	b = appendString(b, c.Audience)
	b = appendString(b, c.Subject)
	b = append(b, byte(len(c.Scopes)))
	for _, s := range c.Scopes {
		b = appendString(b, s)
	}
	return b, nil
}

func (c Claims) check() error {
	switch {
	case !c.Algorithm.known():
		return deny(ReasonAlgorithm, c.Algorithm.String())
	case checkKeyID(c.KeyID) != nil:
		return deny(ReasonMalformed, checkKeyID(c.KeyID).Error())
	case !field(c.Subject, 1):
		return deny(ReasonMalformed, "subject: want 1-255 printable characters")
	case !field(c.Audience, 0):
		return deny(ReasonMalformed, "audience: want 0-255 printable characters")
	case len(c.Scopes) > MaxScopes:
		return deny(ReasonMalformed, "more than 16 scopes")
	case !c.Expires.After(c.NotBefore):
		return deny(ReasonMalformed, "expires before it is valid")
	}
	for _, s := range c.Scopes {
		if !field(s, 1) {
			return deny(ReasonMalformed, "scope: want 1-255 printable characters")
		}
	}
	return nil
}

// field: a str of the body, minLen-255 bytes of printable text.
func field(s string, minLen int) bool { return len(s) >= minLen && len(s) <= 255 && printable(s) }

func appendString(b []byte, s string) []byte { return append(append(b, byte(len(s))), s...) }

// splitToken decodes a token's two parts, checking its length first.
func splitToken(token string) (body, sig []byte, err error) {
	if len(token) > MaxTokenLen {
		return nil, nil, deny(ReasonOversized, "")
	}
	bodyText, sigText, ok := strings.Cut(token, ".")
	if !ok {
		return nil, nil, deny(ReasonMalformed, "no dot")
	}
	if body, err = b64.DecodeString(bodyText); err != nil {
		return nil, nil, deny(ReasonMalformed, "body: "+err.Error())
	}
	if sig, err = b64.DecodeString(sigText); err != nil {
		return nil, nil, deny(ReasonMalformed, "signature: "+err.Error())
	}
	return body, sig, nil
}

// parseBody reads a body. Nothing in it is trusted until its signature is verified.
func parseBody(body []byte) (Claims, error) {
	r := reader{b: body}
	version, alg := r.byte(), Algorithm(r.byte())
	if r.bad {
		return Claims{}, deny(ReasonMalformed, "short body")
	}
	if version != Version {
		return Claims{}, deny(ReasonVersion, "version "+strconv.Itoa(int(version)))
	}
	if !alg.known() {
		return Claims{}, deny(ReasonAlgorithm, alg.String())
	}
	c := Claims{Algorithm: alg, KeyID: r.string()}
	c.IssuedAt, c.NotBefore, c.Expires = r.time(), r.time(), r.time()
	c.Audience, c.Subject = r.string(), r.string()
	n := int(r.byte())
	for i := 0; i < n && !r.bad; i++ {
		c.Scopes = append(c.Scopes, r.string())
	}
	if r.bad || len(r.b) != 0 {
		return Claims{}, deny(ReasonMalformed, "body does not parse")
	}
	if err := c.check(); err != nil {
		return Claims{}, err
	}
	return c, nil
}

// reader takes fields off a body; bad is set at the first short read, and later reads return
// zero values.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) take(n int) []byte {
	if r.bad || len(r.b) < n {
		r.bad = true
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) byte() byte {
	if p := r.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (r *reader) string() string { return string(r.take(int(r.byte()))) }

func (r *reader) time() time.Time {
	if p := r.take(8); p != nil {
		return time.Unix(int64(binary.BigEndian.Uint64(p)), 0)
	}
	return time.Time{}
}

// Opens reports whether the token opens the route named label, reached for host: a token
// without scopes opens every route, one with scopes those whose name or host it lists.
func (c Claims) Opens(label, host string) bool {
	if len(c.Scopes) == 0 {
		return true
	}
	host = strings.TrimSuffix(host, ".")
	for _, s := range c.Scopes {
		if s == label || strings.EqualFold(s, host) {
			return true
		}
	}
	return false
}
