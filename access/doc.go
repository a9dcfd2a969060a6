// Package access is moonbridge's access control: signed tokens that a server owner hands to a
// player or a group, and the rules a route applies to them. It has no sockets and no policy of
// where a token comes from; the relay reads a token during the WebSocket upgrade and asks a
// Verifier about it.
//
// # Token format, version 1
//
// A token is two base64url parts (RFC 4648 §5, no padding) joined by a dot:
//
//	token = base64url(body) "." base64url(signature)      at most MaxTokenLen characters
//
//	body:  +---------+-----+-------+-----+-----------+-----------+---------+
//	       | version | alg | kid   | iat | nbf       | exp       | aud     |
//	       | 1 byte  | 1   | str   | 8   | 8         | 8         | str     | ...
//	       +---------+-----+-------+-----+-----------+-----------+---------+
//	       ... +---------+-------+---------------+
//	           | sub     | count | scope × count |
//	           | str     | 1     | str each      |
//	           +---------+-------+---------------+
//
//	str    one length byte, then that many bytes of printable UTF-8 (no control characters)
//	version 1; any other version is refused
//	alg    1 Ed25519 (RFC 8032), 2 ML-DSA-65 (FIPS 204), 3 Ed25519 and ML-DSA-65 together
//	kid    key id, 1-64 bytes: which verification key signed it
//	iat, nbf, exp   issued at, not before, expires: Unix seconds, big-endian signed
//	aud    audience, 0-255 bytes: must equal the verifier's audience ("" matches "")
//	sub    subject, 1-255 bytes: the player or group the token was issued to
//	scope  0-16 route names or hosts the token opens; none means every route
//
//	signature over "moonbridge-token\x00" || body:
//	  alg 1: the 64-byte Ed25519 signature
//	  alg 2: the 3309-byte ML-DSA-65 signature (context string "moonbridge-token")
//	  alg 3: both, Ed25519's first (64 + 3309 bytes); both must verify
//
// The algorithm is in the signed body and every key is bound to one algorithm, so a token can
// neither name a weaker algorithm than its key's (alg confusion) nor be stripped of one half of
// a composite signature. An Ed25519 token is about 170 characters, an ML-DSA-65 token about
// 4.5 KB and a composite one a little more: all well under the HTTP header limits of the relay
// (ws.Config.MaxHeaderBytes) and of common CDNs (Cloudflare: 16 KB per header line, 32 KB in
// total; nginx's default: 8 KB per line).
//
// Verification uses only public data (the token and public keys); what it must not reveal is
// which step failed, so the relay answers every refusal alike and only logs the Reason. A
// composite signature is always checked in both halves.
//
// # Key files
//
// Keys are PEM blocks whose headers name the key id and the algorithm:
//
//	-----BEGIN MOONBRIDGE TOKEN PRIVATE KEY-----     (written 0600)
//	Key-Id: 2026-11
//	Algorithm: ed25519
//
//	base64 of the seeds: Ed25519's 32 bytes, then ML-DSA-65's 32 bytes (as the algorithm has)
//	-----END MOONBRIDGE TOKEN PRIVATE KEY-----
//
//	-----BEGIN MOONBRIDGE TOKEN PUBLIC KEY-----
//	Key-Id: 2026-11
//	Algorithm: ed25519
//
//	base64 of the public keys: Ed25519's 32 bytes, then ML-DSA-65's 1952 bytes
//	-----END MOONBRIDGE TOKEN PUBLIC KEY-----
//
// A public key file may hold several blocks; a Verifier holds every key it is given and picks
// one by key id, so a new key can be added, tokens issued with it, and the old key removed once
// its tokens have expired.
package access
