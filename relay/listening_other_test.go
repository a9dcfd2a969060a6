//go:build !linux

package relay

// listensHere cannot tell, off Linux, whose socket answers on port: it says this process's, so
// that a port that still answers fails the test as it did before.
func listensHere(port int) (bool, error) { return true, nil }
