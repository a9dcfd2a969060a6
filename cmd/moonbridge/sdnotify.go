package main

import (
	"net"
	"os"
)

// sdNotify sends state to the service manager (systemd's sd_notify protocol: one datagram of
// "KEY=VALUE" lines to the unix socket NOTIFY_SOCKET names, "@" for an abstract one, which Go's
// net takes as it is). Without NOTIFY_SOCKET (not run by systemd, or a unit that is not
// Type=notify) it does nothing.
func sdNotify(state string) error {
	path := os.Getenv("NOTIFY_SOCKET")
	if path == "" {
		return nil
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.Write([]byte(state))
	return err
}
