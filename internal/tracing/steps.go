package tracing

// Step is one part of a join, a span under the join's (or, for the session server, under the
// login's).
type Step uint8

// The steps of a join, in the order they happen.
const (
	StepAccept        Step = iota // accept to the protocol known: limits, PROXY header, sniffing
	StepTLS                       // the TLS handshake (wss)
	StepUpgrade                   // the WebSocket upgrade (ws, wss)
	StepRoute                     // the route of the hello's host and its access rules
	StepLogin                     // the login the proxy runs (auth online or offline)
	StepSessionServer             // the session server's hasJoined, in the login
	StepDial                      // the backend dial and the first bytes written to it
	numSteps
)

// noStep is a step's parent when it is the join itself.
const noStep = numSteps

var stepInfo = [numSteps]struct {
	name   string
	parent Step
}{
	StepAccept:        {"accept", noStep},
	StepTLS:           {"tls.handshake", noStep},
	StepUpgrade:       {"websocket.upgrade", noStep},
	StepRoute:         {"route", noStep},
	StepLogin:         {"login", noStep},
	StepSessionServer: {"session_server", StepLogin},
	StepDial:          {"backend.dial", noStep},
}

// Attr is an attribute of the join's span.
type Attr uint8

// The join's attributes.
const (
	AttrTransport   Attr = iota // minecraft, ws or wss
	AttrClient                  // the player's address (after a trusted PROXY or forwarded header)
	AttrTLSProvider             // boringssl or go
	AttrTLSVersion              // 1.2, 1.3
	AttrHost                    // the hello's host, as the client wrote it (cleaned)
	AttrNextState               // status, login, transfer
	AttrProtocol                // the Minecraft protocol version
	AttrRoute                   // the route's label
	AttrPlayer                  // the player's name, as the client wrote it (cleaned)
	AttrBackend                 // the backend that took the session
	AttrAnswered                // what the proxy answered itself (fallback, status, ...)
	numAttrs
)

var attrInfo = [numAttrs]struct {
	key    string
	client bool // written by the client: capped at maxClientText and cleaned
}{
	AttrTransport:   {"moonbridge.transport", false},
	AttrClient:      {"client.address", false},
	AttrTLSProvider: {"moonbridge.tls.provider", false},
	AttrTLSVersion:  {"tls.protocol.version", false},
	AttrHost:        {"moonbridge.host", true},
	AttrNextState:   {"moonbridge.next_state", false},
	AttrProtocol:    {"moonbridge.protocol_version", false},
	AttrRoute:       {"moonbridge.route", false},
	AttrPlayer:      {"moonbridge.player", true},
	AttrBackend:     {"moonbridge.backend", false},
	AttrAnswered:    {"moonbridge.answered", false},
}

// Keys of what End and Close set.
const (
	keyOutcome    = "moonbridge.outcome"
	keyReason     = "moonbridge.reason"
	keyFirstBytes = "moonbridge.first_bytes"
	eventFirst    = "backend.first_bytes"
)
