package main

import (
	"net"
	"path/filepath"
	"testing"
	"time"
)

func TestSDNotifySendsOneDatagram(t *testing.T) {
	for name, path := range map[string]string{
		"path":     filepath.Join(t.TempDir(), "notify"),
		"abstract": "@moonbridge-test-notify-" + t.Name(),
	} {
		t.Run(name, func(t *testing.T) {
			sock, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
			if err != nil {
				t.Fatal(err)
			}
			defer sock.Close()
			t.Setenv("NOTIFY_SOCKET", path)
			if err := sdNotify("READY=1\nMAINPID=42"); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 256)
			sock.SetReadDeadline(time.Now().Add(5 * time.Second))
			n, err := sock.Read(buf)
			if got := string(buf[:n]); err != nil || got != "READY=1\nMAINPID=42" {
				t.Errorf("systemd read %q, %v", got, err)
			}
		})
	}
	t.Setenv("NOTIFY_SOCKET", "")
	if err := sdNotify("READY=1"); err != nil {
		t.Errorf("without NOTIFY_SOCKET: %v, want nothing done", err)
	}
}
