//go:build boringssl && cgo

package gossl

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"math/rand"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func aeadConfig(t testing.TB) ServerConfig {
	cfg := testConfig(t)
	cfg.RecordLayer = RecordLayerAEAD
	return cfg
}

// TestAEADRecordLayerCarriesTLS13Only: with record_layer aead, TLS 1.3 sessions (resumed ones
// too) are carried by the AEAD record layer and TLS 1.2 sessions stay on SSL_read/SSL_write.
func TestAEADRecordLayerCarriesTLS13Only(t *testing.T) {
	p, err := boringProvider()
	if err != nil {
		t.Fatal(err)
	}
	ts, states := stateServer(t, p, aeadConfig(t))
	if got := ts.srv.RecordLayer(); got != RecordLayerAEAD.String() {
		t.Errorf("Server.RecordLayer %q, want %q", got, RecordLayerAEAD)
	}
	cfg := clientConfig(t, "a.test")
	cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	for _, want := range []struct {
		max     uint16
		resumed bool
		layer   RecordLayer
	}{{tls.VersionTLS12, false, RecordLayerSSL}, {0, false, RecordLayerAEAD}, {0, true, RecordLayerAEAD}} {
		c := cfg.Clone()
		c.MaxVersion = want.max
		roundTrip(t, dial(t, ts.addr(), c), pattern(40000))
		if st := <-states; st.RecordLayer != want.layer.String() || st.Resumed != want.resumed {
			t.Errorf("%s (resumed %v): record layer %q, want %q (resumed %v)", st.VersionName(),
				st.Resumed, st.RecordLayer, want.layer, want.resumed)
		}
	}
}

// TestAEADServerKeyUpdates8MiB: the AEAD layer sends a KeyUpdate every 64 records (lowered from
// 2^24 to be reached), and 8 MiB go each way byte-exact to Go's crypto/tls client across them.
// (crypto/tls has no API to send a KeyUpdate itself; the client's side is tested with openssl
// s_client here and with a BoringSSL client in the shim's C test.)
func TestAEADServerKeyUpdates8MiB(t *testing.T) {
	p, err := boringProvider()
	if err != nil {
		t.Fatal(err)
	}
	cfg := aeadConfig(t)
	cfg.keyUpdateAfter = 64
	ts := startServer(t, p, cfg, echo)
	roundTrip(t, dial(t, ts.addr(), clientConfig(t, "a.test")), pattern(8<<20))
}

// TestOpenSSLKeyUpdatesMidStream: openssl s_client's `K` (KeyUpdate asking for one back) and `k`
// commands between lines of an echo, under each TLS 1.3 suite.
func TestOpenSSLKeyUpdatesMidStream(t *testing.T) {
	bin, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl is not installed (apt-get install openssl)")
	}
	p, err := boringProvider()
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, p, aeadConfig(t), func(c Conn) {
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadString('\n')
			if err != nil || c.State().RecordLayer != RecordLayerAEAD.String() {
				return
			}
			if _, err := c.Write([]byte("pong " + line)); err != nil {
				return
			}
		}
	})
	for _, suite := range []string{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"} {
		t.Run(suite, func(t *testing.T) {
			// Without -quiet (which implies -ign_eof) s_client reads k and K as commands.
			cmd := exec.CommandContext(t.Context(), bin, "s_client", "-connect", ts.addr(),
				"-servername", "a.test", "-alpn", "http/1.1", "-tls1_3", "-ciphersuites", suite)
			stdin, _ := cmd.StdinPipe()
			out, outW := io.Pipe() // stdout and stderr, where s_client says KEYUPDATE
			cmd.Stdout, cmd.Stderr = outW, outW
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { stdin.Close(); _ = cmd.Wait(); outW.Close() }()
			lines := make(chan string, 64)
			go func() {
				defer close(lines)
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					lines <- sc.Text()
				}
			}()
			for i, command := range []string{"", "K", "k", "K", ""} {
				// s_client drops the rest of a read that began with a command, so each goes
				// alone; it sends the KeyUpdate ahead of the next line.
				if command != "" {
					if _, err := io.WriteString(stdin, command+"\n"); err != nil {
						t.Fatal(err)
					}
					waitLine(t, lines, "KEYUPDATE")
				}
				ping := strings.Repeat("x", 1000*i) + "ping " + string(rune('a'+i)) + "\n"
				if _, err := io.WriteString(stdin, ping); err != nil {
					t.Fatal(err)
				}
				waitLine(t, lines, "pong "+strings.TrimSuffix(ping, "\n"))
			}
		})
	}
}

func waitLine(t *testing.T, lines chan string, want string) {
	t.Helper()
	timeout := time.After(testTimeout)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("s_client ended before %.40q", want)
			}
			if line == want {
				return
			}
		case <-timeout:
			t.Fatalf("no %.40q from s_client after %v", want, testTimeout)
		}
	}
}

// TestAEADFlippedBitClosesOnlyThatSession: a bit flipped anywhere in the body of any record of a
// client's write ends that session with bad_record_mac (the client reads the alert); another
// session of the same server goes on echoing.
func TestAEADFlippedBitClosesOnlyThatSession(t *testing.T) {
	p, err := boringProvider()
	if err != nil {
		t.Fatal(err)
	}
	readErrs := make(chan error, 64)
	ts := startServer(t, p, aeadConfig(t), func(c Conn) {
		_, err := io.Copy(c, c)
		readErrs <- err
	})
	bystander := dial(t, ts.addr(), clientConfig(t, "a.test"))
	roundTrip(t, bystander, pattern(100))
	rng := rand.New(rand.NewSource(1))
	for try := range 4 {
		raw, err := net.Dial("tcp", ts.addr())
		if err != nil {
			t.Fatal(err)
		}
		rec := &recordingConn{Conn: raw}
		cc := tls.Client(rec, clientConfig(t, "a.test"))
		_ = cc.SetDeadline(time.Now().Add(testTimeout))
		if err := cc.Handshake(); err != nil {
			t.Fatal(err)
		}
		wire := sealed(t, cc, rec, pattern(40000))
		bodies := recordBodies(wire)
		body := bodies[[]int{0, 1, len(bodies) / 2, len(bodies) - 1}[try]]
		wire[body[0]+rng.Intn(body[1]-body[0])] ^= 1 << rng.Intn(8)
		if _, err := raw.Write(wire); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadAll(cc); err == nil || !strings.Contains(err.Error(), "bad record MAC") {
			t.Errorf("try %d: the client read %v, want the bad_record_mac alert", try, err)
		}
		var te *TLSError
		if err := <-readErrs; !errors.As(err, &te) || te.Reason != "BAD_DECRYPT" {
			t.Errorf("try %d: the server's read ended with %v, want BAD_DECRYPT", try, err)
		}
		cc.Close()
	}
	roundTrip(t, bystander, pattern(70000))
}

// recordBodies is where each record's body lies in a stream of whole records: [start, end).
func recordBodies(wire []byte) [][2]int {
	var bodies [][2]int
	for off := 0; off+5 <= len(wire); {
		end := off + 5 + (int(wire[off+3])<<8 | int(wire[off+4]))
		bodies = append(bodies, [2]int{off + 5, end})
		off = end
	}
	return bodies
}

// differentialStream is what a TLS 1.3 client sends (records of assorted sizes, then
// close_notify) to a detached server session with the given record layer, and the session.
func differentialStream(t testing.TB, layer RecordLayer) (LoopCodec, []byte) {
	codec, _, cc, rec := detached(t, 0, layer)
	wire := sealed(t, cc, rec, pattern(1), pattern(700), pattern(16384), pattern(3000))
	rec.start()
	if err := cc.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	return codec, append(wire, rec.take()...)
}

// openDifferential opens the stream with each record layer, the same bit flipped (flip < 0:
// none) and cut into the same pieces, and fails unless both give the same plaintext and the
// same error.
func openDifferential(t *testing.T, flip int, sizes []int) {
	type outcome struct {
		plain []byte
		err   string
	}
	var got [2]outcome
	for i, layer := range []RecordLayer{RecordLayerSSL, RecordLayerAEAD} {
		codec, wire := differentialStream(t, layer)
		if flip >= 0 {
			wire[flip/8%len(wire)] ^= 1 << (flip % 8)
		}
		plain, err := openAll(codec, wire, sizes)
		got[i] = outcome{plain, "<nil>"}
		if err != nil {
			got[i].err = err.Error()
		}
	}
	// RFC 8446 caps a record's ciphertext at 2^14+256 bytes, and so does the AEAD layer;
	// BoringSSL's SSL path lets up to 64 more through and then waits for them. A flipped
	// length bit can land in between: the one difference the two layers are allowed.
	if strings.Contains(got[1].err, "ENCRYPTED_LENGTH_TOO_LONG") && got[0].err != got[1].err {
		got[1].err = got[0].err
	}
	if !bytes.Equal(got[0].plain, got[1].plain) || got[0].err != got[1].err {
		t.Fatalf("flip %d, pieces %v: SSL path %d bytes, %s; AEAD path %d bytes (equal %v), %s",
			flip, sizes, len(got[0].plain), got[0].err, len(got[1].plain),
			bytes.Equal(got[0].plain, got[1].plain), got[1].err)
	}
}

// TestAEADMatchesSSLAtEverySplitWithoutRace: the stream cut in two at every position opens to
// the same plaintext and io.EOF on both paths. It is CPU-bound on one goroutine (80 s under
// -race, the longest test of make test), so the race pass skips it and the non-race pass of the
// cgo build (make test-allocs, NORACE_TESTS) runs it.
func TestAEADMatchesSSLAtEverySplitWithoutRace(t *testing.T) {
	if raceEnabled {
		t.Skip("CPU-bound on one goroutine; the cgo build's non-race pass runs it")
	}
	_, wire := differentialStream(t, RecordLayerSSL)
	for cut := 1; cut < len(wire); cut += 1 + cut/512 { // every byte of the small records
		openDifferential(t, -1, []int{cut, len(wire)})
	}
}

// FuzzAEADMatchesSSL: the stream with one bit flipped (or none), cut into random pieces, gives
// the same plaintext and the same error on both paths.
func FuzzAEADMatchesSSL(f *testing.F) {
	f.Add(-1, int64(1)) // no flip
	for i, bit := range []int{0, 3*8 + 1, 4*8 + 6, 4*8 + 0, 9 * 8, 30*8 + 2, 800 * 8, 5000*8 + 7, 19000 * 8} {
		f.Add(bit, int64(i)) // record headers (type, version, length) and bodies
	}
	f.Fuzz(func(t *testing.T, flip int, seed int64) {
		rng := rand.New(rand.NewSource(seed))
		sizes := make([]int, 1+rng.Intn(6))
		for i := range sizes {
			sizes[i] = 1 + rng.Intn(20000)
		}
		openDifferential(t, flip, sizes)
	})
}

// TestServerRecordLayer: what Server.RecordLayer says for each provider and setting, and a
// setting that is neither layer is a config error.
func TestServerRecordLayer(t *testing.T) {
	p, err := boringProvider()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p           Provider
		layer, want RecordLayer
	}{{p, "", RecordLayerSSL}, {p, RecordLayerSSL, RecordLayerSSL}, {p, RecordLayerAEAD, RecordLayerAEAD},
		{GoProvider(), RecordLayerAEAD, "crypto/tls"}} {
		cfg := testConfig(t)
		cfg.RecordLayer = tc.layer
		srv, err := tc.p.NewServer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := srv.RecordLayer(); got != tc.want.String() {
			t.Errorf("%s with %q: %q, want %q", tc.p.Name(), tc.layer, got, tc.want)
		}
		srv.Close()
	}
	cfg := testConfig(t)
	cfg.RecordLayer = "kernel"
	var te *TLSError
	if _, err := p.NewServer(cfg); !errors.As(err, &te) || te.Op != "config" {
		t.Errorf("record layer kernel: %v, want a TLS config error", err)
	}
}
