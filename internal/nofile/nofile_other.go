//go:build !linux && !darwin

package nofile

// Raise has nothing to raise here.
func Raise(uint64) (Limits, error) { return Limits{}, ErrUnsupported }
