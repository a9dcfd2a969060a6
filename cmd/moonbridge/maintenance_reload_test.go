package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// A reload applies the file's maintenance list: the server list shows it, and a file whose
// entry is off again opens the route.
func TestReloadAppliesMaintenance(t *testing.T) {
	next := localConfig()
	r, logs := startReloader(t, localConfig(), func() (config.Config, error) { return next, nil })
	maint, err := startMaintenance(r.current, r.srv, r.log)
	if err != nil {
		t.Fatal(err)
	}
	defer maint.Stop()
	r.maintenance = maint
	proxy := r.srv.Addrs()[0].String()
	e := config.DefaultMaintenanceEntry()
	e.On, e.MOTD = true, "Reloaded into maintenance"
	next.Maintenance = []config.MaintenanceEntry{e}
	r.reload()
	if d, _ := json.Marshal(serverList(t, proxy)["description"]); !strings.Contains(string(d), "Reloaded into maintenance") {
		t.Errorf("after the reload the server list shows %s", d)
	}
	if line := waitForLog(t, logs, "maintenance on"); line["by"] != "the config file" {
		t.Errorf("the switch's line %v", line)
	}
	next.Maintenance[0].On = false
	r.reload()
	if d, _ := json.Marshal(serverList(t, proxy)["description"]); strings.Contains(string(d), "Reloaded") {
		t.Errorf("with the entry off the server list still shows %s", d)
	}
}
