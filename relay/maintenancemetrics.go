package relay

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

var maintenanceDesc = prometheus.NewDesc("moonbridge_maintenance",
	"1 while the route is under maintenance (its own or every route's, within its start and end times), else 0.",
	[]string{"route"}, nil)

// collectMaintenance sends a route's maintenance state for every route served now, as of the
// scrape: a scheduled start or end shows without anything switching it.
func (s *Server) collectMaintenance(ch chan<- prometheus.Metric) {
	now, m := time.Now(), s.maintenance.Load()
	for _, label := range s.RouteLabels() {
		on := 0.0
		if m.For(label, now) != nil {
			on = 1
		}
		ch <- prometheus.MustNewConstMetric(maintenanceDesc, prometheus.GaugeValue, on, label)
	}
}
