//go:build !linux

package loop

import "testing"

// TestNewSaysUnsupported: without event loops New fails clearly, so the relay keeps its pumps.
func TestNewSaysUnsupported(t *testing.T) {
	if e, err := New(Config{}); e != nil || err != ErrUnsupported || Supported {
		t.Fatalf("New = %v, %v; Supported = %v; want nil, ErrUnsupported, false", e, err, Supported)
	}
}
