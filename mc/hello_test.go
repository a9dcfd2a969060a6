package mc

import "testing"

func TestHelloIsPing(t *testing.T) {
	for _, tc := range []struct {
		hello Hello
		want  bool
	}{
		{Hello{Legacy: &LegacyPing{}}, true},
		{Hello{Handshake: Handshake{NextState: NextStatus}}, true},
		{Hello{Handshake: Handshake{NextState: NextLogin}}, false},
	} {
		if got := tc.hello.IsPing(); got != tc.want {
			t.Errorf("%+v: IsPing %v, want %v", tc.hello, got, tc.want)
		}
	}
}
