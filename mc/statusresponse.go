package mc

import (
	"encoding/json"
	"errors"
)

// The other side of a status exchange, what a proxy's health check does with a server:
//
//	handshake        next state 1 (status)
//	status request   01 00                    sent by AppendStatusRequest
//	status response  len 00 String(JSON)      read by ParseStatusResponse
//
// A server that answers with a status JSON a client would show is up; anything else is not.

// maxStatusBytes is the status JSON's limit in UTF-8 bytes: 3 per BMP character.
const maxStatusBytes = 3 * maxStatusChars

// ErrStatusJSON means a status response does not carry a JSON object with a "version" object,
// which every client needs to show the entry.
var ErrStatusJSON = errors.New("status response is not a JSON object with a version")

// AppendStatusRequest appends the status request frame a client sends after a status handshake.
func AppendStatusRequest(dst []byte) []byte {
	return append(dst, 0x01, statusRequestID)
}

// ParseStatusResponse checks a status response frame body (packet id and fields, as ReadFrame
// returns it) and returns its JSON.
func ParseStatusResponse(body []byte) ([]byte, error) {
	c := newCursor(body, 0, len(body), "status response")
	c.packetID(statusRequestID) // the response has the request's id
	text := c.utf8String(maxStatusBytes, ErrTooLarge)
	c.end()
	if c.err != nil {
		return nil, c.err
	}
	var status struct {
		Version *struct {
			Name string `json:"name"`
		} `json:"version"`
	}
	if err := json.Unmarshal([]byte(text), &status); err != nil || status.Version == nil {
		return nil, protocolError("status response", 1, ErrStatusJSON)
	}
	return []byte(text), nil
}
