package modern

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/moonbridge/moonbridge/mc"
)

// clientReadBuffer is a player's first read buffer; it grows for larger frames.
const clientReadBuffer = 4 << 10

// Client is a player that joined: in play, answering keep-alives, pings and cookie requests on
// its own, and showing the test what else the server sent through Echo and AwaitTransfer. Its
// methods are for one goroutine, except Close.
type Client struct {
	rwc     io.ReadWriteCloser
	conn    *Conn
	ids     *commonIDs // the state: configuration or play
	cookies map[string][]byte
	stored  map[string][]byte // Store Cookies since the join

	events  chan event // from the reader goroutine once in play; closed after the last
	closing chan struct{}
	once    sync.Once
	done    chan struct{} // the reader goroutine returned
	last    *event        // the transfer or end Echo ran into, for AwaitTransfer
}

// Join logs in over rwc as name, with the handshake naming host and port and asking for next
// (NextLogin, or NextTransfer after a Transfer), answers Cookie Requests from cookies (nil:
// none) and returns once the first play packet arrived. It returns a *DisconnectError when
// refused, an *EncryptionRequestError from an online-mode server, ErrTransferred when moved
// before play, a *StreamEndError when the stream ended and a *ProtocolError for bytes it
// refuses; the caller closes rwc then. To bound it, set a deadline on rwc or close it.
func Join(rwc io.ReadWriteCloser, host string, port uint16, name string, next int32, cookies map[string][]byte) (*Client, error) {
	c := newClient(rwc, cookies)
	if err := c.logIn(host, port, name, next); err != nil {
		return nil, err
	}
	if err := c.untilPlay(); err != nil {
		return nil, err
	}
	c.startReader()
	return c, nil
}

// LogIn is Join's first part alone: it writes the handshake and Login Start (next state login,
// no cookies) and returns once Login Success was read and acknowledged, with Join's errors of
// the login state. The caller closes rwc; the server's configuration is never read.
func LogIn(rwc io.ReadWriteCloser, host string, port uint16, name string) error {
	return newClient(rwc, nil).logIn(host, port, name, NextLogin)
}

func newClient(rwc io.ReadWriteCloser, cookies map[string][]byte) *Client {
	return &Client{
		rwc: rwc, conn: NewConn(rwc, mc.NewFrameReader(rwc, clientReadBuffer)), ids: configuration,
		cookies: cookies, stored: map[string][]byte{},
	}
}

// logIn sends the handshake and Login Start and runs the login state.
func (c *Client) logIn(host string, port uint16, name string, next int32) error {
	hs := Handshake{Protocol: Protocol, Host: host, Port: port, NextState: next}
	if err := c.conn.WritePacket(HandshakeID, hs.Fields()); err != nil {
		return &StreamEndError{State: StateLogin, Err: err}
	}
	uuid := OfflineUUID(name)
	if err := c.conn.WritePacket(LoginStartID, append(mc.AppendString(nil, name), uuid[:]...)); err != nil {
		return &StreamEndError{State: StateLogin, Err: err}
	}
	return c.login()
}

// login reads the login state up to Login Success and acknowledges it.
func (c *Client) login() error {
	for {
		id, fields, err := c.conn.ReadPacket()
		if err != nil {
			return ended(StateLogin, err)
		}
		done, err := c.loginPacket(id, fields)
		if err != nil || done {
			return err
		}
	}
}

// loginPacket handles one login packet; done is Login Success, acknowledged.
func (c *Client) loginPacket(id int32, fields []byte) (done bool, err error) {
	f := readFields(StateLogin, "login", fields)
	switch id {
	case LoginDisconnectID:
		f.packet = "disconnect"
		reason := f.string()
		return false, orDone(f, &DisconnectError{Reason: reason, State: StateLogin})
	case LoginEncryptionID:
		f.packet = "encryption request"
		e := &EncryptionRequestError{ServerID: f.string(), PublicKey: f.byteArray(), VerifyToken: f.byteArray(), ShouldAuthenticate: f.bool()}
		return false, orDone(f, e)
	case LoginCompressionID:
		f.packet = "set compression"
		threshold := f.varInt()
		if err := f.done(); err != nil {
			return false, err
		}
		c.conn.SetCompression(threshold)
		return false, nil
	case LoginPluginRequestID: // a login plugin this player does not speak: "not understood"
		f.packet = "login plugin request"
		msgID := f.varInt()
		f.string()
		f.take(len(f.b)) // the request's data
		if err := f.done(); err != nil {
			return false, err
		}
		return false, c.send(StateLogin, LoginPluginResponseID, appendBool(mc.AppendVarInt(nil, msgID), false))
	case LoginCookieRequestID:
		return false, c.answerCookie(StateLogin, LoginCookieResponseID, fields)
	case LoginSuccessID:
		return true, c.loginSuccess(fields)
	}
	return false, &ProtocolError{State: StateLogin, Packet: "login", Err: fmt.Errorf("%w %#x", errUnexpectedID, id)}
}

// orDone is err, or the fault reading the packet that carried it.
func orDone(f *fieldReader, err error) error {
	if ferr := f.done(); ferr != nil {
		return ferr
	}
	return err
}

func (c *Client) loginSuccess(fields []byte) error {
	f := readFields(StateLogin, "login success", fields)
	f.uuid()
	f.string()
	for range f.length(1 << 10) { // properties: name, value, optional signature
		f.string()
		f.string()
		if f.bool() {
			f.string()
		}
	}
	f.bool() // strict error handling
	if err := f.done(); err != nil {
		return err
	}
	return c.send(StateLogin, LoginAcknowledgedID, nil)
}

// answerCookie answers a Cookie Request from the cookies Join was given.
func (c *Client) answerCookie(state string, responseID int32, fields []byte) error {
	key, err := parseKey(state, fields)
	if err != nil {
		return err
	}
	value, ok := c.cookies[key]
	return c.send(state, responseID, cookieResponseFields(key, value, ok))
}

// send writes a packet; a failed write is the stream ending.
func (c *Client) send(state string, id int32, fields []byte) error {
	if err := c.conn.WritePacket(id, fields); err != nil {
		return &StreamEndError{State: state, Err: err}
	}
	return nil
}

// untilPlay runs the configuration state and returns once a play packet arrived.
func (c *Client) untilPlay() error {
	for {
		inPlay := c.ids == play
		switch ev := c.step(); {
		case ev.kind == evTransfer:
			return ErrTransferred
		case ev.kind == evEnd:
			return ev.err
		case inPlay:
			return nil
		}
	}
}

// ended is the error for a read that failed: the bytes refused, or the stream's end.
func ended(state string, err error) error {
	if errors.As(err, new(*ProtocolError)) || errors.As(err, new(*mc.ProtocolError)) {
		return err
	}
	return &StreamEndError{State: state, Err: err}
}
