package auth

import (
	"bufio"
	"bytes"
	"context"
	"crypto"
	"crypto/cipher"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/cfb8"
)

// Config is a route's login settings.
type Config struct {
	// Online runs the encryption and asks the session server; false is offline mode: the name in
	// Login Start is taken as it is (only behind something else that vouches for it, or for
	// forwarding the address to a backend).
	Online         bool
	Forwarding     Forwarding
	VelocitySecret []byte // ForwardVelocity's shared secret
	Keys           *Keys  // the RSA key of Encryption Requests (Online)
	Sessions       SessionServer
	// Meter gives each hasJoined request its turn (the process's login meter); nil: none.
	Meter *Meter
	// SendIP gives hasJoined the player's address (the prevent-proxy-connections check).
	SendIP bool
	// TransferCookies checks the cookie of a transfer login (PlayerConn.Transfer) after Login
	// Start; a valid one skips the meter. nil: transfer logins are not asked for one.
	TransferCookies CookieChecker
	// NewCipher makes the player side's AES-128/CFB8 pair from the shared secret (key and IV);
	// nil is mc/cfb8's Go implementation (NewAESPair); cmd/ sets the pair cfb8.Choose picked.
	NewCipher func(key []byte) (enc, dec cipher.Stream, err error)
	// CipherImpl is the implementation NewCipher makes (cmd/ sets both from one cfb8.Choice;
	// "" is Go's): an upgrade carries a moved session's cipher on in it (UnmarshalCipher).
	CipherImpl cfb8.Impl
}

// Player is a login the proxy ran: who the player is and the cipher of the player's side.
type Player struct {
	Protocol   int32
	Shape      mc.LoginShape
	Start      mc.LoginStart
	StartFrame []byte // Login Start as the player sent it, for the backend
	Profile    Profile
	Address    string        // the player's IP address, for forwarding
	Enc, Dec   cipher.Stream // the player side's cipher (Online); nil offline
	Cookie     Cookie        // what the transfer cookie check found
}

// CloseCipher frees the cipher's streams now when they hold memory outside Go (gossl's), rather
// than when the garbage collector finds them. The session calls it once nothing uses them; a
// nil Player is fine.
func (p *Player) CloseCipher() {
	if p == nil {
		return
	}
	for _, s := range [...]cipher.Stream{p.Enc, p.Dec} {
		if c, ok := s.(io.Closer); ok {
			c.Close()
		}
	}
}

// PlayerConn is the player's side during the login: a reader over what the player sent after
// the handshake, and a writer of one frame.
type PlayerConn struct {
	R    *bufio.Reader
	Send func(frame []byte) error
	// Transfer: the handshake's next state was transfer (3): another server sent the player.
	Transfer bool
	// Cookie is what the relay found when it checked the transfer cookie itself, before it
	// routed the login (the cookie names the player's route): Login takes it and does not ask
	// again, as a cookie is believed once. CookieNotAsked: Login asks, when it has a checker.
	Cookie Cookie
	// Network is the client's network as the relay counts it (an IPv4 /24, an IPv6 /64 at the
	// defaults): the login meter is fair between networks. The zero Prefix is none.
	Network netip.Prefix
	// SessionServerAsked, when set, is told when the hasJoined request started and how it
	// ended (the relay's trace of the join); nil: nothing is timed.
	SessionServerAsked func(start time.Time, err error)
}

// Login runs the login of a player whose handshake named protocol, from Login Start to a
// verified profile. A refused login has told the player why (a login disconnect, encrypted when
// the cipher is already up) and returns a *LoginError; a read or write error is returned as is.
func (c *Config) Login(ctx context.Context, pc PlayerConn, protocol int32, address string) (*Player, error) {
	shape, _, ok := mc.LoginShapeOf(protocol)
	p := &Player{Protocol: protocol, Shape: shape, Address: address}
	if !ok {
		newest := mc.NewestRelease()
		return nil, p.refuse(pc, OutcomeUnknownVersion,
			fmt.Sprintf("This server supports Minecraft 1.7.2 to %s; your version (protocol %d) is not known.", newest.Name, protocol),
			fmt.Errorf("protocol %d is no release the login table knows", protocol))
	}
	if c.Forwarding == ForwardVelocity && !shape.PluginMessages {
		return nil, p.refuse(pc, OutcomeForwarding, "This server needs Minecraft 1.13 or newer.", ErrVelocityOld)
	}
	if err := p.readLoginStart(pc); err != nil {
		return nil, err
	}
	switch {
	case pc.Cookie != CookieNotAsked:
		p.Cookie = pc.Cookie
	case pc.Transfer && c.TransferCookies != nil:
		if err := c.askCookie(pc, p); err != nil {
			return nil, err
		}
	}
	if !c.Online {
		p.Profile = OfflineProfile(p.Start.Name)
		return p, nil
	}
	return p, c.authenticate(ctx, pc, p)
}

func (p *Player) readLoginStart(pc PlayerConn) error {
	var frame []byte
	start, err := mc.ReadParsed(pc.R, func(b []byte) (mc.LoginStart, int, error) {
		ls, n, err := mc.ParseLoginStartFrame(b, p.Shape)
		if err == nil { // the key's slices alias the reader's buffer: parse a copy of its own
			frame = bytes.Clone(b[:n])
			ls, _, _ = mc.ParseLoginStartFrame(frame, p.Shape)
		}
		return ls, n, err
	})
	if err != nil {
		return p.readFailed(pc, "Login Start", err)
	}
	p.Start, p.StartFrame = start, frame
	return nil
}

// authenticate sends the Encryption Request, checks the response, turns the cipher on and asks
// the session server.
func (c *Config) authenticate(ctx context.Context, pc PlayerConn, p *Player) error {
	if k := p.Start.Key; k != nil && !time.Now().Before(time.UnixMilli(k.Expiry)) {
		// What a vanilla 1.19-1.19.2 server refuses at Login Start, in its words. (It also
		// checks Mojang's signature over the key, which needs Mojang's public key: not done.)
		return p.refuse(pc, OutcomeExpiredKey, "Expired profile public key. Check that your system time is synchronized, and try restarting your game.",
			fmt.Errorf("%w: at %s", ErrExpiredKey, time.UnixMilli(k.Expiry).UTC().Format(time.RFC3339)))
	}
	if err := c.meter(p).Check(pc.Network); err != nil { // refused now: no Encryption Request, no RSA
		return p.refuseByMeter(pc, err)
	}
	token := make([]byte, 4)
	rand.Read(token)
	if err := pc.Send(mc.AppendEncryptionRequest(nil, p.Shape, "", c.Keys.PublicDER(), token)); err != nil {
		return err
	}
	resp, err := mc.ReadParsed(pc.R, func(b []byte) (mc.EncryptionResponse, int, error) {
		r, n, err := mc.ParseEncryptionResponse(b, p.Shape)
		if err == nil { // the slices alias the reader's buffer: keep them
			r.SharedSecret, r.VerifyToken, r.Signature = bytes.Clone(r.SharedSecret), bytes.Clone(r.VerifyToken), bytes.Clone(r.Signature)
		}
		return r, n, err
	})
	if err != nil {
		return p.readFailed(pc, "Encryption Response", err)
	}
	// A secret that does not open leaves the random key in place: the login goes on with it
	// and fails at the verify token, refused under a key the client does not have.
	secret := make([]byte, 16)
	rand.Read(secret)
	if err := c.Keys.openInto(secret, resp.SharedSecret); err != nil {
		return p.refuse(pc, OutcomeBadSecret, badAnswer, fmt.Errorf("%w: %v", ErrSecretSize, err))
	}
	// The client encrypts from its Encryption Response on: so does every answer from here.
	newCipher := c.NewCipher
	if newCipher == nil {
		newCipher = cfb8.NewAESPair
	}
	if p.Enc, p.Dec, err = newCipher(secret); err != nil { // out of memory: the key is 16 bytes
		return fmt.Errorf("starting the cipher: %w", err)
	}
	if err := c.checkToken(p, resp, token); err != nil {
		return p.refuse(pc, OutcomeBadVerifyToken, badAnswer, err)
	}
	return c.verify(ctx, pc, p, ServerHash("", secret, c.Keys.PublicDER()))
}

// badAnswer is what a player whose Encryption Response does not check out reads.
const badAnswer = "Login failed: your client's encryption answer was not valid."

// checkToken checks the verify token (or, from a 1.19-1.19.2 client with a chat key, its
// signature over the token and the salt).
func (c *Config) checkToken(p *Player, resp mc.EncryptionResponse, token []byte) error {
	if resp.Signed {
		return verifySalted(p.Start.Key, token, resp.Salt, resp.Signature)
	}
	// got starts as token's complement, so a ciphertext that does not open never matches.
	got := make([]byte, len(token))
	for i, b := range token {
		got[i] = ^b
	}
	if c.Keys.openInto(got, resp.VerifyToken) != nil || subtle.ConstantTimeCompare(got, token) != 1 {
		return ErrVerifyToken
	}
	return nil
}

// verifySalted checks a 1.19-1.19.2 client's SHA256withRSA signature over token and salt with
// the key it sent in Login Start.
func verifySalted(key *mc.PlayerKey, token []byte, salt int64, sig []byte) error {
	if key == nil {
		return ErrNoPlayerKey
	}
	pub, err := x509.ParsePKIXPublicKey(key.PublicKey)
	rsaPub, ok := pub.(*rsa.PublicKey)
	if err != nil || !ok {
		return fmt.Errorf("%w: the chat key is not an RSA key", ErrVerifyToken)
	}
	sum := SaltedDigest(token, salt)
	if rsa.VerifyPKCS1v15(rsaPub, crypto.SHA256, sum[:], sig) != nil {
		return fmt.Errorf("%w: the signature does not verify", ErrVerifyToken)
	}
	return nil
}

// SaltedDigest is what a 1.19-1.19.2 client signs with its chat key instead of encrypting the
// verify token: SHA-256 over the token and the salt (big-endian).
func SaltedDigest(token []byte, salt int64) [32]byte {
	return sha256.Sum256(binary.BigEndian.AppendUint64(bytes.Clone(token), uint64(salt)))
}

// verify asks the session server and compares the name; the cipher is on, so refusals are
// encrypted.
func (c *Config) verify(ctx context.Context, pc PlayerConn, p *Player, hash string) error {
	ip := ""
	if c.SendIP {
		ip = p.Address
	}
	meter := c.meter(p)
	ticket, err := meter.Acquire(ctx, pc.Network)
	if err != nil {
		return p.refuseByMeter(pc, err)
	}
	profile, err := c.hasJoined(ctx, pc, p.Start.Name, hash, ip)
	meter.Observe(ticket, err)
	switch {
	case errors.Is(err, ErrNotAuthenticated):
		return p.refuse(pc, OutcomeNotAuthed, "Failed to verify username! (Are you logged in to a Minecraft account?)", err)
	case err != nil:
		return p.refuse(pc, OutcomeSessionServer, "Minecraft's login servers cannot be reached right now. Please try again in a minute.", err)
	case !strings.EqualFold(profile.Name, p.Start.Name):
		return p.refuse(pc, OutcomeNameMismatch, "Failed to verify username! (The account's name is not the one you logged in with.)",
			fmt.Errorf("%w: %q, Login Start %q", ErrNameMismatch, profile.Name, p.Start.Name))
	}
	p.Profile = profile
	return nil
}

// hasJoined asks the session server, and tells pc.SessionServerAsked when it is set.
func (c *Config) hasJoined(ctx context.Context, pc PlayerConn, name, hash, ip string) (Profile, error) {
	if pc.SessionServerAsked == nil {
		return c.Sessions.HasJoined(ctx, name, hash, ip)
	}
	start := time.Now()
	profile, err := c.Sessions.HasJoined(ctx, name, hash, ip)
	pc.SessionServerAsked(start, err)
	return profile, err
}

// refuseByMeter tells the player why the login meter gave no turn: the proxy is shutting down,
// or too many are logging in.
func (p *Player) refuseByMeter(pc PlayerConn, err error) error {
	if errors.Is(err, ErrMeterClosed) {
		return p.refuse(pc, OutcomeMeterRefused, ShuttingDownMessage, err)
	}
	return p.refuse(pc, OutcomeMeterRefused, MeterMessage, err)
}

// ShuttingDownMessage is what a player waiting for the login meter's turn reads when the proxy
// drains.
const ShuttingDownMessage = "The server is restarting. Please join again in a moment."

// MeterMessage is what a player the login meter could not give a turn in time reads.
const MeterMessage = "Too many players are logging in right now. Please try again in a minute."

// readFailed turns a failed read of a login packet into the session's error: a protocol fault
// is refused with a disconnect; a connection that ended is returned as is.
func (p *Player) readFailed(pc PlayerConn, what string, err error) error {
	var pe *mc.ProtocolError
	if !errors.As(err, &pe) {
		return fmt.Errorf("reading %s: %w", what, err)
	}
	msg := "Login failed: your client sent something this server does not understand."
	if errors.Is(err, mc.ErrPacketID) {
		msg = "Login failed: your client sent a packet out of order."
	}
	return p.refuse(pc, OutcomeBadPacket, msg, fmt.Errorf("%s: %w", what, err))
}

// refuse tells the player msg in a login disconnect (encrypted once the cipher is on) and
// returns the LoginError; a failed write joins it.
func (p *Player) refuse(pc PlayerConn, outcome, msg string, err error) error {
	frame := mc.AppendLoginDisconnect(nil, msg)
	if p.Enc != nil {
		p.Enc.XORKeyStream(frame, frame)
	}
	lerr := &LoginError{Outcome: outcome, Message: msg, Err: err}
	if werr := pc.Send(frame); werr != nil {
		return errors.Join(lerr, werr)
	}
	return lerr
}
