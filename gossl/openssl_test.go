package gossl

import (
	"bufio"
	"context"
	"os/exec"
	"strings"
	"testing"
)

// TestOpenSSLInterop talks to Debian's openssl s_client, an independent implementation, in
// TLS 1.2 and each TLS 1.3 suite.
func TestOpenSSLInterop(t *testing.T) {
	bin, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl is not installed (apt-get install openssl)")
	}
	runs := [][]string{
		{"-tls1_2"},
		{"-tls1_2", "-cipher", "ECDHE-ECDSA-CHACHA20-POLY1305"},
		{"-tls1_3", "-ciphersuites", "TLS_AES_128_GCM_SHA256"},
		{"-tls1_3", "-ciphersuites", "TLS_AES_256_GCM_SHA384"},
		{"-tls1_3", "-ciphersuites", "TLS_CHACHA20_POLY1305_SHA256"},
	}
	forEachProvider(t, func(t *testing.T, p Provider) {
		ts := startServer(t, p, testConfig(t), func(c Conn) {
			line, err := bufio.NewReader(c).ReadString('\n')
			if err == nil {
				_, _ = c.Write([]byte("pong " + line))
			}
		})
		for _, extra := range runs {
			t.Run(strings.Join(extra, " "), func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
				defer cancel()
				args := append([]string{"s_client", "-connect", ts.addr(), "-servername", "a.test",
					"-alpn", "http/1.1", "-quiet", "-verify_quiet"}, extra...)
				cmd := exec.CommandContext(ctx, bin, args...)
				cmd.Stdin = strings.NewReader("ping " + strings.Join(extra, " ") + "\n")
				out, err := cmd.Output()
				if want := "pong ping " + strings.Join(extra, " ") + "\n"; string(out) != want {
					t.Errorf("s_client %v: got %q (%v), want %q", extra, out, err, want)
				}
			})
		}
	})
}

// TestOpenSSLPostQuantum: openssl s_client, listing X25519 before X25519MLKEM768, negotiates
// the hybrid with both providers (the server's preference). It needs an openssl that knows the
// group (OpenSSL 3.5 or later).
func TestOpenSSLPostQuantum(t *testing.T) {
	bin, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl is not installed (apt-get install openssl)")
	}
	// An openssl that does not know the group says so before it connects (port 1: nothing
	// listens, so one that knows it fails at once too).
	probe, _ := exec.Command(bin, "s_client", "-groups", "X25519MLKEM768", "-connect", "127.0.0.1:1").CombinedOutput()
	if strings.Contains(string(probe), "cannot be set") || strings.Contains(string(probe), "SSL_CONF_cmd") {
		version, _ := exec.Command(bin, "version").Output()
		t.Skipf("this openssl (%s) does not know X25519MLKEM768; OpenSSL 3.5 or later does",
			strings.TrimSpace(string(version)))
	}
	forEachProvider(t, func(t *testing.T, p Provider) {
		ts := startServer(t, p, testConfig(t), echo)
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "s_client", "-connect", ts.addr(), "-servername", "a.test",
			"-tls1_3", "-groups", "X25519:X25519MLKEM768") // prints "Negotiated TLS1.3 group: ..."
		cmd.Stdin = strings.NewReader("")
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), "X25519MLKEM768") {
			t.Errorf("s_client offering X25519 first did not get X25519MLKEM768:\n%s", out)
		}
	})
}
