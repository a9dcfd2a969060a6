package relay

import (
	"github.com/moonbridge/moonbridge/internal/bytesize"
	"github.com/moonbridge/moonbridge/internal/enum"
)

// Listener is one address and what it serves. The config file's listeners are these; the
// yaml tags are their keys (was: a key's old name, which the loader refuses by its new one).
type Listener struct {
	Addr      string     `yaml:"listen"`
	Protocols []Protocol `yaml:"protocols"`
	// Proxy enables PROXY headers from TrustedProxies on this listener.
	Proxy ProxyPolicy `yaml:"proxy_header" was:"proxy_protocol"`
	// EarlyData is the most early data (the game's first bytes in the upgrade request, from
	// moonbridge's client bridge: ws.EarlyDataPrefix) its ws and wss upgrades take, at most
	// ws.MaxEarlyData; 0 takes none. RawStream lets the bridge drop the WebSocket framing after
	// the upgrade (ws.RawStreamProtocol). Other WebSocket clients are not affected by either.
	EarlyData bytesize.Size `yaml:"early_data"`
	RawStream bool          `yaml:"raw_stream"`
}

// Protocol is what a listener accepts; with several, the first bytes decide.
type Protocol string

const (
	Minecraft Protocol = "minecraft"
	WS        Protocol = "ws"
	WSS       Protocol = "wss"
)

var protocols = []Protocol{Minecraft, WS, WSS}

// UnmarshalText reads minecraft, ws or wss.
func (p *Protocol) UnmarshalText(text []byte) (err error) {
	*p, err = enum.Parse(text, protocols...)
	return err
}

func (p Protocol) String() string { return string(p) }

// ProxyPolicy says what a listener does with an incoming PROXY protocol header. Under both
// policies that read headers, a peer in TrustedProxies must send one and its source address is
// the client's; they differ only in what an untrusted peer's header gets. The config file
// names them none, refuse-untrusted and discard-untrusted.
type ProxyPolicy int

const (
	ProxyOff              ProxyPolicy = iota // no PROXY header is expected; one would be bad input
	ProxyRefuseUntrusted                     // an untrusted peer that sends a header is refused
	ProxyDiscardUntrusted                    // an untrusted peer's header is read and thrown away
)

var proxyPolicies = []string{"none", "refuse-untrusted", "discard-untrusted"}

// UnmarshalText reads none, refuse-untrusted or discard-untrusted.
func (p *ProxyPolicy) UnmarshalText(text []byte) error {
	i, err := enum.Index(text, proxyPolicies...)
	*p = ProxyPolicy(i)
	return err
}

// MarshalText writes the policy's name.
func (p ProxyPolicy) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

func (p ProxyPolicy) String() string { return enum.Name(int(p), proxyPolicies...) }

// SendProxy is the PROXY header version a route sends its backends ahead of a session's bytes,
// with the real client address: 0 none, 1 text, 2 binary (Backend.ProxyProtocol).
type SendProxy int

var sendProxies = []string{"none", "v1", "v2"}

// UnmarshalText reads none, v1 or v2.
func (v *SendProxy) UnmarshalText(text []byte) error {
	i, err := enum.Index(text, sendProxies...)
	*v = SendProxy(i)
	return err
}

// MarshalText writes the version's name.
func (v SendProxy) MarshalText() ([]byte, error) { return []byte(v.String()), nil }

func (v SendProxy) String() string { return enum.Name(int(v), sendProxies...) }
