package mc

import "bufio"

// Answer is what a proxy tells a client by itself when it does not pass the client on to a
// server: the server list shows Status (and its ping gets a pong), a pre-1.7 legacy ping gets
// Status as a kick, and a login gets Disconnect as its reason. Which words to say, and when, is
// the caller's: the relay's fallback, the client bridge's failed dial.
type Answer struct {
	Status     Status
	Disconnect string
}

// Serve answers a client whose first bytes were hello, in the form hello asks for; r holds what
// the client sends next, and send writes one answer frame. Status.Protocol is set to the
// client's own protocol, so the entry does not show as incompatible. A status exchange ends
// after the ping's pong, or after two packets: a client sends the request and the ping once
// each. A read error, io.EOF included, is returned as is.
func (a Answer) Serve(r *bufio.Reader, hello Hello, send func(frame []byte) error) error {
	status := a.Status
	switch {
	case hello.Legacy != nil:
		status.Protocol = int32(hello.Legacy.Protocol)
		return send(AppendLegacyKick(nil, hello.Legacy.Form, status))
	case hello.Handshake.NextState == NextStatus:
		status.Protocol = hello.Handshake.Protocol
		return serveStatus(r, status, send)
	}
	return send(AppendLoginDisconnect(nil, a.Disconnect))
}

// serveStatus answers the status request with status and the ping with its pong.
func serveStatus(r *bufio.Reader, status Status, send func([]byte) error) error {
	body, err := status.JSON()
	if err != nil {
		return err
	}
	return ServeStatusJSON(r, body, send)
}

// ServeStatusJSON answers a client in the status state, whose handshake was read already, with
// body as its status response (a server's own answer, as ParseStatusResponse returns it) and
// its ping with the pong, as Serve does.
func ServeStatusJSON(r *bufio.Reader, body []byte, send func([]byte) error) error {
	for range 2 {
		packet, err := ReadStatusPacket(r)
		if err != nil {
			return err
		}
		if packet.Ping {
			return send(AppendPong(nil, packet.Payload))
		}
		if err := send(AppendStatusResponse(nil, body)); err != nil {
			return err
		}
	}
	return nil
}
