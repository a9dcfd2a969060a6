package modern

import (
	"maps"
)

// What the reader hands on from the configuration and play states; the rest it answers itself.
type eventKind uint8

const (
	evNone     eventKind = iota // handled: a keep-alive, a ping, a cookie asked or stored, ...
	evEcho                      // a test:echo plugin message's data
	evTransfer                  // a Transfer, with the cookies stored before it
	evEnd                       // a Disconnect, the stream's end or bytes refused: err says which
)

type event struct {
	kind     eventKind
	data     []byte
	transfer Transfer
	err      error
}

func endEvent(err error) event { return event{kind: evEnd, err: err} }

// step reads and handles one packet of the configuration or play state.
func (c *Client) step() event {
	id, fields, err := c.conn.ReadPacket()
	if err != nil {
		return endEvent(ended(c.ids.state, err))
	}
	s := c.ids
	switch id {
	case s.keepAlive:
		return c.answerSame(s.state, "keep alive", s.keepAliveUp, fields, 8)
	case s.ping:
		return c.answerSame(s.state, "ping", s.pong, fields, 4)
	case s.cookieRequest:
		return endOn(c.answerCookie(s.state, s.cookieResponse, fields))
	case s.storeCookie:
		key, value, err := parseStoreCookie(s.state, fields)
		if err != nil {
			return endEvent(err)
		}
		c.stored[key] = value
	case s.transfer:
		host, port, err := parseTransfer(s.state, fields)
		if err != nil {
			return endEvent(err)
		}
		return event{kind: evTransfer, transfer: Transfer{Host: host, Port: port, Cookies: maps.Clone(c.stored), State: s.state}}
	case s.disconnect:
		return c.disconnect(s.state, fields)
	case s.pluginMessage:
		return c.pluginMessage(s.state, fields)
	case s.switchState: // Finish Configuration, or Start Configuration in play
		c.ids = s.other()
		return endOn(c.send(s.state, s.switchAck, nil))
	}
	return event{} // registry data, chunks, ...: nothing this player needs
}

// endOn is the end for err, or nothing.
func endOn(err error) event {
	if err != nil {
		return endEvent(err)
	}
	return event{}
}

// answerSame answers a keep-alive or a ping: the same size-byte id back, under id.
func (c *Client) answerSame(state, packet string, id int32, fields []byte, size int) event {
	if len(fields) != size {
		return endEvent(&ProtocolError{State: state, Packet: packet, Err: errTruncated})
	}
	return endOn(c.send(state, id, fields))
}

func (c *Client) disconnect(state string, fields []byte) event {
	f := readFields(state, "disconnect", fields)
	reason := f.nbtText()
	return endEvent(orDone(f, &DisconnectError{Reason: reason, State: state}))
}

// pluginMessage hands on test:echo's data; other channels (the server's brand) pass.
func (c *Client) pluginMessage(state string, fields []byte) event {
	channel, data, err := parsePluginMessage(state, fields)
	switch {
	case err != nil:
		return endEvent(err)
	case channel != EchoChannel:
		return event{}
	}
	return event{kind: evEcho, data: append([]byte{}, data...)}
}
