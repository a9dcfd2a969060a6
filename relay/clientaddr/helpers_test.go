package clientaddr

import (
	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

var unhex = testutil.Unhex

// protocolOffset is where a *mc.ProtocolError points, for testutil.CheckParseResult.
func protocolOffset(pe *mc.ProtocolError) int { return pe.Offset }

// A 1.8 client pinging localhost:25565, to follow a PROXY header.
var handshake18 = unhex("0f 00 2f 09 6c6f63616c686f7374 63dd 01")
