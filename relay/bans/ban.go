// Package bans is the proxy's ban list: players refused by name, by UUID or by client address
// (one address or a CIDR network), each with a reason and an optional end. The relay asks it
// before any backend is dialled; cmd/moonbridge fills it from the bans file and the admin API.
//
// A value is kept in one canonical form, which is also the key it is found and removed by:
//
//	name     1 to 16 characters, no control or space characters; matched without regard to
//	         case (Minecraft's names are), kept lower-case
//	uuid     32 hex digits, with or without the dashes of 8-4-4-4-12; kept lower-case with dashes
//	address  an IP address or a CIDR network without host bits set; an IPv4 address written in
//	         IPv6 (::ffff:a.b.c.d) is the IPv4 one. /0 is refused (it bans everyone), and a
//	         network wider than an IPv4 /16 or an IPv6 /32 only with ConfirmWide
package bans

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay/clientaddr"
)

// Kind is what a ban matches: a player's name, a player's UUID, or the client's address.
type Kind string

const (
	KindName    Kind = "name"
	KindUUID    Kind = "uuid"
	KindAddress Kind = "address"
)

// Kinds are the kinds of ban, in the order lists and metrics show them.
var Kinds = []Kind{KindName, KindUUID, KindAddress}

// Bounds of what one ban holds, so that a full list has a bounded size (MaxBans).
const (
	MaxReasonBytes = 200
	// MaxBans is how many bans the list holds at most (each at most a few hundred bytes).
	MaxBans = 200_000
)

// Networks wider than these need Entry.ConfirmWide: a typo (/1 for /31) would ban a country.
const (
	minIPv4Bits = 16
	minIPv6Bits = 32
)

// Ban is one entry of the list, its value in canonical form.
type Ban struct {
	Kind    Kind      `json:"kind"`
	Value   string    `json:"value"`
	Reason  string    `json:"reason"`
	Expires time.Time `json:"expires,omitzero"` // zero: the ban does not end
	Added   time.Time `json:"added,omitzero"`   // zero: not known (a file's entry without it)
}

// Active says whether the ban holds at now.
func (b Ban) Active(now time.Time) bool { return b.Expires.IsZero() || now.Before(b.Expires) }

// Message is what a banned player reads in the login's Disconnect: the reason and the end.
func (b Ban) Message() string {
	reason := b.Reason
	if reason == "" {
		reason = "none given"
	}
	msg := "You are banned from this server.\nReason: " + reason
	if b.Expires.IsZero() {
		return msg + "\nThis ban does not end."
	}
	return msg + "\nUntil: " + b.Expires.UTC().Format("2006-01-02 15:04 MST")
}

// Matches says whether b bans a player of name and uuid ("" for not known) at addr.
func (b Ban) Matches(name, uuid string, addr netip.Addr) bool {
	switch b.Kind {
	case KindName:
		key, err := canonicalName(name)
		return err == nil && key == b.Value
	case KindUUID:
		u, err := ParseUUID(uuid)
		return err == nil && mc.UUIDString(u) == b.Value
	case KindAddress:
		p, err := netip.ParsePrefix(b.Value)
		return err == nil && p.Contains(addr.Unmap())
	}
	return false
}

// wide says whether the ban is an address network that needs Entry.ConfirmWide.
func (b Ban) wide() bool {
	if b.Kind != KindAddress {
		return false
	}
	p, err := netip.ParsePrefix(b.Value)
	return err == nil && isWide(p)
}

func isWide(p netip.Prefix) bool {
	if p.Addr().Is4() {
		return p.Bits() < minIPv4Bits
	}
	return p.Bits() < minIPv6Bits
}

// Entry is a ban as the admin API and the bans file write it. Expires is a time in RFC 3339
// (the API turns a duration into one first: ParseExpires); "" for none.
type Entry struct {
	Kind        Kind   `json:"kind" yaml:"kind"`
	Value       string `json:"value" yaml:"value"`
	Reason      string `json:"reason,omitempty" yaml:"reason,omitempty"`
	Expires     string `json:"expires,omitempty" yaml:"expires,omitempty"`
	Added       string `json:"added,omitempty" yaml:"added,omitempty"`
	ConfirmWide bool   `json:"confirm_wide,omitempty" yaml:"confirm_wide,omitempty"`
}

// Ban checks e and returns its ban, the value in canonical form; a ban that has ended by now
// is refused (ErrEnded), so that a typo in the year does not look done.
func (e Entry) Ban(now time.Time) (Ban, error) {
	value, err := Canonical(e.Kind, e.Value)
	if err != nil {
		return Ban{}, err
	}
	b := Ban{Kind: e.Kind, Value: value, Reason: e.Reason}
	if err := checkReason(e.Reason); err != nil {
		return Ban{}, err
	}
	if b.wide() && !e.ConfirmWide {
		return Ban{}, &InputError{Field: "value", Value: e.Value, Reason: fmt.Sprintf(
			"a network wider than an IPv4 /%d or an IPv6 /%d bans many players at once; set confirm_wide: true if that is meant",
			minIPv4Bits, minIPv6Bits)}
	}
	if b.Expires, err = parseTime("expires", e.Expires); err != nil {
		return Ban{}, err
	}
	if !b.Active(now) {
		return Ban{}, &InputError{Field: "expires", Value: e.Expires, Reason: ErrEnded.Error(), Err: ErrEnded}
	}
	if b.Added, err = parseTime("added", e.Added); err != nil {
		return Ban{}, err
	}
	return b, nil
}

// Entry is b as the file and the API write it.
func (b Ban) Entry() Entry {
	e := Entry{Kind: b.Kind, Value: b.Value, Reason: b.Reason, ConfirmWide: b.wide()}
	if !b.Expires.IsZero() {
		e.Expires = b.Expires.UTC().Format(time.RFC3339)
	}
	if !b.Added.IsZero() {
		e.Added = b.Added.UTC().Format(time.RFC3339)
	}
	return e
}

// ErrEnded: a ban whose end is not after now.
var ErrEnded = errors.New("this end has passed already")

// InputError is a ban that cannot be taken as written: which field, its value (shortened),
// and why; Err, when set, is the error it stands for (ErrEnded).
type InputError struct {
	Field, Value, Reason string
	Err                  error
}

func (e *InputError) Error() string {
	return fmt.Sprintf("%s %q: %s", e.Field, shorten(e.Value), e.Reason)
}

func (e *InputError) Unwrap() error { return e.Err }

// shorten keeps an error about a huge value readable: its first 40 bytes.
func shorten(s string) string {
	if len(s) <= 40 {
		return s
	}
	return s[:40] + "..."
}

// Canonical checks value as a ban of kind and returns its canonical form (see the package doc).
func Canonical(kind Kind, value string) (string, error) {
	switch kind {
	case KindName:
		return canonicalName(value)
	case KindUUID:
		u, err := ParseUUID(value)
		if err != nil {
			return "", err
		}
		return mc.UUIDString(u), nil
	case KindAddress:
		p, err := parseAddress(value)
		if err != nil {
			return "", err
		}
		return p.String(), nil
	}
	return "", &InputError{Field: "kind", Value: string(kind), Reason: "want name, uuid or address"}
}

func canonicalName(value string) (string, error) {
	bad := func(reason string) (string, error) {
		return "", &InputError{Field: "value", Value: value, Reason: reason}
	}
	switch {
	case value == "":
		return bad("a name is 1 to 16 characters")
	case len(value) > mc.MaxPlayerNameBytes || !utf8.ValidString(value) || utf8.RuneCountInString(value) > 16:
		return bad("a name is at most 16 characters of UTF-8")
	case strings.IndexFunc(value, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) >= 0:
		return bad("a name has no control or space characters")
	}
	return strings.ToLower(value), nil
}

// ParseUUID reads a UUID: 32 hex digits, with or without the dashes of 8-4-4-4-12.
func ParseUUID(s string) ([16]byte, error) {
	var u [16]byte
	hexDigits := s
	if len(s) == 36 {
		if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
			return u, &InputError{Field: "value", Value: s, Reason: "a UUID is 32 hex digits, dashed as 8-4-4-4-12 or not at all"}
		}
		hexDigits = s[:8] + s[9:13] + s[14:18] + s[19:23] + s[24:]
	}
	if len(hexDigits) != 32 {
		return u, &InputError{Field: "value", Value: s, Reason: "a UUID is 32 hex digits, dashed as 8-4-4-4-12 or not at all"}
	}
	for i := range u {
		hi, lo := unhex(hexDigits[2*i]), unhex(hexDigits[2*i+1])
		if hi < 0 || lo < 0 {
			return u, &InputError{Field: "value", Value: s, Reason: "a UUID has hex digits only"}
		}
		u[i] = byte(hi<<4 | lo)
	}
	return u, nil
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return int(c - 'A' + 10)
	}
	return -1
}

// parseAddress reads an address or a network as clientaddr does (host bits set are refused),
// the IPv4 one for an IPv4-mapped IPv6 address, and refuses /0.
func parseAddress(s string) (netip.Prefix, error) {
	nets, err := clientaddr.ParseNets("ban", []string{s})
	if err != nil {
		return netip.Prefix{}, &InputError{Field: "value", Value: s, Reason: "want an IP address or a CIDR network without host bits set"}
	}
	p := nets[0]
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	if p.Bits() == 0 {
		return netip.Prefix{}, &InputError{Field: "value", Value: s, Reason: "a /0 network is every address: that would ban everyone"}
	}
	return p, nil
}

func checkReason(reason string) error { return CheckText("reason", reason, MaxReasonBytes) }

// CheckText bounds text a player's screen shows (a ban's reason, a kick's message) to max bytes
// of UTF-8 without control characters but line breaks; field names it in the error.
func CheckText(field, text string, max int) error {
	switch {
	case len(text) > max:
		return &InputError{Field: field, Value: text, Reason: fmt.Sprintf("at most %d bytes", max)}
	case !utf8.ValidString(text):
		return &InputError{Field: field, Value: text, Reason: "not UTF-8"}
	case strings.IndexFunc(text, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }) >= 0:
		return &InputError{Field: field, Value: text, Reason: "no control characters but line breaks"}
	}
	return nil
}

func parseTime(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, &InputError{Field: field, Value: s, Reason: "want a time in RFC 3339, such as 2026-12-31T18:00:00Z"}
	}
	return t, nil
}

// ParseExpires reads the API's expires: a time in RFC 3339, or a duration from now (Go's,
// such as 90m or 36h, or whole days such as 7d), and returns it in RFC 3339; "" stays "".
func ParseExpires(s string, now time.Time) (string, error) {
	if s == "" {
		return "", nil
	}
	if _, err := time.Parse(time.RFC3339, s); err == nil {
		return s, nil
	}
	d, err := parseDuration(s)
	if err != nil || d <= 0 {
		return "", &InputError{Field: "expires", Value: s,
			Reason: "want a time in RFC 3339 (2026-12-31T18:00:00Z) or a duration from now (90m, 36h, 7d)"}
	}
	return now.Add(d).UTC().Format(time.RFC3339), nil
}

// maxDays bounds a duration in days to what time.Duration holds (about 292 years).
const maxDays = 100 * 365

func parseDuration(s string) (time.Duration, error) {
	days, ok := strings.CutSuffix(s, "d")
	if !ok {
		return time.ParseDuration(s)
	}
	n := 0
	for _, c := range days {
		if c < '0' || c > '9' || n > maxDays {
			return 0, errors.New("not a number of days")
		}
		n = n*10 + int(c-'0')
	}
	if days == "" || n > maxDays {
		return 0, errors.New("not a number of days")
	}
	return time.Duration(n) * 24 * time.Hour, nil
}
