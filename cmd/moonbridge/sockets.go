package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// listenFDsEnv names the listening sockets an upgrading process passes to the new one:
// "FD=NAME;FD=NAME", a NAME being "relay ADDR" or "admin ADDR" with the address as configured.
// It is the part of a hand-over that never changes format, so that any version takes it.
const listenFDsEnv = "MOONBRIDGE_LISTEN_FDS"

// sockets binds this process's listening sockets (the relay's listeners and the admin
// endpoint) by name, taking first those an upgrade handed over, and knows which are open, to
// hand them over in turn.
type sockets struct {
	mu        sync.Mutex
	inherited map[string][]*os.File // handed over and not yet taken, by name
	open      map[*namedListener]struct{}
}

func newSockets() *sockets {
	return &sockets{inherited: map[string][]*os.File{}, open: map[*namedListener]struct{}{}}
}

// namedListener is an open listener with its name; Close forgets it.
type namedListener struct {
	net.Listener
	name  string
	owner *sockets
}

func (l *namedListener) Close() error {
	l.owner.mu.Lock()
	delete(l.owner.open, l)
	l.owner.mu.Unlock()
	return l.Listener.Close()
}

func relaySocket(addr string) string { return "relay " + addr }
func adminSocket(addr string) string { return "admin " + addr }

// listen returns the socket handed over under name, or binds addr.
func (s *sockets) listen(name, addr string) (net.Listener, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ln, err := s.takeInherited(name)
	if ln == nil && err == nil {
		ln, err = net.Listen("tcp", addr)
	}
	if err != nil {
		return nil, err
	}
	named := &namedListener{Listener: ln, name: name, owner: s}
	s.open[named] = struct{}{}
	return named, nil
}

// relayListen is relay.Config.Listen.
func (s *sockets) relayListen(addr string) (net.Listener, error) {
	return s.listen(relaySocket(addr), addr)
}

func (s *sockets) takeInherited(name string) (net.Listener, error) {
	files := s.inherited[name]
	if len(files) == 0 {
		return nil, nil
	}
	f := files[0]
	s.inherited[name] = files[1:]
	defer f.Close()
	ln, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("socket %q handed over as descriptor %d: %w", name, f.Fd(), err)
	}
	return ln, nil
}

// closeUntaken closes the handed-over sockets the configuration did not take (an address it no
// longer has) and returns their names.
func (s *sockets) closeUntaken() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for name, files := range s.inherited {
		for _, f := range files {
			names = append(names, name)
			f.Close()
		}
	}
	s.inherited = map[string][]*os.File{}
	return names
}

// inherit takes the sockets named in env (listenFDsEnv), as an upgraded process does, and
// returns how many.
func (s *sockets) inherit(env string) (int, error) {
	entries := strings.Split(env, ";")
	for _, entry := range entries {
		fdText, name, ok := strings.Cut(entry, "=")
		fd, err := strconv.Atoi(fdText)
		if !ok || err != nil || fd < 3 || name == "" {
			return 0, fmt.Errorf("%s: entry %q is not FD=NAME", listenFDsEnv, entry)
		}
		s.inherited[name] = append(s.inherited[name], os.NewFile(uintptr(fd), name))
	}
	return len(entries), nil
}

func closeFiles(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}
