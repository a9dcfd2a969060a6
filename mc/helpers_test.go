package mc

import "github.com/moonbridge/moonbridge/internal/testutil"

var unhex = testutil.Unhex

// protocolOffset is where a *ProtocolError points, for testutil.CheckParseResult.
func protocolOffset(pe *ProtocolError) int { return pe.Offset }
