// Package gossl is moonbridge's TLS layer for wss listeners: one Provider interface with a
// BoringSSL provider (cgo, build tags boringssl and cgo, through the C shim in native/) and a
// crypto/tls provider, selected at startup with auto, boringssl or go.
//
// The BoringSSL data path does one cgo call per I/O event and one socket write per Write:
//
//	socket read (ciphertext, one read)         Write(p) (a ws frame batch, up to 64 KiB + 14)
//	  -> ONE cgo call: mb_open opens every       -> ONE cgo call: mb_seal seals all of p into
//	     complete record straight into the          16 KiB records, one after another, in one
//	     caller's buffer; partial records stay      pooled ciphertext buffer
//	     in C                                     -> ONE socket write
//	  -> Read returns the plaintext
//
// Inside C a BIO over the caller's buffers (native/src/mb_io.c) replaces memory BIOs, so no
// ciphertext is copied twice; the BoringSSL error queue is read and cleared inside each call;
// certificate choice by SNI and ticket keys are answered in C; only key logging (a debugging
// aid) calls back into Go, through a github.com/mattn/go-pointer handle, during handshakes.
//
// With ServerConfig.RecordLayer "aead" (tls.record_layer), a TLS 1.3 session leaves SSL_read
// and SSL_write once its handshake and session tickets are done: the shim takes the traffic
// secrets and opens and seals application records itself with BoringSSL's AEAD
// (native/src/mb_rec.c), KeyUpdate and alerts included, behind the same entry points, so both
// paths below use it unchanged. The default is "boringssl-ssl": on the proxy's workloads the AEAD
// layer saved less CPU than the rule asked for (bench/results/2026-11-30-aead-record-layer.md).
//
// The crypto/tls provider gets the same one-write-per-Write shape from a coalescing writer
// under tls.Conn (crypto/tls writes each record separately).
//
// On an event loop (loop), DetachBoring takes an established BoringSSL session off its
// goroutine after the HTTP upgrade: the loop reads into its own buffer, and the session's
// LoopCodec opens every record of that read in place with one cgo call (mb_open_inplace) and
// seals a batch into the loop's out buffer with another. Idle, a session keeps only BoringSSL's
// state (about 4 KiB, measured by the C test): BoringSSL frees its record buffers as soon as a
// record is consumed. crypto/tls sessions, and every session of the pure-Go build, stay on
// goroutines.
//
// A Server holds what new handshakes need (certificates chosen by SNI, versions, session ticket
// keys that rotate) and swaps it whole on Reload, on a certificate file change, or on ticket key
// rotation; open sessions keep what they started with.
package gossl
