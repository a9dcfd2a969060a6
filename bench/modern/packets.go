package modern

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/moonbridge/moonbridge/mc"
)

// Fields of the packets a server sends to move or drop a player, for tests that play the
// server (or a proxy) by hand; the same in the configuration and play states.

// StoreCookieFields: key (an identifier such as moonbridge:transfer), then the VarInt-prefixed
// value.
func StoreCookieFields(key string, value []byte) []byte {
	return appendByteArray(mc.AppendString(nil, key), value)
}

// TransferFields: host, then the port as a VarInt.
func TransferFields(host string, port uint16) []byte {
	return mc.AppendVarInt(mc.AppendString(nil, host), int32(port))
}

// CookieRequestFields: the key asked for (also in the login state).
func CookieRequestFields(key string) []byte { return mc.AppendString(nil, key) }

// DisconnectFields: the reason as an NBT String; it fails for a reason over 65535 bytes.
func DisconnectFields(reason string) ([]byte, error) { return AppendNBTString(nil, reason) }

// PluginMessageFields: the channel, then the data to the end of the packet.
func PluginMessageFields(channel string, data []byte) []byte {
	return append(mc.AppendString(nil, channel), data...)
}

// cookieResponseFields answers a Cookie Request: key, whether a value follows, the value.
func cookieResponseFields(key string, value []byte, present bool) []byte {
	b := appendBool(mc.AppendString(nil, key), present)
	if present {
		b = appendByteArray(b, value)
	}
	return b
}

func int64Fields(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// parseTransfer reads a Transfer's host and port.
func parseTransfer(state string, fields []byte) (host string, port uint16, err error) {
	f := readFields(state, "transfer", fields)
	host, p := f.string(), f.varInt()
	if f.err == nil && (p < 0 || p > math.MaxUint16) {
		f.fail(fmt.Errorf("port %d", p))
	}
	return host, uint16(p), f.done()
}

// parseStoreCookie reads a Store Cookie's key and value.
func parseStoreCookie(state string, fields []byte) (key string, value []byte, err error) {
	f := readFields(state, "store cookie", fields)
	key, value = f.string(), f.byteArray()
	return key, value, f.done()
}

// parseKey reads a Cookie Request's key.
func parseKey(state string, fields []byte) (string, error) {
	f := readFields(state, "cookie request", fields)
	key := f.string()
	return key, f.done()
}

// parsePluginMessage reads a plugin message's channel and data (aliasing fields).
func parsePluginMessage(state string, fields []byte) (channel string, data []byte, err error) {
	f := readFields(state, "plugin message", fields)
	channel = f.string()
	data = f.take(len(f.b))
	return channel, data, f.done()
}
