package bytesize

import "testing"

func TestRoundTrip(t *testing.T) {
	for text, want := range map[string]Size{"65536": 64 << 10, "64KiB": 64 << 10, "16MiB": 16 << 20, "1GiB": 1 << 30, "7B": 7} {
		var s Size
		if err := s.UnmarshalText([]byte(text)); err != nil || s != want {
			t.Errorf("%q: got %d, %v; want %d", text, s, err, want)
		}
		back, _ := s.MarshalText()
		var again Size
		if err := again.UnmarshalText(back); err != nil || again != s {
			t.Errorf("%q: round trip through %q gave %d", text, back, again)
		}
	}
	for _, bad := range []string{"", "-1", "12XB", "1.5MiB"} {
		var s Size
		if err := s.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}
