package playtest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"testing"

	"github.com/moonbridge/moonbridge/bench/modern"
	"github.com/moonbridge/moonbridge/mc"
)

// The tests here play the server (a draining proxy) by hand, packet by packet, over loopback
// TCP rather than a net.Pipe: the player answers keep-alives while the server writes, which an
// unbuffered pipe would deadlock.

// handServer is the server's end of a connection whose client end joins as "Alex" (with next
// state 3 when cookies are given); serve runs on it after the handshake and Login Start were
// read, its error fails the test, and the server's end is closed (finish) when it returns.
func handServer(t *testing.T, cookies map[string][]byte, serve func(c *modern.Conn, l Login) error) (*Client, error) {
	t.Helper()
	server, client := tcpPair(t)
	done := make(chan error, 1)
	go func() {
		defer finish(server)
		c := modern.NewConn(server, mc.NewFrameReader(server, 4<<10))
		hs, err := modern.ReadHandshake(c)
		var l Login
		if err == nil {
			l, err = modern.ReadLoginStart(c, hs)
		}
		if err == nil {
			err = serve(c, l)
		}
		done <- err
	}()
	t.Cleanup(func() {
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	next := modern.NextLogin
	if cookies != nil {
		next = modern.NextTransfer
	}
	c, err := Join(client, "localhost", 25565, "Alex", next, cookies)
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

// finish ends the server's side as the player sees it, with everything sent read first: a
// close with the player's bytes unread would reset the connection instead.
func finish(server net.Conn) {
	server.(*net.TCPConn).CloseWrite()
	io.Copy(io.Discard, server)
	server.Close()
}

// tcpPair is both ends of a loopback TCP connection.
func tcpPair(t *testing.T) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client = dial(t, ln.Addr().String())
	if server, err = ln.Accept(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close(); client.Close() })
	return server, client
}

// welcomed is a serve that takes the player to play, then sends packets.
func welcomed(compression int32, packets ...[2]any) func(*modern.Conn, Login) error {
	return func(c *modern.Conn, l Login) error {
		if err := modern.Welcome(c, l, compression); err != nil {
			return err
		}
		for _, p := range packets {
			if err := c.WritePacket(p[0].(int32), p[1].([]byte)); err != nil {
				return err
			}
		}
		return nil
	}
}

func packet(id int32, fields []byte) [2]any { return [2]any{id, fields} }

func TestAwaitTransferInPlay(t *testing.T) {
	for _, threshold := range []int32{-1, 0, 256} {
		blob := bytes.Repeat([]byte{0xa5}, 300)
		c, err := handServer(t, nil, welcomed(threshold,
			packet(modern.PlayStoreCookieID, modern.StoreCookieFields("moonbridge:transfer", blob)),
			packet(modern.PlayTransferID, modern.TransferFields("10.0.0.2", 25570))))
		if err != nil {
			t.Fatal(err)
		}
		tr, err := c.AwaitTransfer(context.Background())
		if err != nil || tr.Host != "10.0.0.2" || tr.Port != 25570 || tr.State != modern.StatePlay ||
			len(tr.Cookies) != 1 || !bytes.Equal(tr.Cookies["moonbridge:transfer"], blob) {
			t.Errorf("threshold %d: AwaitTransfer = %+v, %v", threshold, tr, err)
		}
	}
}

// A server may take a player back to configuration (Start Configuration, acknowledged) and
// transfer it from there.
func TestAwaitTransferInConfiguration(t *testing.T) {
	c, err := handServer(t, nil, func(c *modern.Conn, l Login) error {
		if err := welcomed(256, packet(modern.PlayReconfigureID, nil))(c, l); err != nil {
			return err
		}
		if err := expectPacket(c, modern.PlayReconfigureAckID); err != nil {
			return err
		}
		c.WritePacket(modern.ConfigStoreCookieID, modern.StoreCookieFields("k", []byte{1}))
		return c.WritePacket(modern.ConfigTransferID, modern.TransferFields("example.net", 25565))
	})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := c.AwaitTransfer(context.Background())
	if err != nil || tr.Host != "example.net" || tr.State != modern.StateConfiguration || tr.Cookies["k"][0] != 1 {
		t.Errorf("AwaitTransfer = %+v, %v", tr, err)
	}
}

func TestDisconnectAndStreamEndAreTold(t *testing.T) {
	reason, _ := modern.DisconnectFields("Server closed: été \x00 😀")
	c, err := handServer(t, nil, welcomed(-1, packet(modern.PlayDisconnectID, reason)))
	if err != nil {
		t.Fatal(err)
	}
	var de *DisconnectError
	if _, err := c.AwaitTransfer(context.Background()); !errors.As(err, &de) || de.Reason != "Server closed: été \x00 😀" || de.State != modern.StatePlay {
		t.Errorf("disconnect: %v", err)
	}

	c, err = handServer(t, nil, welcomed(-1)) // then the server's end is closed
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.AwaitTransfer(context.Background())
	var se *StreamEndError
	if !errors.As(err, &se) || errors.As(err, &de) {
		t.Errorf("stream end: %v", err)
	}
}

func TestEchoRunsIntoTheTransfer(t *testing.T) {
	c, err := handServer(t, nil, func(c *modern.Conn, l Login) error {
		if err := modern.Welcome(c, l, -1); err != nil {
			return err
		}
		if err := expectPacket(c, modern.PlayPluginMessageUpID); err != nil {
			return err
		}
		return c.WritePacket(modern.PlayTransferID, modern.TransferFields("127.0.0.1", 1))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Echo([]byte("hi")); !errors.Is(err, modern.ErrTransferred) {
		t.Fatalf("Echo = %v", err)
	}
	if tr, err := c.AwaitTransfer(context.Background()); err != nil || tr.Port != 1 {
		t.Errorf("AwaitTransfer = %+v, %v", tr, err)
	}
}

func TestBadTransferIsAProtocolError(t *testing.T) {
	bad := mc.AppendVarInt(mc.AppendString(nil, "h"), 70000) // no such port
	c, err := handServer(t, nil, welcomed(-1, packet(modern.PlayTransferID, bad)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AwaitTransfer(context.Background()); !errors.As(err, new(*modern.ProtocolError)) {
		t.Errorf("AwaitTransfer = %v", err)
	}
}

// After a transfer the new server asks for the cookie in the login state: the player answers
// with what it was given, and says it has none of another key.
func TestJoinAfterTransferAnswersCookieRequests(t *testing.T) {
	cookies := map[string][]byte{"moonbridge:transfer": []byte("signed blob")}
	_, err := handServer(t, cookies, func(c *modern.Conn, l Login) error {
		if l.NextState != modern.NextTransfer {
			return errors.New("next state is not transfer")
		}
		for key, want := range map[string][]byte{"moonbridge:transfer": cookies["moonbridge:transfer"], "other:key": nil} {
			c.WritePacket(modern.LoginCookieRequestID, modern.CookieRequestFields(key))
			id, fields, err := c.ReadPacket()
			if err != nil {
				return err
			}
			if id != modern.LoginCookieResponseID || !bytes.Equal(fields, cookieResponse(key, want)) {
				return errors.New("bad cookie response to " + key)
			}
		}
		return modern.Welcome(c, l, 256)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// cookieResponse is what a Cookie Response's fields must be: key, present, [value].
func cookieResponse(key string, value []byte) []byte {
	b := mc.AppendString(nil, key)
	if value == nil {
		return append(b, 0)
	}
	return append(mc.AppendVarInt(append(b, 1), int32(len(value))), value...)
}

func expectPacket(c *modern.Conn, want int32) error {
	for {
		id, _, err := c.ReadPacket()
		if err != nil || id == want {
			return err
		}
	}
}
