//go:build boringssl && cgo

package gossl

import (
	"strings"
	"testing"
	"time"
)

// TestSelfTestCoversEachRecordLayer: BoringSSL's self-test passes on both record layers, and it
// checks which layer carried the records (a listener asked for one thing that got another
// fails it: here the empty name, which means boringssl-ssl).
func TestSelfTestCoversEachRecordLayer(t *testing.T) {
	p, err := boringProvider()
	if err != nil {
		t.Fatal(err)
	}
	if err := selfTest(p); err != nil {
		t.Fatalf("self-test: %v", err)
	}
	pair, err := SelfSigned([]string{selfTestName}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, layer := range selfTestLayers {
		if err := selfTestLayer(p, pair, layer); err != nil {
			t.Errorf("%s: %v", layer, err)
		}
	}
	if err := selfTestLayer(p, pair, ""); err == nil || !strings.Contains(err.Error(), RecordLayerSSL.String()) {
		t.Errorf("a layer other than the one asked for passed: %v", err)
	}
}
