package relay

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// listensHere says whether this process holds a listening TCP socket on port: the LISTEN rows
// of the network namespace's tables (/proc/self/net/tcp, tcp6) whose inode is one of this
// process's descriptors. A test that closed a listener asks this when the port still answers,
// since another process (the other test binaries of `make test`) may have bound it since.
func listensHere(port int) (bool, error) {
	mine := map[string]bool{}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return false, err
	}
	for _, fd := range fds {
		if link, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil {
			if inode, ok := strings.CutPrefix(link, "socket:["); ok {
				mine[strings.TrimSuffix(inode, "]")] = true
			}
		}
	}
	for _, table := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		found, err := listenRow(table, port, mine)
		if found || err != nil {
			return found, err
		}
	}
	return false, nil
}

// listenRow says whether table has a LISTEN row (state 0A) on port with an inode in inodes.
func listenRow(table string, port int, inodes map[string]bool) (bool, error) {
	f, err := os.Open(table)
	if err != nil {
		return false, err
	}
	defer f.Close()
	hexPort := fmt.Sprintf(":%04X", port)
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		fields := strings.Fields(lines.Text())
		if len(fields) < 10 || fields[3] != "0A" || !strings.HasSuffix(fields[1], hexPort) {
			continue
		}
		if inodes[fields[9]] {
			return true, nil
		}
	}
	return false, lines.Err()
}

// listensHere finds this process's listener, and not once it is closed.
func TestListensHereFindsOwnListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if here, err := listensHere(port); err != nil || !here {
		t.Errorf("open listener: %v, %v; want true", here, err)
	}
	ln.Close()
	if here, err := listensHere(port); err != nil || here {
		t.Errorf("closed listener: %v, %v; want false", here, err)
	}
}
