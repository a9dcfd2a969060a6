// Package authtest is what tests of online logins need: a fake session server on loopback
// (authfake's, closed with the test), a player that logs in as a real online-mode client does
// (Encryption Response, join, CFB8) and misbehaves on request, and backends that check the
// forwarding.
package authtest
