package discover

import (
	"testing"
	"time"
)

func TestSameComparesEveryField(t *testing.T) {
	base := func() []Route {
		return []Route{{Name: "docker/a", Hosts: []string{"a.example.net"}, Backends: []string{"10.0.0.1:25565"}, Balance: "random",
			Wake: &Wake{Container: "a", StopAfterIdle: time.Minute}}}
	}
	if !Same(base(), base()) {
		t.Fatal("two equal sets are not the same")
	}
	changes := map[string]func(r *Route){
		"name":     func(r *Route) { r.Name = "docker/b" },
		"hosts":    func(r *Route) { r.Hosts = []string{"b.example.net"} },
		"backends": func(r *Route) { r.Backends = append(r.Backends, "10.0.0.2:25565") },
		"balance":  func(r *Route) { r.Balance = "" },
		"no wake":  func(r *Route) { r.Wake = nil },
		"wake":     func(r *Route) { r.Wake = &Wake{Container: "a"} },
	}
	for what, change := range changes {
		other := base()
		change(&other[0])
		if Same(base(), other) {
			t.Errorf("a set with another %s is the same", what)
		}
	}
	if Same(base(), append(base(), base()...)) {
		t.Error("sets of different lengths are the same")
	}
}
