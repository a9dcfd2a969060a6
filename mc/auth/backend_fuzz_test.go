package auth_test

import (
	"bytes"
	"net"
	"testing"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
)

// scriptedBackend is a backend connection that says in, then ends; what is written to it is
// kept.
type scriptedBackend struct {
	net.Conn // nil: only Read and Write are used
	in       *bytes.Reader
	wrote    bytes.Buffer
}

func (b *scriptedBackend) Read(p []byte) (int, error)  { return b.in.Read(p) }
func (b *scriptedBackend) Write(p []byte) (int, error) { return b.wrote.Write(p) }

// FuzzAnswerVelocity feeds AnswerVelocity whatever a backend could send during its login: it
// returns an error or the bytes for the player, never panics, and answers only a request on
// Velocity's channel.
func FuzzAnswerVelocity(f *testing.F) {
	req := mc.AppendVarInt(nil, mc.LoginPluginRequestID)
	req = mc.AppendVarInt(req, 42)
	req = append(mc.AppendString(req, auth.VelocityChannel), 4)
	plain := append(mc.AppendVarInt(nil, int32(len(req))), req...)
	compression := mc.AppendFrame(nil, mc.SetCompressionID, mc.AppendVarInt(nil, 64))
	f.Add(plain)
	f.Add(append(compression, append(mc.AppendVarInt(nil, int32(len(req)+1)), append([]byte{0}, req...)...)...))
	f.Add(append(compression, 0x05, 0x10, 0x78, 0x9c, 0x03, 0x00)) // a compressed packet that lies about its size
	f.Add(mc.AppendFrame(nil, mc.LoginSuccessID, []byte("x")))
	shape, _, _ := mc.LoginShapeOf(767)
	f.Fuzz(func(t *testing.T, in []byte) {
		p := &auth.Player{Protocol: 767, Shape: shape, Profile: auth.OfflineProfile("Alex"), Address: "127.0.0.1"}
		b := &scriptedBackend{in: bytes.NewReader(in)}
		toPlayer, err := p.AnswerVelocity(b, []byte("k"))
		if err != nil && (toPlayer != nil || b.wrote.Len() > 0 && !bytes.Contains(in, []byte(auth.VelocityChannel))) {
			t.Fatalf("error %v with %d bytes for the player, %d answered", err, len(toPlayer), b.wrote.Len())
		}
		if b.wrote.Len() > 0 && !bytes.Contains(in, []byte(auth.VelocityChannel)) {
			t.Fatal("answered without a request on Velocity's channel")
		}
	})
}
