//go:build boringssl && cgo

package gossl

import (
	"context"
	"net"
	"testing"
	"time"
)

// A client stalled inside its ClientHello holds the handshake's read buffer, not also an output
// buffer: the memory a flood of stalls costs is the read buffer and the engine.
func TestBoringHandshakeWaitingForTheClientHoldsNoOutputBuffer(t *testing.T) {
	p, err := boringProvider()
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, p, testConfig(t), func(c Conn) { _ = c.HandshakeContext(context.Background()) })
	reads, outs := readPool.Stats().Out, bufPools[0].Stats().Out
	conn, err := net.Dial("tcp", ts.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A handshake record header announcing 512 bytes, and the first bytes of a ClientHello.
	conn.Write([]byte{0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03})
	deadline := time.Now().Add(testTimeout)
	for readPool.Stats().Out == reads && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // the engine has run on what came and waits for more
	if readPool.Stats().Out != reads+1 {
		t.Fatalf("read buffers out: %d, want %d: the handshake did not start reading", readPool.Stats().Out, reads+1)
	}
	if got := bufPools[0].Stats().Out; got != outs {
		t.Errorf("output buffers out while the handshake waits for the rest of the ClientHello: %d more, want none", got-outs)
	}
}
