//go:build !linux

package flood

import "syscall"

// bindNoPort is Linux's IP_BIND_ADDRESS_NO_PORT; elsewhere the port is picked at bind.
func bindNoPort(_, _ string, _ syscall.RawConn) error { return nil }
