package modern

import (
	"crypto/rand"
	"fmt"

	"github.com/moonbridge/moonbridge/mc"
)

// maxName is the longest player name vanilla accepts, in bytes.
const maxName = 16

// Brand is what the fake server names itself in its minecraft:brand plugin message.
const Brand = "moonbridge-playtest"

// Login is what a connection's handshake and Login Start said.
type Login struct {
	Name      string
	UUID      [16]byte
	Host      string // the handshake's, as sent
	Port      uint16
	NextState int32 // NextLogin or NextTransfer
}

// ServerConfig is how Serve plays the server's side.
type ServerConfig struct {
	// Compression is Set Compression's threshold (0 compresses every packet); negative sends
	// none and frames stay uncompressed.
	Compression int32
	// EncryptionKey, when set (a DER public key), has the server answer Login Start with an
	// Encryption Request, as an online-mode server does, and go no further: it then reads until
	// the client leaves.
	EncryptionKey []byte
	// Logged is called with each Login Start before it is answered; nil: not called.
	Logged func(Login)
}

// Serve plays one connection whose handshake hs was read already: the login, the
// configuration, then play, answering every test:echo plugin message with the same data,
// until the client leaves (io.EOF) or sends something this package refuses.
func Serve(c *Conn, hs Handshake, cfg ServerConfig) error {
	l, err := ReadLoginStart(c, hs)
	if err != nil {
		return err
	}
	if cfg.Logged != nil {
		cfg.Logged(l)
	}
	if cfg.EncryptionKey != nil {
		return askEncryption(c, cfg.EncryptionKey)
	}
	if err := Welcome(c, l, cfg.Compression); err != nil {
		return err
	}
	return EchoLoop(c)
}

// ReadLoginStart checks the handshake and reads Login Start.
func ReadLoginStart(c *Conn, hs Handshake) (Login, error) {
	switch {
	case hs.Protocol != Protocol:
		return Login{}, &ProtocolError{State: "handshake", Packet: "handshake", Err: fmt.Errorf("protocol %d, want %d", hs.Protocol, Protocol)}
	case hs.NextState != NextLogin && hs.NextState != NextTransfer:
		return Login{}, &ProtocolError{State: "handshake", Packet: "handshake", Err: fmt.Errorf("next state %d, want 2 or 3", hs.NextState)}
	}
	fields, err := expect(c, StateLogin, "login start", LoginStartID)
	if err != nil {
		return Login{}, err
	}
	f := readFields(StateLogin, "login start", fields)
	l := Login{Name: string(f.take(f.length(maxName))), UUID: f.uuid(), Host: hs.Host, Port: hs.Port, NextState: hs.NextState}
	return l, f.done()
}

// Welcome answers a Login Start: Set Compression (unless compression is negative), Login
// Success, then, once the client acknowledged it, the configuration (the server's brand and
// Finish Configuration) and, once that is acknowledged, the first play packet.
func Welcome(c *Conn, l Login, compression int32) error {
	if compression >= 0 {
		if err := c.WritePacket(LoginCompressionID, mc.AppendVarInt(nil, compression)); err != nil {
			return err
		}
		c.SetCompression(compression)
	}
	uuid := append([]byte{}, l.UUID[:]...)
	success := appendBool(mc.AppendVarInt(mc.AppendString(uuid, l.Name), 0), false) // no properties, lenient
	if err := c.WritePacket(LoginSuccessID, success); err != nil {
		return err
	}
	if _, err := expect(c, StateLogin, "login acknowledged", LoginAcknowledgedID); err != nil {
		return err
	}
	brand := PluginMessageFields(BrandChannel, mc.AppendString(nil, Brand))
	if err := c.WritePacket(ConfigPluginMessageID, brand); err != nil {
		return err
	}
	if err := c.WritePacket(ConfigFinishID, nil); err != nil {
		return err
	}
	if err := skipUntil(c, ConfigFinishAckID); err != nil {
		return err
	}
	return c.WritePacket(PlayKeepAliveID, int64Fields(1))
}

// EchoLoop answers every test:echo plugin message of the play state with the same data and
// passes over every other packet, until the stream ends.
func EchoLoop(c *Conn) error {
	for {
		id, fields, err := c.ReadPacket()
		if err != nil {
			return err
		}
		if id != PlayPluginMessageUpID {
			continue
		}
		channel, data, err := parsePluginMessage(StatePlay, fields)
		if err != nil {
			return err
		}
		if channel == EchoChannel {
			if err := c.WritePacket(PlayPluginMessageID, PluginMessageFields(EchoChannel, data)); err != nil {
				return err
			}
		}
	}
}

// askEncryption sends an online-mode server's Encryption Request and then reads until the
// client leaves.
func askEncryption(c *Conn, publicKey []byte) error {
	token := make([]byte, 4)
	rand.Read(token)
	req := appendBool(appendByteArray(appendByteArray(mc.AppendString(nil, ""), publicKey), token), true)
	if err := c.WritePacket(LoginEncryptionID, req); err != nil {
		return err
	}
	for {
		if _, _, err := c.ReadPacket(); err != nil {
			return err
		}
	}
}

// expect reads the next packet and checks its id.
func expect(c *Conn, state, packet string, id int32) ([]byte, error) {
	got, fields, err := c.ReadPacket()
	if err == nil && got != id {
		err = &ProtocolError{State: state, Packet: packet, Err: fmt.Errorf("%w %#x, want %#x", errUnexpectedID, got, id)}
	}
	return fields, err
}

// skipUntil reads configuration packets until one with id; a client sends its settings and
// brand before it acknowledges.
func skipUntil(c *Conn, id int32) error {
	for {
		got, _, err := c.ReadPacket()
		if err != nil || got == id {
			return err
		}
	}
}
