package play

import "fmt"

//go:generate go run ./internal/gen -out ids_gen.go

// FirstProtocol is the first protocol with Transfer and cookies (1.20.5).
const FirstProtocol int32 = 766

// stateIDs are one state's clientbound packets that the tracker reads or the encoders write.
type stateIDs struct {
	Disconnect, StoreCookie, Transfer int32
	// Switch ends the state: finish_configuration (to play) in configuration, start_configuration
	// (back to configuration) in play.
	Switch int32
}

// protocolIDs are one protocol's rows of protocolTable (ids_gen.go).
type protocolIDs struct {
	Configuration, Play stateIDs
	// BundleDelimiter opens and closes a bundle in play: the client holds the packets between
	// two of them and handles them together.
	BundleDelimiter int32
}

// Supports reports whether the package knows this protocol's packet ids.
func Supports(protocol int32) bool {
	_, ok := protocolTable[protocol]
	return ok
}

// UnsupportedError is a protocol the package has no packet ids for: older than 1.20.5, or newer
// than the minecraft-data ids_gen.go was made from.
type UnsupportedError struct{ Protocol int32 }

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("play: no packet ids for protocol %d (known: %d to %d)", e.Protocol, FirstProtocol, lastProtocol)
}
