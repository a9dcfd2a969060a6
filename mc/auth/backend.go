package auth

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/moonbridge/moonbridge/mc"
)

// BackendHello is what the backend gets first: the handshake (to host; with BungeeCord's
// forwarding the host field carries the player's address and profile, and a modded client's
// suffix is left out, since the backend splits the field at every NUL) and Login Start.
func (p *Player) BackendHello(hs mc.Handshake, host string, fwd Forwarding) []byte {
	if fwd == ForwardBungeeCord {
		hs.HostSuffix = ""
		host = BungeeHost(host, p.Address, p.Profile)
	}
	return append(hs.AppendFrame(nil, host), p.StartFrame...)
}

// maxLoginPacket bounds a decompressed login packet from the backend.
const maxLoginPacket = mc.MaxFrameLen

// AnswerVelocity reads the backend's login frames until its velocity:player_info request,
// answers it with the data signed with secret, and returns what the backend sent for the player
// meanwhile (Set Compression, other frames, whatever came behind the request), to be relayed
// to the player. The caller sets the connection's deadline.
func (p *Player) AnswerVelocity(backend net.Conn, secret []byte) (toPlayer []byte, err error) {
	fr := mc.NewFrameReader(backend, 4096)
	compressed := false
	for {
		frame, body, ok, err := fr.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			if err := fr.Fill(); err != nil {
				return nil, fmt.Errorf("the backend's login: %w", err)
			}
			continue
		}
		id, fields, err := packetOf(body, compressed)
		if err != nil {
			return nil, err
		}
		switch id {
		case mc.SetCompressionID:
			threshold, err := mc.ParseSetCompression(fields)
			if err != nil {
				return nil, err
			}
			compressed = threshold >= 0
		case mc.LoginPluginRequestID:
			req, err := mc.ParsePluginRequest(fields)
			if err != nil {
				return nil, err
			}
			if req.Channel == VelocityChannel {
				answer := mc.AppendPluginResponseBody(nil, req.MessageID,
					VelocityData(secret, req.Data, p.Address, p.Profile, p.Protocol, p.Start))
				if _, err := backend.Write(appendFrame(nil, answer, compressed)); err != nil {
					return nil, err
				}
				return append(toPlayer, fr.Buffered()...), nil
			}
		case mc.LoginSuccessID:
			return nil, ErrNoVelocityAsk
		case mc.LoginDisconnectID: // the backend's reason goes to the player; the session ends after it
			return append(append(toPlayer, frame...), fr.Buffered()...), nil
		}
		toPlayer = append(toPlayer, frame...)
	}
}

// packetOf is the packet id and fields of a frame body; once compression is on, a body starts
// with the uncompressed length (0: not compressed) and the rest is zlib when that is not 0.
func packetOf(body []byte, compressed bool) (int32, []byte, error) {
	if !compressed {
		return mc.PacketID(body)
	}
	size, n, err := mc.ReadVarInt(body)
	switch {
	case err != nil:
		return 0, nil, err
	case size == 0:
		return mc.PacketID(body[n:])
	case size < 0 || size > maxLoginPacket:
		return 0, nil, errors.New("the backend's compressed packet has a bad size")
	}
	zr, err := zlib.NewReader(bytes.NewReader(body[n:]))
	if err != nil {
		return 0, nil, fmt.Errorf("the backend's compressed packet: %w", err)
	}
	packet, err := io.ReadAll(io.LimitReader(zr, int64(size)))
	if err != nil || len(packet) != int(size) {
		return 0, nil, fmt.Errorf("the backend's compressed packet does not inflate to its size: %v", err)
	}
	return mc.PacketID(packet)
}

// appendFrame frames a packet body, in the compressed format (uncompressed, data length 0) once
// compression is on; vanilla takes uncompressed packets of any size.
func appendFrame(dst, body []byte, compressed bool) []byte {
	if !compressed {
		return append(mc.AppendVarInt(dst, int32(len(body))), body...)
	}
	dst = mc.AppendVarInt(dst, int32(len(body)+1))
	return append(append(dst, 0), body...)
}
