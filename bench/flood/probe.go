package flood

import (
	"bufio"
	"context"
	"crypto/cipher"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"time"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth/authfake"
	"github.com/moonbridge/moonbridge/mc/cfb8"
)

// A probe is one action of a player beside a flood, from its own address: a server-list ping
// or an online login, with what the proxy answered.

// ProbeTimeout bounds one probe: a login the meter queues may wait its max_wait (20 s) plus the
// session server's timeout before it is answered.
const ProbeTimeout = 30 * time.Second

// PingStatus sends a server-list ping for host from src and returns the status JSON the proxy
// answered.
func PingStatus(ctx context.Context, src netip.Addr, target, host string) (string, error) {
	c, done, err := dialProbe(ctx, src, target)
	if err != nil {
		return "", err
	}
	defer done()
	if _, err := c.Write(StatusRequest(host)); err != nil {
		return "", err
	}
	body, err := readPacket(bufio.NewReader(c), 0x00)
	if err != nil {
		return "", fmt.Errorf("status: %w", err)
	}
	return readString(body)
}

// LoginResult is how an online login ended: through (Login Success or Set Compression came
// after the proxy asked the session server), or refused with the proxy's reason.
type LoginResult struct {
	Through bool   `json:"through"`
	Reason  string `json:"reason,omitempty"` // the Disconnect's text, or the error
}

// OnlineLogin logs in at host from src as a player with an account at sessions (it joins there
// before it answers the Encryption Request), and reads the proxy's first answer after it.
func OnlineLogin(ctx context.Context, src netip.Addr, target, host string, sessions *authfake.SessionServer, rng *rand.Rand) LoginResult {
	c, done, err := dialProbe(ctx, src, target)
	if err != nil {
		return LoginResult{Reason: err.Error()}
	}
	defer done()
	name := RandomName(rng)
	if _, err := c.Write(Login(host, name)); err != nil {
		return LoginResult{Reason: err.Error()}
	}
	r := bufio.NewReaderSize(c, 1024)
	resp, secret, err := encryptionAnswer(r, name, sessions)
	if errors.Is(err, errRefusedAtLoginStart) {
		return LoginResult{Reason: "at Login Start: " + disconnectText(resp)}
	} else if err != nil {
		return LoginResult{Reason: err.Error()}
	}
	if _, err := c.Write(resp); err != nil {
		return LoginResult{Reason: err.Error()}
	}
	_, dec, _ := cfb8.NewAESPair(secret)
	body, err := mc.ReadParsed(bufio.NewReader(cipher.StreamReader{S: dec, R: r}), readFrame)
	if err != nil {
		return LoginResult{Reason: err.Error()}
	}
	id, fields, err := mc.PacketID(body)
	switch {
	case err == nil && (id == mc.LoginSuccessID || id == mc.SetCompressionID):
		return LoginResult{Through: true}
	case err == nil && id == mc.LoginDisconnectID:
		return LoginResult{Reason: disconnectText(fields)}
	}
	return LoginResult{Reason: fmt.Sprintf("packet 0x%02x after the Encryption Response", id)}
}

// dialProbe connects from src; the whole probe has ProbeTimeout, or until ctx ends. done
// closes the connection.
func dialProbe(ctx context.Context, src netip.Addr, target string) (c *net.TCPConn, done func(), err error) {
	if c, err = dialFrom(ctx, src, target); err != nil {
		return nil, nil, err
	}
	c.SetDeadline(time.Now().Add(ProbeTimeout))
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	return c, func() { stop(); c.Close() }, nil
}

func readFrame(b []byte) ([]byte, int, error) { return mc.ReadFrame(b, mc.MaxFrameLen) }

// readPacket reads one frame and checks its packet id; it returns the fields.
func readPacket(r *bufio.Reader, want int32) ([]byte, error) {
	body, err := mc.ReadParsed(r, readFrame)
	if err != nil {
		return nil, err
	}
	id, fields, err := mc.PacketID(body)
	if err == nil && id != want {
		err = fmt.Errorf("packet 0x%02x, want 0x%02x", id, want)
	}
	return fields, err
}

// readString reads a protocol string (VarInt length, UTF-8).
func readString(b []byte) (string, error) {
	n, k, err := mc.ReadVarInt(b)
	if err != nil || n < 0 || int(n) > len(b)-k {
		return "", fmt.Errorf("flood: bad string in %d bytes", len(b))
	}
	return string(b[k : k+int(n)]), nil
}

// disconnectText is a Disconnect's reason, or what was wrong with it.
func disconnectText(fields []byte) string {
	s, err := readString(fields)
	if err != nil {
		return err.Error()
	}
	return s
}
