package access

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeyFilesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, alg := range allAlgorithms {
		k := mustKey(t, alg, "id-"+alg.String())
		base := filepath.Join(dir, "k"+alg.String())
		if err := WriteKeyPair(base, k); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(base + ".key")
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Fatalf("private key file mode %v, want 0600", st.Mode().Perm())
		}
		if err := WriteKeyPair(base, k); err == nil {
			t.Fatal("WriteKeyPair overwrote an existing key")
		}
		priv, err := ReadPrivateKeyFile(base + ".key")
		if err != nil {
			t.Fatal(err)
		}
		pubs, err := ReadPublicKeyFiles([]string{base + ".pub"})
		if err != nil {
			t.Fatal(err)
		}
		// A token from the key read back verifies with the public key read back.
		if _, err := testVerifier(t, pubs...).Verify(mustIssue(t, priv, testClaims())); err != nil {
			t.Fatalf("%s: %v", alg, err)
		}
	}
}

func TestPublicKeyFileWithSeveralKeys(t *testing.T) {
	a, b := mustKey(t, Ed25519, "a"), mustKey(t, Ed25519MLDSA65, "b")
	data := append(MarshalPublicKey(a.Public()), MarshalPublicKey(b.Public())...)
	keys, err := ParsePublicKeys(data)
	if err != nil || len(keys) != 2 || keys[0].ID != "a" || keys[1].ID != "b" {
		t.Fatalf("keys %v, err %v", keys, err)
	}
}

func TestKeyFileRejections(t *testing.T) {
	k := mustKey(t, Ed25519, "k")
	pub := string(MarshalPublicKey(k.Public()))
	priv := string(MarshalPrivateKey(k))
	cases := map[string]struct {
		data    string
		private bool
	}{
		"empty":                   {"", false},
		"private where public":    {priv, false},
		"public where private":    {pub, true},
		"unknown algorithm":       {strings.Replace(pub, "ed25519", "rsa", 1), false},
		"algorithm of other size": {strings.Replace(pub, "Algorithm: ed25519", "Algorithm: ml-dsa-65", 1), false},
		"no key id":               {strings.Replace(pub, "Key-Id: k", "Key-Id: ", 1), false},
		"two private keys":        {priv + priv, true},
	}
	for name, tc := range cases {
		var err error
		if tc.private {
			_, err = ParsePrivateKey([]byte(tc.data))
		} else {
			_, err = ParsePublicKeys([]byte(tc.data))
		}
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
