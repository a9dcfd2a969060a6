package authtest

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
)

// Forwarded is what a backend learned about the player: from BungeeCord's host field or from
// Velocity's signed data.
type Forwarded struct {
	Host       string
	Address    string
	UUID       string // 32 hex digits
	Name       string
	Properties []auth.Property
	Version    int // Velocity's forwarding version
}

// Backend is an offline-mode server that checks forwarding as Paper does: it reads the
// handshake and Login Start, (Velocity) asks for the player's info and checks its HMAC, then
// sends Login Success and echoes every byte after.
type Backend struct {
	Forwarding     auth.Forwarding
	VelocitySecret []byte
	// VelocityVersion is the forwarding version the backend asks for (0: sends no version byte).
	VelocityVersion byte
	// Compression: send Set Compression (threshold 256) before the plugin request.
	Compression bool
	// Got receives what each login forwarded, or the error that refused it.
	Got chan BackendLogin
	// Received gets every byte a player sent after its login (what the backend echoes), so that
	// a test can see the proxy decrypted them: an echo alone would come back right through a
	// proxy that passed ciphertext both ways. nil: not kept.
	Received *testutil.SyncBuffer
}

// BackendLogin is one login the Backend saw.
type BackendLogin struct {
	Forwarded Forwarded
	Start     mc.LoginStart
	Err       error
}

// Serve runs one connection (for testutil.Serve).
func (b *Backend) Serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	login, err := b.login(r, c)
	login.Err = err
	b.Got <- login
	if err != nil {
		return
	}
	var keep io.Writer = io.Discard
	if b.Received != nil {
		keep = b.Received
	}
	io.Copy(c, io.TeeReader(r, keep)) // echo: the login succeeded
}

func (b *Backend) login(r *bufio.Reader, c net.Conn) (BackendLogin, error) {
	hello, err := mc.ReadHello(r, 64<<10)
	if err != nil {
		return BackendLogin{}, err
	}
	hs := hello.Handshake
	shape, _, _ := mc.LoginShapeOf(hs.Protocol)
	start, err := mc.ReadParsed(r, func(b []byte) (mc.LoginStart, int, error) { return mc.ParseLoginStartFrame(b, shape) })
	if err != nil {
		return BackendLogin{}, err
	}
	login := BackendLogin{Start: start}
	switch b.Forwarding {
	case auth.ForwardBungeeCord:
		login.Forwarded, err = ParseBungeeHost(hs.Host + hs.HostSuffix)
	case auth.ForwardVelocity:
		login.Forwarded, err = b.askVelocity(r, c)
	default:
		login.Forwarded = Forwarded{Host: hs.Host, Name: start.Name}
	}
	if err != nil {
		c.Write(mc.AppendLoginDisconnect(nil, err.Error()))
		return login, err
	}
	_, err = c.Write(b.frame(loginSuccess(login.Forwarded)))
	return login, err
}

// ParseBungeeHost splits BungeeCord's host field as Spigot does: three or four parts.
func ParseBungeeHost(field string) (Forwarded, error) {
	parts := strings.Split(field, "\x00")
	if len(parts) != 3 && len(parts) != 4 {
		return Forwarded{}, fmt.Errorf("host field of %d parts, want 3 or 4 (is the proxy forwarding?)", len(parts))
	}
	f := Forwarded{Host: parts[0], Address: parts[1], UUID: parts[2]}
	if len(parts) == 4 {
		if err := json.Unmarshal([]byte(parts[3]), &f.Properties); err != nil {
			return Forwarded{}, fmt.Errorf("properties: %w", err)
		}
	}
	if _, err := hex.DecodeString(f.UUID); err != nil || len(f.UUID) != 32 {
		return Forwarded{}, fmt.Errorf("uuid %q", f.UUID)
	}
	return f, nil
}

// askVelocity sends the velocity:player_info request and checks the answer.
func (b *Backend) askVelocity(r *bufio.Reader, c net.Conn) (Forwarded, error) {
	if b.Compression {
		c.Write(mc.AppendFrame(nil, mc.SetCompressionID, mc.AppendVarInt(nil, 256)))
	}
	req := mc.AppendVarInt(nil, mc.LoginPluginRequestID)
	req = mc.AppendVarInt(req, 42)
	req = mc.AppendString(req, auth.VelocityChannel)
	if b.VelocityVersion != 0 {
		req = append(req, b.VelocityVersion)
	}
	if _, err := c.Write(b.frame(req)); err != nil {
		return Forwarded{}, err
	}
	body, err := mc.ReadParsed(r, func(p []byte) ([]byte, int, error) { return mc.ReadFrame(p, mc.MaxFrameLen) })
	if err != nil {
		return Forwarded{}, err
	}
	if b.Compression {
		if body[0] != 0 {
			return Forwarded{}, errors.New("answer not in the compressed format")
		}
		body = body[1:]
	}
	// packet id 0x02, message id 42, understood
	if len(body) < 3 || body[0] != mc.LoginPluginResponseID || body[1] != 42 || body[2] != 1 {
		return Forwarded{}, fmt.Errorf("not an answer to the request: % x", body[:min(len(body), 3)])
	}
	return CheckVelocity(b.VelocitySecret, body[3:])
}

// CheckVelocity checks Velocity's signature over data and reads the fields, as Paper's
// VelocityProxy does.
func CheckVelocity(secret, data []byte) (Forwarded, error) {
	if len(data) < 32 {
		return Forwarded{}, errors.New("velocity data shorter than its signature")
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(data[32:])
	if !hmac.Equal(mac.Sum(nil), data[:32]) {
		return Forwarded{}, errors.New("velocity data: the signature does not match (wrong secret?)")
	}
	d := reader{b: data[32:]}
	f := Forwarded{Version: int(d.varInt()), Address: d.str()}
	f.UUID = hex.EncodeToString(d.take(16))
	f.Name = d.str()
	for n := d.varInt(); n > 0 && d.err == nil; n-- {
		p := auth.Property{Name: d.str(), Value: d.str()}
		if d.take(1)[0] == 1 {
			p.Signature = d.str()
		}
		f.Properties = append(f.Properties, p)
	}
	return f, d.err
}

// loginSuccess is a 1.8-1.15-style Login Success (UUID with hyphens, name): what the client
// does with it is not under test, only that it arrives.
func loginSuccess(f Forwarded) []byte {
	body := mc.AppendVarInt(nil, mc.LoginSuccessID)
	body = mc.AppendString(body, f.UUID)
	return mc.AppendString(body, f.Name)
}

// frame frames a body, in the compressed format once compression is on.
func (b *Backend) frame(body []byte) []byte {
	if b.Compression && b.Forwarding == auth.ForwardVelocity {
		body = append([]byte{0}, body...)
	}
	return append(mc.AppendVarInt(nil, int32(len(body))), body...)
}

// reader reads Velocity's fields; the first fault sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = errors.Join(r.err, errors.New("velocity data: truncated"))
		return make([]byte, max(n, 1))
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) varInt() int32 {
	v, n, err := mc.ReadVarInt(r.b)
	if err != nil {
		r.err = errors.Join(r.err, err)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) str() string { return string(r.take(int(r.varInt()))) }
