package auth

import (
	"crypto/sha1"
	"math/big"
)

// ServerHash is the serverId both the client (join) and the server (hasJoined) send to the
// session server: SHA-1 over the server id, the shared secret and the public key, written as
// Java's BigInteger.toString(16) writes the digest read as a signed number ("-" and no leading
// zeros for a negative one).
func ServerHash(serverID string, secret, publicDER []byte) string {
	h := sha1.New()
	h.Write([]byte(serverID))
	h.Write(secret)
	h.Write(publicDER)
	sum := h.Sum(nil)
	n := new(big.Int).SetBytes(sum)
	if sum[0]&0x80 != 0 { // two's complement: subtract 2^160
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), 160))
	}
	return n.Text(16)
}
