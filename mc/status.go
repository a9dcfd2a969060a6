package mc

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
)

// What the proxy sends on its own when no backend answers:
//
//	status response  len 00 String(JSON)     JSON below, at most 32767 chars
//	pong             09 01 <8-byte payload>  echoes the client's ping
//	login disconnect len 00 String(JSON)     {"text":"reason"}; login is
//	                                         still JSON text in 1.20.3+
//
// The status JSON, as clients since 1.7 read it:
//
//	{"version":{"name":"moonbridge","protocol":767},
//	 "players":{"max":100,"online":0},
//	 "description":{"text":"§cServer is restarting"},
//	 "favicon":"data:image/png;base64,iVBORw0..."}

// Status is what the server list shows.
type Status struct {
	VersionName   string // shown in place of the player count when Protocol differs from the client's
	Protocol      int32  // echo the handshake's protocol to look compatible
	MaxPlayers    int
	OnlinePlayers int
	MOTD          string // plain text; § formatting codes work in every version
	Favicon       string // a FaviconDataURL result, or "" for none
}

// maxStatusChars is the vanilla client's limit on the status JSON string.
const maxStatusChars = 32767

// ErrFavicon means a favicon is not a 64x64 PNG, the only kind clients show.
var ErrFavicon = errors.New("mc: favicon must be a 64x64 PNG")

// FaviconDataURL checks that png is a 64x64 PNG image and returns it as the
// data URL the status JSON carries.
func FaviconDataURL(pngData []byte) (string, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(pngData))
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrFavicon, err)
	}
	if cfg.Width != 64 || cfg.Height != 64 {
		return "", fmt.Errorf("%w: got %dx%d", ErrFavicon, cfg.Width, cfg.Height)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngData), nil
}

type statusJSON struct {
	Version struct {
		Name     string `json:"name"`
		Protocol int32  `json:"protocol"`
	} `json:"version"`
	Players struct {
		Max    int `json:"max"`
		Online int `json:"online"`
	} `json:"players"`
	Description textComponent `json:"description"`
	Favicon     string        `json:"favicon,omitempty"`
}

type textComponent struct {
	Text string `json:"text"`
}

// JSON renders the status response JSON. It fails with ErrTooLarge when the
// result exceeds what clients accept, which in practice means the favicon is
// too big; render once and reuse the bytes.
func (s Status) JSON() ([]byte, error) {
	var j statusJSON
	j.Version.Name, j.Version.Protocol = s.VersionName, s.Protocol
	j.Players.Max, j.Players.Online = s.MaxPlayers, s.OnlinePlayers
	j.Description.Text = s.MOTD
	j.Favicon = s.Favicon
	out, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	if utf16Len(string(out)) > maxStatusChars {
		return nil, protocolError("status", maxStatusChars, ErrTooLarge)
	}
	return out, nil
}

// AppendStatusResponse appends the status response frame carrying
// statusJSON, as rendered by Status.JSON.
func AppendStatusResponse(dst, statusJSON []byte) []byte {
	return appendStringPacket(dst, 0x00, statusJSON)
}

// AppendLoginDisconnect appends the login-state disconnect frame that shows
// reason to a joining player, such as "Server unavailable, try again soon".
func AppendLoginDisconnect(dst []byte, reason string) []byte {
	text, _ := json.Marshal(textComponent{Text: reason}) // cannot fail for a string field
	return appendStringPacket(dst, 0x00, text)
}

// AppendPong appends the pong frame answering a ping with payload.
func AppendPong(dst []byte, payload [8]byte) []byte {
	dst = append(dst, byte(1+len(payload)), pingPacketID)
	return append(dst, payload[:]...)
}

// appendStringPacket appends a frame whose body is id and one String.
func appendStringPacket(dst []byte, id int32, s []byte) []byte {
	start := len(dst)
	dst = AppendVarInt(dst, id)
	dst = AppendVarInt(dst, int32(len(s)))
	dst = append(dst, s...)
	return prefixLength(dst, start)
}
