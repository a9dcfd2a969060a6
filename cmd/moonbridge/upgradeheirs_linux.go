package main

import (
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// A successor that upgrades in turn hands the listeners on and exits 0 while its own successor
// serves on them. Only when no other process holds the listening sockets does nobody accept:
// until then the sessions that stayed here stay (upgrade.stay), whatever the chain of upgrades
// after this one.

// heirPoll is how often, after the successor's exit 0, this process looks for another holder
// of the listening sockets.
const heirPoll = 2 * time.Second

// socketInodes are the inodes of the sockets in files (the copies handed to the successor).
func socketInodes(files []*os.File) map[string]bool {
	links := map[string]bool{}
	for _, f := range files {
		var st unix.Stat_t
		if unix.Fstat(int(f.Fd()), &st) == nil {
			links["socket:["+strconv.FormatUint(st.Ino, 10)+"]"] = true
		}
	}
	return links
}

// heldElsewhere says whether a process other than this one has one of the sockets open (their
// /proc/PID/fd links, as socketInodes names them). Processes of other users cannot be read and
// do not count: an upgrade's successors run as this process's user.
func heldElsewhere(links map[string]bool) bool {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	self := strconv.Itoa(os.Getpid())
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil || p.Name() == self {
			continue
		}
		if holds(p.Name(), links) {
			return true
		}
	}
	return false
}

// holds says whether process pid has one of the sockets open.
func holds(pid string, links map[string]bool) bool {
	dir := "/proc/" + pid + "/fd/"
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if link, err := os.Readlink(dir + fd.Name()); err == nil && links[link] {
			return true
		}
	}
	return false
}

// successorEnd waits for the successor's exit and says why nobody accepts on the listeners any
// more: at once when it failed, and after an exit 0 once no other process holds the sockets.
func successorEnd(exited <-chan error, links map[string]bool) error {
	err := <-exited
	for err == nil && heldElsewhere(links) {
		time.Sleep(heirPoll)
	}
	return statusError(err)
}
