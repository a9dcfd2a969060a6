package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// handOver returns a copy of every open socket for a new process (close them once it has
// started) and the value of listenFDsEnv naming them, their descriptors in the child counted
// from first.
func (s *sockets) handOver(first int) ([]*os.File, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var files []*os.File
	var names []string
	for ln := range s.open {
		f, err := dupSocket(ln.Listener)
		if err != nil {
			closeFiles(files)
			return nil, "", fmt.Errorf("socket %q: %w", ln.name, err)
		}
		names = append(names, strconv.Itoa(first+len(files))+"="+ln.name)
		files = append(files, f)
	}
	return files, strings.Join(names, ";"), nil
}

// dupSocket copies ln's descriptor, close-on-exec. Not (*net.TCPListener).File: passing that
// one to a child puts the socket, shared with ln, in blocking mode (os.File.Fd does), which
// would tie a thread to ln's next accept; this copy keeps the socket as it is.
func dupSocket(ln net.Listener) (*os.File, error) {
	sc, ok := ln.(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("%T has no descriptor", ln)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var dup int
	var dupErr error
	if err := raw.Control(func(fd uintptr) {
		dup, dupErr = fcntlDup(int(fd))
	}); err != nil {
		return nil, err
	}
	if dupErr != nil {
		return nil, dupErr
	}
	return os.NewFile(uintptr(dup), ln.Addr().String()), nil
}

func fcntlDup(fd int) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return -1, os.NewSyscallError("fcntl F_DUPFD_CLOEXEC", errno)
	}
	return int(r), nil
}
