package auth

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"

	"github.com/moonbridge/moonbridge/mc"
)

// Profile is a player's game profile: what the session server vouches for in online mode, or
// what an offline server would make up from the name.
type Profile struct {
	ID         UUID       `json:"-"`
	RawID      string     `json:"id"` // 32 hex digits, as the session server writes it
	Name       string     `json:"name"`
	Properties []Property `json:"properties"`
}

// Property is a signed profile property, such as the skin ("textures").
type Property struct {
	Name      string `json:"name"`
	Value     string `json:"value"`
	Signature string `json:"signature,omitempty"`
}

// UUID is a player's 128-bit id.
type UUID [16]byte

// Hex is the UUID as 32 hex digits without hyphens (BungeeCord's host field, the session server).
func (u UUID) Hex() string { return hex.EncodeToString(u[:]) }

// String is the UUID with hyphens, for log lines.
func (u UUID) String() string { return mc.UUIDString(u) }

// parseUUID reads 32 hex digits.
func parseUUID(s string) (UUID, error) {
	var u UUID
	if len(s) != 32 {
		return u, fmt.Errorf("profile id %q is not 32 hex digits", s)
	}
	if _, err := hex.Decode(u[:], []byte(s)); err != nil {
		return u, fmt.Errorf("profile id %q: %w", s, err)
	}
	return u, nil
}

// OfflineProfile is the profile an offline-mode server gives name: a version 3 UUID of
// "OfflinePlayer:"+name, no properties.
func OfflineProfile(name string) Profile {
	u := UUID(md5.Sum([]byte("OfflinePlayer:" + name)))
	u[6] = u[6]&0x0f | 0x30
	u[8] = u[8]&0x3f | 0x80
	return Profile{ID: u, RawID: u.Hex(), Name: name}
}
