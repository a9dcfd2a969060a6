package login

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/moonbridge/moonbridge/bench/modern"
	"github.com/moonbridge/moonbridge/mc"
)

// Protocol is Minecraft 1.7.10's protocol number, the version of the modpack whose traffic the
// modded profile imitates (docs/design.md, "Where this comes from").
const Protocol = 5

// Packet ids the login uses (1.7.10 numbering).
const (
	idLoginStart    = 0x00 // serverbound, login state
	idLoginSuccess  = 0x02 // clientbound, login state
	idJoinGame      = 0x01 // clientbound, play
	idServerPosLook = 0x08 // clientbound S08
	idClientPosLook = 0x06 // serverbound C06
	maxNameBytes    = 16
)

// AppendRequest appends what a joining client sends first: the handshake with next state login,
// then Login Start with the player's name.
func AppendRequest(dst []byte, host string, port uint16, name string) []byte {
	hs := mc.Handshake{Protocol: Protocol, Port: port, NextState: mc.NextLogin}
	dst = hs.AppendFrame(dst, host)
	return mc.AppendFrame(dst, idLoginStart, mc.AppendString(nil, name))
}

// AppendAnswer appends the backend's whole answer to a login: Login Success with the offline
// UUID, Join Game and the spawn position. It is fixed for a name, so the client checks it byte
// for byte.
func AppendAnswer(dst []byte, name string) []byte {
	fields := mc.AppendString(nil, offlineUUID(name))
	fields = mc.AppendString(fields, name)
	dst = mc.AppendFrame(dst, idLoginSuccess, fields)
	dst = mc.AppendFrame(dst, idJoinGame, joinGameFields())
	return mc.AppendFrame(dst, idServerPosLook, positionFields(nil, false))
}

// AppendPositionConfirm appends the client's C06 Position And Look answering S08; the backend
// starts the login burst when it arrives.
func AppendPositionConfirm(dst []byte) []byte {
	return mc.AppendFrame(dst, idClientPosLook, positionFields(nil, true))
}

// joinGameFields: entity id, survival, overworld, easy, 20 players, level type "default".
func joinGameFields() []byte {
	f := binary.BigEndian.AppendUint32(nil, 1)
	f = append(f, 0, 0, 1, 20)
	return mc.AppendString(f, "default")
}

// positionFields is the spawn point both S08 and C06 carry; the client's C06 adds the head
// height (stance) that 1.7.10 sends serverbound only.
func positionFields(dst []byte, withStance bool) []byte {
	for _, v := range []float64{8.5, 65, 8.5} {
		dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(v))
	}
	if withStance {
		dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(66.62))
	}
	dst = binary.BigEndian.AppendUint32(dst, math.Float32bits(0)) // yaw
	dst = binary.BigEndian.AppendUint32(dst, math.Float32bits(0)) // pitch
	return append(dst, 1)                                         // on ground
}

// offlineUUID is vanilla's offline-mode player UUID as 1.7.10's Login Success writes it.
func offlineUUID(name string) string {
	h := modern.OfflineUUID(name)
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}
