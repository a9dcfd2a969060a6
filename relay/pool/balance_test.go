package pool

import "testing"

func TestBalanceNameIsChecked(t *testing.T) {
	cfg := Config{Hosts: []string{"*"}, Backends: []Backend{{Addr: "127.0.0.1:1"}}, Balance: "fastest"}
	if _, err := New(cfg); err == nil {
		t.Error("an unknown balance was accepted")
	}
}
