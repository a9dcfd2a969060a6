package discover

import (
	"testing"
	"time"

	"github.com/moonbridge/moonbridge/routes"
)

func TestSameComparesEveryField(t *testing.T) {
	base := func() []routes.Route {
		r := routes.Default("10.0.0.1:25565")
		r.Name, r.Hosts, r.Balance = "docker/a", []string{"a.example.net"}, routes.BalanceRandom
		r.Wake.Container, r.Wake.StopAfterIdle = "a", time.Minute
		return []routes.Route{r}
	}
	if !Same(base(), base()) {
		t.Fatal("two equal sets are not the same")
	}
	changes := map[string]func(r *routes.Route){
		"name":     func(r *routes.Route) { r.Name = "docker/b" },
		"hosts":    func(r *routes.Route) { r.Hosts = []string{"b.example.net"} },
		"backends": func(r *routes.Route) { r.Backends = append(r.Backends, "10.0.0.2:25565") },
		"balance":  func(r *routes.Route) { r.Balance = routes.BalanceFailover },
		"no wake":  func(r *routes.Route) { r.Wake.Container = "" },
		"idle":     func(r *routes.Route) { r.Wake.StopAfterIdle = 0 },
		"health":   func(r *routes.Route) { r.HealthCheck.Mode = routes.HealthOff },
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
