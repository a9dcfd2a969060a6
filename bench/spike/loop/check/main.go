// Command check tests the record's functional gates against a spike relay binary it starts:
// a half-close from the player reaches the backend and the backend's answer still comes back;
// with a backend that does not read, the relay's RSS stays bounded while the player keeps
// sending, and every byte arrives once the backend reads again.
//
//	check BINARY [relay flags...]
package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

const stallBytes = 64 << 20

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: check BINARY [relay flags...]")
		os.Exit(2)
	}
	ok := true
	for _, gate := range []struct {
		name string
		run  func(relay string, pid int, backend net.Listener) error
	}{{"half-close", halfClose}, {"stalled backend", stalled}} {
		err := withRelay(os.Args[1], os.Args[2:], gate.run)
		fmt.Printf("%s: %s: %v\n", os.Args[1], gate.name, verdict(err))
		ok = ok && err == nil
	}
	if !ok {
		os.Exit(1)
	}
}

func verdict(err error) string {
	if err != nil {
		return "FAIL: " + err.Error()
	}
	return "ok"
}

// withRelay starts the relay in front of a fresh backend listener.
func withRelay(bin string, flags []string, run func(string, int, net.Listener) error) error {
	backend, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer backend.Close()
	probe, _ := net.Listen("tcp", "127.0.0.1:0")
	relay := probe.Addr().String()
	probe.Close()
	cmd := exec.Command(bin, append([]string{"serve", "--listen", relay, "--backend", backend.Addr().String()}, flags...)...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", relay); err == nil {
			c.Close() // the relay dials the backend for this probe: take that conn away
			if bc, err := backend.Accept(); err == nil {
				bc.Close()
			}
			return run(relay, cmd.Process.Pid, backend)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("relay not listening")
}

// halfClose: the player sends "hello" and FIN; the backend reads to EOF, answers "hello bye"
// and closes; the player must read that answer and then EOF.
func halfClose(relay string, _ int, backend net.Listener) error {
	c, err := net.Dial("tcp", relay)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	done := make(chan error, 1)
	go func() {
		b, err := backend.Accept()
		if err != nil {
			done <- err
			return
		}
		defer b.Close()
		got, err := io.ReadAll(b)
		if err == nil {
			_, err = b.Write(append(got, " bye"...))
		}
		done <- err
	}()
	c.Write([]byte("hello"))
	c.(*net.TCPConn).CloseWrite()
	got, err := io.ReadAll(c)
	if berr := <-done; berr != nil && err == nil {
		err = fmt.Errorf("backend: %w", berr)
	}
	if string(got) != "hello bye" {
		return fmt.Errorf("player read %q (err %v), want %q", got, err, "hello bye")
	}
	return err
}

// stalled: the backend does not read for 2 s while the player writes up to 64 MiB; then it
// reads everything. The relay's RSS growth over that time and the byte count are reported.
func stalled(relay string, pid int, backend net.Listener) error {
	c, err := net.Dial("tcp", relay)
	if err != nil {
		return err
	}
	defer c.Close()
	b, err := backend.Accept()
	if err != nil {
		return err
	}
	defer b.Close()
	before := rssKiB(pid)
	payload := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	sent := 0
	c.SetWriteDeadline(time.Now().Add(2 * time.Second))
	for sent < stallBytes {
		n, err := c.Write(payload)
		sent += n
		if err != nil {
			break
		}
	}
	held := rssKiB(pid) - before
	c.(*net.TCPConn).CloseWrite()
	b.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.Copy(io.Discard, b)
	fmt.Printf("  stalled: player sent %d KiB while the backend did not read; relay RSS grew %d KiB; backend then read %d KiB (%v)\n",
		sent>>10, held, got>>10, err)
	switch {
	case int(got) != sent:
		return fmt.Errorf("backend read %d of %d bytes", got, sent)
	case held > 4096:
		return fmt.Errorf("relay held %d KiB while the backend stalled (bound 4096)", held)
	}
	return nil
}

func rssKiB(pid int) int {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}
