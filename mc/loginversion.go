package mc

import "sort"

// The login state changed shape many times between 1.7.2 and 1.21.x. Every difference the proxy
// needs to run a login itself (online mode) lives in this one table, so that the packet parsers
// and builders in loginpackets.go ask a LoginShape instead of comparing protocol numbers.
//
// Sources: wiki.vg's protocol pages per release (now minecraft.wiki "Java Edition protocol"),
// cross-checked with node-minecraft-protocol's minecraft-data and Velocity's ProtocolVersion.

// LoginShape is how one range of protocol versions does the login state.
type LoginShape struct {
	// Since is the first protocol number with this shape; the shape holds up to the next row's.
	Since int32
	// ShortArrays: byte arrays (keys, verify token, shared secret) have an int16 length prefix
	// (1.7.x) instead of a VarInt one (1.8+).
	ShortArrays bool
	// SetCompression: the server may send Set Compression (0x03) during login (1.8+), after
	// which every frame carries a data-length VarInt.
	SetCompression bool
	// PluginMessages: Login Plugin Request (0x04) and Response (0x02) exist (1.13+); Velocity's
	// forwarding needs them.
	PluginMessages bool
	// LoginStartKey: Login Start carries optional signature data (a chat signing key: expiry,
	// public key, Mojang's signature), 1.19 to 1.19.2.
	LoginStartKey bool
	// LoginStartUUID says whether and how Login Start carries the player's UUID.
	LoginStartUUID UUIDField
	// ResponseSalt: Encryption Response may carry a salt and a signature made with the chat key
	// instead of the encrypted verify token (1.19 to 1.19.2): a bool says which follows.
	ResponseSalt bool
	// ShouldAuthenticate: Encryption Request ends with a should-authenticate bool (1.20.5+).
	ShouldAuthenticate bool
	// SuccessUUID says how Login Success carries the UUID.
	SuccessUUID UUIDField
	// SuccessProperties: Login Success carries the profile's properties (1.19+).
	SuccessProperties bool
	// StrictErrors: Login Success ends with a strict-error-handling bool (1.20.5 to 1.21.1).
	StrictErrors bool
	// LoginAcknowledged: the client answers Login Success with Login Acknowledged (0x03) and the
	// connection enters the configuration state (1.20.2+).
	LoginAcknowledged bool
}

// UUIDField is how a login packet carries a UUID.
type UUIDField uint8

const (
	UUIDAbsent      UUIDField = iota // not sent
	UUIDPlainString                  // a string of 32 hex digits (1.7.2-1.7.5)
	UUIDHyphenated                   // a string with hyphens (1.7.6-1.15.2)
	UUIDOptional                     // a bool, then 16 bytes if true (Login Start 1.19.1-1.20.1)
	UUIDBinary                       // 16 bytes, two big-endian longs (1.16+)
)

// loginShapes are the rows of the table, by Since; each changes at least one field from the row
// before.
var loginShapes = []LoginShape{
	{Since: 4, ShortArrays: true, SuccessUUID: UUIDPlainString},                           // 1.7.2
	{Since: 5, ShortArrays: true, SuccessUUID: UUIDHyphenated},                            // 1.7.6
	{Since: 47, SetCompression: true, SuccessUUID: UUIDHyphenated},                        // 1.8
	{Since: 393, SetCompression: true, PluginMessages: true, SuccessUUID: UUIDHyphenated}, // 1.13
	{Since: 735, SetCompression: true, PluginMessages: true, SuccessUUID: UUIDBinary},     // 1.16
	{Since: 759, SetCompression: true, PluginMessages: true, SuccessUUID: UUIDBinary, SuccessProperties: true, // 1.19
		LoginStartKey: true, ResponseSalt: true},
	{Since: 760, SetCompression: true, PluginMessages: true, SuccessUUID: UUIDBinary, SuccessProperties: true, // 1.19.1
		LoginStartKey: true, ResponseSalt: true, LoginStartUUID: UUIDOptional},
	{Since: 761, SetCompression: true, PluginMessages: true, SuccessUUID: UUIDBinary, SuccessProperties: true, // 1.19.3
		LoginStartUUID: UUIDOptional},
	{Since: 764, SetCompression: true, PluginMessages: true, SuccessUUID: UUIDBinary, SuccessProperties: true, // 1.20.2
		LoginStartUUID: UUIDBinary, LoginAcknowledged: true},
	{Since: 766, SetCompression: true, PluginMessages: true, SuccessUUID: UUIDBinary, SuccessProperties: true, // 1.20.5
		LoginStartUUID: UUIDBinary, LoginAcknowledged: true, ShouldAuthenticate: true, StrictErrors: true},
	{Since: 768, SetCompression: true, PluginMessages: true, SuccessUUID: UUIDBinary, SuccessProperties: true, // 1.21.2
		LoginStartUUID: UUIDBinary, LoginAcknowledged: true, ShouldAuthenticate: true},
}

// Release is one protocol number of a release and the first release name that used it.
type Release struct {
	Protocol int32
	Name     string
}

// releases are the protocol numbers of every release from 1.7.2 to the newest 1.21.x the proxy
// knows; snapshots and anything newer are unknown, and online mode refuses them.
var releases = []Release{
	{4, "1.7.2"}, {5, "1.7.6"}, {47, "1.8"},
	{107, "1.9"}, {108, "1.9.1"}, {109, "1.9.2"}, {110, "1.9.3"},
	{210, "1.10"}, {315, "1.11"}, {316, "1.11.1"},
	{335, "1.12"}, {338, "1.12.1"}, {340, "1.12.2"},
	{393, "1.13"}, {401, "1.13.1"}, {404, "1.13.2"},
	{477, "1.14"}, {480, "1.14.1"}, {485, "1.14.2"}, {490, "1.14.3"}, {498, "1.14.4"},
	{573, "1.15"}, {575, "1.15.1"}, {578, "1.15.2"},
	{735, "1.16"}, {736, "1.16.1"}, {751, "1.16.2"}, {753, "1.16.3"}, {754, "1.16.4"},
	{755, "1.17"}, {756, "1.17.1"}, {757, "1.18"}, {758, "1.18.2"},
	{759, "1.19"}, {760, "1.19.1"}, {761, "1.19.3"}, {762, "1.19.4"},
	{763, "1.20"}, {764, "1.20.2"}, {765, "1.20.3"}, {766, "1.20.5"},
	{767, "1.21"}, {768, "1.21.2"}, {769, "1.21.4"}, {770, "1.21.5"}, {771, "1.21.6"},
	{772, "1.21.7"}, {773, "1.21.9"}, {774, "1.21.11"},
}

// LoginShapeOf returns the login shape of a release's protocol number and the release's name;
// ok is false for a number that is not a known release (a snapshot, a newer or a made-up
// version), whose login the proxy cannot run.
func LoginShapeOf(protocol int32) (shape LoginShape, release Release, ok bool) {
	i := sort.Search(len(releases), func(i int) bool { return releases[i].Protocol >= protocol })
	if i == len(releases) || releases[i].Protocol != protocol {
		return LoginShape{}, Release{}, false
	}
	return loginShapeSince(protocol), releases[i], true
}

// loginShapeSince is the shape of the table's row that protocol falls in, a known release or not
// (the first row's below 1.7.2): enough to read Login Start's name and UUID as they pass by.
func loginShapeSince(protocol int32) LoginShape {
	j := sort.Search(len(loginShapes), func(j int) bool { return loginShapes[j].Since > protocol })
	return loginShapes[max(j-1, 0)]
}

// NewestRelease is the newest release the table knows, for messages to players of newer ones.
func NewestRelease() Release { return releases[len(releases)-1] }
