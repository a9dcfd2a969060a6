package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"

	"github.com/moonbridge/moonbridge/internal/enum"
	"github.com/moonbridge/moonbridge/mc"
)

// Forwarding is how a verified player's address and profile reach the backend.
type Forwarding string

const (
	// ForwardNone sends the backend the player's Login Start only: an offline backend then makes
	// up the player's UUID from the name.
	ForwardNone Forwarding = "none"
	// ForwardBungeeCord puts address, UUID and properties into the handshake's host field
	// (Spigot and Paper's bungeecord: true).
	ForwardBungeeCord Forwarding = "bungeecord"
	// ForwardVelocity answers the backend's velocity:player_info login plugin request with the
	// data signed with the shared secret (Paper's velocity.enabled), 1.13+.
	ForwardVelocity Forwarding = "velocity"
)

// BungeeHost is the legacy host field: host\0address\0uuid\0properties-json.
func BungeeHost(host, address string, p Profile) string {
	props := p.Properties
	if props == nil {
		props = []Property{}
	}
	js, _ := json.Marshal(props) // strings only: cannot fail
	return host + "\x00" + address + "\x00" + p.ID.Hex() + "\x00" + string(js)
}

// VelocityChannel is the login plugin channel of Velocity's modern forwarding.
const VelocityChannel = "velocity:player_info"

// Velocity's forwarding versions (com.velocitypowered.proxy.config.VelocityConstants).
const (
	velocityDefault     = 1 // address, UUID, name, properties
	velocityWithKey     = 2 // + the 1.19 chat key
	velocityWithKeyV2   = 3 // + the 1.19.1 chat key and its holder's UUID
	velocityLazySession = 4 // 1.19.3+: chat sessions come later, nothing more here
	velocityMaxVersion  = velocityLazySession
)

// velocityVersion picks the version to answer a backend that asked for requested, as Velocity's
// findForwardingVersion does: keys only for the 1.19 and 1.19.1-2 clients that sent one.
func velocityVersion(requested int, protocol int32, key *mc.PlayerKey) int {
	requested = min(requested, velocityMaxVersion)
	switch {
	case requested <= velocityDefault:
		return velocityDefault
	case protocol >= 761: // 1.19.3
		if requested >= velocityLazySession {
			return velocityLazySession
		}
		return velocityDefault
	case key == nil:
		return velocityDefault
	case protocol == 759: // 1.19: the key of revision 1
		return velocityWithKey
	case requested >= velocityWithKeyV2: // 1.19.1-2: revision 2, which version 2 cannot carry
		return velocityWithKeyV2
	}
	return velocityDefault
}

// VelocityData is the answer to a velocity:player_info request: HMAC-SHA256 of the data under
// secret, then the data. requestData is the request's payload (one byte: the highest version the
// backend understands; empty means version 1).
func VelocityData(secret, requestData []byte, address string, p Profile, protocol int32, start mc.LoginStart) []byte {
	requested := velocityDefault
	if len(requestData) > 0 {
		requested = int(requestData[0])
	}
	version := velocityVersion(requested, protocol, start.Key)
	data := mc.AppendVarInt(nil, int32(version))
	data = mc.AppendString(data, address)
	data = append(data, p.ID[:]...)
	data = mc.AppendString(data, p.Name)
	data = appendProperties(data, p.Properties)
	if version == velocityWithKey || version == velocityWithKeyV2 {
		data = binary.BigEndian.AppendUint64(data, uint64(start.Key.Expiry))
		data = appendBytes(data, start.Key.PublicKey)
		data = appendBytes(data, start.Key.Signature)
	}
	if version == velocityWithKeyV2 {
		data = append(data, boolByte(start.HasUUID))
		if start.HasUUID {
			data = append(data, start.UUID[:]...)
		}
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(data)
	return append(mac.Sum(nil), data...)
}

func appendProperties(dst []byte, props []Property) []byte {
	dst = mc.AppendVarInt(dst, int32(len(props)))
	for _, p := range props {
		dst = mc.AppendString(dst, p.Name)
		dst = mc.AppendString(dst, p.Value)
		dst = append(dst, boolByte(p.Signature != ""))
		if p.Signature != "" {
			dst = mc.AppendString(dst, p.Signature)
		}
	}
	return dst
}

func appendBytes(dst, b []byte) []byte { return append(mc.AppendVarInt(dst, int32(len(b))), b...) }

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

var forwardings = []Forwarding{ForwardNone, ForwardBungeeCord, ForwardVelocity}

// UnmarshalText reads none, bungeecord or velocity.
func (f *Forwarding) UnmarshalText(text []byte) (err error) {
	*f, err = enum.Parse(text, forwardings...)
	return err
}

func (f Forwarding) String() string { return string(f) }
