package play

import (
	"bytes"
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/mc"
)

// step is one frame of a recorded stream and what the tracker should say after it.
type step struct {
	frame   []byte
	state   State
	movable bool
}

// recordedStream is a session as a 1.20.5 server sends it: a login with a plugin request and
// compression, configuration, play with a bundle, back to configuration (with a Start
// Configuration compressed although it is tiny) and play again. big sizes the large packets.
func recordedStream(big int) []step {
	const threshold = 256
	profile := append(bytes.Repeat([]byte{0xab}, 16), mc.AppendString(nil, "Steve")...)
	profile = append(profile, 1) // one property: a skin, large enough to be compressed
	profile = append(mc.AppendString(mc.AppendString(profile, "textures"), string(bytes.Repeat([]byte("eyJ0"), 200))), 0)
	profile = append(profile, 1) // strict error handling
	return []step{
		{frame(packet{mc.LoginPluginRequestID, append(varInts(7), mc.AppendString(nil, "velocity:player_info")...)}, -1), Login, false},
		{frame(packet{mc.SetCompressionID, varInts(threshold)}, -1), Login, false},
		{frame(packet{mc.LoginSuccessID, profile}, threshold), Configuration, true},
		{frame(packet{configKeepAlive, make([]byte, 8)}, threshold), Configuration, true},
		{frame(packet{0x07, noise(big)}, threshold), Configuration, true}, // registry data
		{frame(packet{configFinish, nil}, threshold), Play, true},
		{frame(packet{0x2B, noise(big)}, threshold), Play, true}, // login (play)
		{frame(packet{playBundle, nil}, threshold), Play, false},
		{frame(packet{0x01, make([]byte, 40)}, threshold), Play, false}, // spawn entity
		{frame(packet{0x58, noise(300)}, threshold), Play, false},       // entity metadata
		{frame(packet{playBundle, nil}, threshold), Play, true},
		{frame(packet{playChunk, noise(4 * big)}, threshold), Play, true},
		{frame(packet{playStartConfig, nil}, 0), Configuration, true}, // zlib, data length 1
		{frame(packet{configKeepAlive, make([]byte, 8)}, threshold), Configuration, true},
		{frame(packet{configFinish, nil}, threshold), Play, true},
		{frame(packet{playChunk, noise(big)}, threshold), Play, true},
	}
}

func concat(steps []step) []byte {
	var b []byte
	for _, s := range steps {
		b = append(b, s.frame...)
	}
	return b
}

func TestTrackerRecordedStream(t *testing.T) {
	for _, big := range []int{100, 5000, 200000} {
		tr := newTracker(t)
		for i, s := range recordedStream(big) {
			feedAll(t, tr, s.frame)
			if tr.State() != s.state || tr.Movable() != s.movable {
				t.Errorf("big %d, frame %d: state %v, movable %v; want %v, %v", big, i, tr.State(), tr.Movable(), s.state, s.movable)
			}
		}
		if tr.Threshold() != 256 || tr.Err() != nil || tr.Ended() {
			t.Errorf("big %d: threshold %d, err %v, ended %v; want 256, nil, false", big, tr.Threshold(), tr.Err(), tr.Ended())
		}
		if cap(tr.head) > headCap {
			t.Errorf("big %d: head buffer grew to %d bytes, over %d", big, cap(tr.head), headCap)
		}
	}
}

// outcome is what feeding a stream in some chunking gives: the offsets where Feed with stop
// stopped, and the tracker's final word.
type outcome struct {
	stops     []int
	state     State
	threshold int32
	movable   bool
	err       string
}

// feedChunks feeds stream in the chunks cuts make (ascending offsets), with stop, as a relay
// does: after each stop it feeds the rest of the chunk.
func feedChunks(t testing.TB, stream []byte, cuts []int) outcome {
	tr := newTracker(t)
	var o outcome
	prev := 0
	for _, end := range append(cuts, len(stream)) {
		for chunk := stream[prev:end]; len(chunk) > 0; {
			n, err := tr.Feed(chunk, true)
			if err != nil {
				o.err = err.Error()
				break
			}
			if n < len(chunk) || tr.Movable() {
				o.stops = append(o.stops, end-len(chunk)+n)
			}
			chunk = chunk[n:]
		}
		prev = end
	}
	o.state, o.threshold, o.movable = tr.State(), tr.Threshold(), tr.Movable()
	return o
}

func wantOutcome(steps []step) outcome {
	o := outcome{state: steps[len(steps)-1].state, threshold: 256, movable: true}
	at := 0
	for _, s := range steps {
		if at += len(s.frame); s.movable {
			o.stops = append(o.stops, at)
		}
	}
	return o
}

func sameOutcome(a, b outcome) bool {
	return a.state == b.state && a.threshold == b.threshold && a.movable == b.movable && a.err == b.err &&
		slices.Equal(a.stops, b.stops)
}

// Every chunking gives the same stops and the same end: whole, byte by byte, cut once at every
// offset, and cut at random places.
func TestTrackerChunkings(t *testing.T) {
	steps := recordedStream(600)
	stream, want := concat(steps), wantOutcome(steps)
	check := func(cuts []int) {
		t.Helper()
		if got := feedChunks(t, stream, cuts); !sameOutcome(got, want) {
			t.Fatalf("cuts %v: %+v, want %+v", cuts, got, want)
		}
	}
	check(nil)
	every := make([]int, len(stream)-1)
	for i := range every {
		every[i] = i + 1
	}
	check(every)
	for i := 1; i < len(stream); i++ {
		check([]int{i})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		cuts := map[int]bool{}
		for range rng.IntN(40) {
			cuts[1+rng.IntN(len(stream)-1)] = true
		}
		check(slices.Sorted(maps.Keys(cuts)))
	}
}

func TestTrackerLargeStreamChunkings(t *testing.T) {
	steps := recordedStream(300000) // a chunk packet of 1.2 MB
	stream, want := concat(steps), wantOutcome(steps)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, maxChunk := range []int{1, 7, 1500, 65536} {
		var cuts []int
		for at := 1 + rng.IntN(maxChunk); at < len(stream); at += 1 + rng.IntN(maxChunk) {
			cuts = append(cuts, at)
		}
		if got := feedChunks(t, stream, cuts); !sameOutcome(got, want) {
			t.Errorf("chunks up to %d bytes: %+v, want %+v", maxChunk, got, want)
		}
	}
}

func TestTrackerStop(t *testing.T) {
	steps := recordedStream(100)
	stream := concat(steps)
	tr := newTracker(t)
	if n, err := tr.Feed(nil, true); n != 0 || err != nil {
		t.Errorf("Feed(nil) = %d, %v", n, err)
	}
	login := len(steps[0].frame) + len(steps[1].frame) + len(steps[2].frame)
	if n, err := tr.Feed(stream, true); n != login || err != nil || !tr.Movable() {
		t.Fatalf("Feed with stop = %d, %v, movable %v; want %d (after Login Success), nil, true", n, err, tr.Movable(), login)
	}
	// Already Movable: the next stop is after the next frame, not before it.
	if n, _ := tr.Feed(stream[login:], true); n != len(steps[3].frame) {
		t.Errorf("Feed at a boundary = %d, want the next frame's %d", n, len(steps[3].frame))
	}
	// Inside a bundle there is no stop; without stop, Feed takes everything.
	tr = newTracker(t)
	bundled := concat(steps[7:11])
	feedAll(t, tr, concat(steps[:7]))
	if n, _ := tr.Feed(bundled, true); n != len(bundled) {
		t.Errorf("Feed over a bundle = %d, want its end %d", n, len(bundled))
	}
	tr = newTracker(t)
	feedAll(t, tr, stream)
}

func TestTrackerUncompressedSession(t *testing.T) {
	tr := newTracker(t)
	for i, s := range []struct {
		p       packet
		state   State
		movable bool
	}{
		{packet{mc.LoginSuccessID, make([]byte, 30)}, Configuration, true},
		{packet{configKeepAlive, make([]byte, 8)}, Configuration, true},
		{packet{configFinish, nil}, Play, true},
		{packet{playChunk, noise(70000)}, Play, true},
		{packet{playStartConfig, nil}, Configuration, true},
		{packet{configFinish, nil}, Play, true},
	} {
		feedAll(t, tr, frame(s.p, -1))
		if tr.State() != s.state || tr.Movable() != s.movable || tr.Threshold() != -1 {
			t.Errorf("packet %d: %v, movable %v, threshold %d", i, tr.State(), tr.Movable(), tr.Threshold())
		}
	}
}

func TestTrackerCompressionOff(t *testing.T) {
	tr := newTracker(t)
	feedAll(t, tr, frame(packet{mc.SetCompressionID, varInts(64)}, -1))
	feedAll(t, tr, frame(packet{mc.SetCompressionID, varInts(-1)}, 64)) // a second one, compressed format
	if tr.Threshold() != -1 {
		t.Fatalf("threshold %d after Set Compression -1", tr.Threshold())
	}
	feedAll(t, tr, frame(packet{mc.LoginSuccessID, make([]byte, 100)}, -1))
	if tr.State() != Configuration || !tr.Movable() {
		t.Errorf("%v, movable %v", tr.State(), tr.Movable())
	}
}

func TestTrackerEnded(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before []packet
		last   packet
	}{
		{"login disconnect", nil, packet{mc.LoginDisconnectID, mc.AppendString(nil, `"bye"`)}},
		{"configuration disconnect", []packet{{mc.LoginSuccessID, nil}}, packet{configDisconnect, []byte{8, 0, 0}}},
		{"configuration transfer", []packet{{mc.LoginSuccessID, nil}}, packet{configTransfer, append(mc.AppendString(nil, "b"), 1)}},
		{"play disconnect", []packet{{mc.LoginSuccessID, nil}, {configFinish, nil}}, packet{playKickDisconnect, []byte{8, 0, 0}}},
		{"play transfer", []packet{{mc.LoginSuccessID, nil}, {configFinish, nil}}, packet{playTransfer, append(mc.AppendString(nil, "b"), 1)}},
	} {
		tr := newTracker(t)
		for _, p := range tc.before {
			feedAll(t, tr, frame(p, -1))
		}
		feedAll(t, tr, frame(tc.last, -1))
		if !tr.Ended() || tr.Movable() || tr.Err() != nil {
			t.Errorf("%s: ended %v, movable %v, err %v; want true, false, nil", tc.name, tr.Ended(), tr.Movable(), tr.Err())
		}
	}
}

func TestTrackerEncrypted(t *testing.T) {
	tr := newTracker(t)
	req := frame(packet{mc.EncryptionRequestID, append(mc.AppendString(nil, ""), 0, 0, 1)}, -1)
	junk := noise(100) // encrypted bytes
	if n, err := tr.Feed(append(req, junk...), true); err != ErrEncrypted || n != len(req)+len(junk) {
		t.Fatalf("Feed = %d, %v; want %d, ErrEncrypted", n, err, len(req)+len(junk))
	}
	if n, err := tr.Feed(junk, false); err != ErrEncrypted || n != len(junk) || tr.Err() != ErrEncrypted || tr.Movable() {
		t.Errorf("Feed after = %d, %v, movable %v", n, err, tr.Movable())
	}
}

func TestTrackerMalformed(t *testing.T) {
	loginDone := func(threshold int) []byte {
		b := frame(packet{mc.SetCompressionID, varInts(int32(threshold))}, -1)
		return append(b, frame(packet{mc.LoginSuccessID, nil}, threshold)...)
	}
	plain := frame(packet{mc.LoginSuccessID, nil}, -1)
	for _, tc := range []struct {
		name   string
		before []byte
		bad    []byte
		want   error
	}{
		{"length over 3 bytes", nil, []byte{0xff, 0xff, 0xff, 0x01}, mc.ErrTooLarge},
		{"negative length", nil, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, mc.ErrTooLarge},
		{"padded length", nil, []byte{0x81, 0x00, 0x00}, mc.ErrVarIntNonCanonical},
		{"empty frame", plain, []byte{0x00}, mc.ErrTruncated},
		{"padded id", plain, []byte{0x02, 0x84, 0x00}, mc.ErrVarIntNonCanonical},
		{"id over 5 bytes", plain, []byte{0x06, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, mc.ErrVarIntTooLong},
		{"id cut by the frame end", plain, []byte{0x01, 0x84}, mc.ErrTruncated},
		{"set compression cut", nil, []byte{0x01, mc.SetCompressionID}, mc.ErrTruncated},
		{"set compression with more", nil, []byte{0x03, mc.SetCompressionID, 0x10, 0x00}, mc.ErrTrailingBytes},
		{"empty compressed frame", loginDone(64), []byte{0x01, 0x00}, mc.ErrTruncated},
		{"data length cut", loginDone(64), []byte{0x01, 0x80}, mc.ErrTruncated},
		{"padded data length", loginDone(64), []byte{0x02, 0x80, 0x00}, mc.ErrVarIntNonCanonical},
		{"zlib header cut", loginDone(64), []byte{0x02, 0x05, 0x78}, ErrBadCompression},
		{"negative data length", loginDone(64), append([]byte{0x07}, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x78, 0x9c), mc.ErrMalformed},
		{"not zlib", loginDone(64), withLength(append(varInts(60), noise(60)...)), ErrBadCompression},
		{"corrupt deflate", loginDone(64), withLength(append(varInts(60), 0x78, 0x9c, 0xff, 0xff, 0xff)), ErrBadCompression},
		{"zlib shorter than declared", loginDone(64), withLength(append(varInts(60), testutil.Zlib([]byte{playChunk, 1, 2})...)), ErrBadCompression},
		{"id deep in zlib", loginDone(64), withLength(append(varInts(60), emptyBlocks(1000)...)), ErrIDTooDeep},
	} {
		tr := newTracker(t)
		feedAll(t, tr, tc.before)
		in := append(bytes.Clone(tc.bad), noise(10)...)
		n, err := tr.Feed(in, false)
		var se *StreamError
		if !errors.Is(err, tc.want) || !errors.As(err, &se) || n != len(in) {
			t.Errorf("%s: Feed = %d, %v; want %d, %v", tc.name, n, err, len(in), tc.want)
			continue
		}
		if se.Offset != int64(len(tc.before)) {
			t.Errorf("%s: offset %d, want %d", tc.name, se.Offset, len(tc.before))
		}
		if n, again := tr.Feed([]byte{1, 2, 3}, true); again != err || n != 3 || tr.Movable() {
			t.Errorf("%s: Feed after = %d, %v, movable %v; want the same error", tc.name, n, again, tr.Movable())
		}
	}
}

// emptyBlocks is a zlib stream of n empty stored blocks and then a packet: 5n bytes before the
// first byte of data.
func emptyBlocks(n int) []byte {
	b := []byte{0x78, 0x01}
	for range n {
		b = append(b, 0x00, 0x00, 0x00, 0xff, 0xff) // not final, stored, length 0
	}
	return append(b, 0x01, 0x01, 0x00, 0xfe, 0xff, playChunk) // final, stored, length 1
}

func TestTrackerIDBehindEmptyBlocks(t *testing.T) {
	tr := newTracker(t)
	feedAll(t, tr, frame(packet{mc.SetCompressionID, varInts(0)}, -1))
	feedAll(t, tr, frame(packet{mc.LoginSuccessID, nil}, 0))
	// 700 empty blocks: the id is 3.5 KB in, found at the last checkpoint.
	feedAll(t, tr, withLength(append(varInts(1), emptyBlocks(700)...)))
	if !tr.Movable() || tr.State() != Configuration {
		t.Errorf("movable %v, state %v", tr.Movable(), tr.State())
	}
}

func TestState(t *testing.T) {
	for s, want := range map[State]string{Login: "login", Configuration: "configuration", Play: "play", 9: "unknown"} {
		if s.String() != want {
			t.Errorf("State(%d) = %q, want %q", s, s.String(), want)
		}
	}
}

// FuzzTracker feeds any bytes, after a login into play (compressed or not) when inPlay, whole
// and cut in two: no panic, every call consumes, and both give the same end.
func FuzzTracker(f *testing.F) {
	f.Add(concat(recordedStream(50)), uint16(10), true, false)
	f.Add([]byte{0x03, mc.SetCompressionID, 0x00, 0x05, 0x04, 0x00, 0x78, 0x9c, 0x01}, uint16(3), false, false)
	f.Add(withLength(append(varInts(60), emptyBlocks(3)...)), uint16(1), true, true)
	f.Add(concat(recordedStream(50)[10:]), uint16(100), true, true)
	f.Fuzz(func(t *testing.T, stream []byte, cut uint16, stop, inPlay bool) {
		var login []byte
		if inPlay {
			login = frame(packet{mc.SetCompressionID, varInts(256)}, -1)
			login = append(login, frame(packet{mc.LoginSuccessID, nil}, 256)...)
			login = append(login, frame(packet{configFinish, nil}, 256)...)
		}
		whole := newTracker(t)
		feedAll(t, whole, login)
		_, errWhole := whole.Feed(stream, false)
		split := newTracker(t)
		feedAll(t, split, login)
		at := min(int(cut), len(stream))
		var errSplit error
		for _, part := range [][]byte{stream[:at], stream[at:]} {
			for len(part) > 0 {
				n, err := split.Feed(part, stop)
				if n == 0 || n > len(part) {
					t.Fatalf("Feed consumed %d of %d", n, len(part))
				}
				part, errSplit = part[n:], err
			}
		}
		if (errWhole == nil) != (errSplit == nil) || errWhole != nil && errWhole.Error() != errSplit.Error() ||
			whole.State() != split.State() || whole.Movable() != split.Movable() || whole.Threshold() != split.Threshold() {
			t.Errorf("whole: %v %v %v; split at %d: %v %v %v", errWhole, whole.State(), whole.Movable(), at, errSplit, split.State(), split.Movable())
		}
	})
}

// TestLongCompressedPacketsAreNotInflated: in configuration and play, a compressed packet whose
// data is longer than maxFollowedLen is passed over without inflating (none that changes where a
// packet can go in is that long): garbage inside one is no error, and a long compressed
// Disconnect goes unnoticed, while a short one, and a compressed Start Configuration, are read.
func TestLongCompressedPacketsAreNotInflated(t *testing.T) {
	login := append(frame(packet{mc.SetCompressionID, varInts(0)}, -1), frame(packet{mc.LoginSuccessID, nil}, 0)...)
	inPlay := append(login, frame(packet{configFinish, nil}, 0)...)
	long := withLength(append(varInts(maxFollowedLen+1), noise(40)...)) // not zlib at all
	tr := newTracker(t)
	feedAll(t, tr, append(bytes.Clone(inPlay), long...))
	if !tr.Movable() || tr.State() != Play {
		t.Fatalf("after a long compressed packet: movable %v, state %v, err %v", tr.Movable(), tr.State(), tr.Err())
	}
	feedAll(t, tr, frame(packet{playKickDisconnect, bytes.Repeat([]byte{'x'}, maxFollowedLen)}, 0))
	if tr.Ended() {
		t.Error("a Disconnect longer than maxFollowedLen was inflated")
	}
	feedAll(t, tr, frame(packet{playStartConfig, nil}, 0))
	if tr.State() != Configuration {
		t.Errorf("a compressed Start Configuration was not followed: state %v", tr.State())
	}
	feedAll(t, tr, frame(packet{configDisconnect, []byte{8, 0, 2, 'h', 'i'}}, 0))
	if !tr.Ended() {
		t.Error("a short compressed Disconnect was not noticed")
	}
}
