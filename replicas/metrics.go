package replicas

import "github.com/prometheus/client_golang/prometheus"

var (
	upDesc = prometheus.NewDesc("moonbridge_replicas_redis_up",
		"1 while the shared state's Redis answers, 0 while this replica goes on with its own state.", nil, nil)
	errorsDesc = prometheus.NewDesc("moonbridge_replicas_redis_errors_total",
		"Calls to the shared state's Redis that failed or ran past their bound.", nil, nil)
	otherPlayersDesc = prometheus.NewDesc("moonbridge_replicas_other_players",
		"Players the other live replicas have on a route, as this replica last learnt (0 while Redis is away).",
		[]string{"route"}, nil)
	sharedBlocksDesc = prometheus.NewDesc("moonbridge_replicas_shared_blocks",
		"Entries of the shared block list as this replica last read it.", nil, nil)
	networkPlayersDesc = prometheus.NewDesc("moonbridge_replicas_network_players",
		"Players on a route over every live replica: this one's now and the others' as last learnt.",
		[]string{"route"}, nil)
	networkTotalDesc = prometheus.NewDesc("moonbridge_replicas_network_players_all_routes",
		"Players on every route over every live replica: this one's now and the others' as last learnt.", nil, nil)
)

// Describe and Collect make the Store a prometheus.Collector.
func (s *Store) Describe(ch chan<- *prometheus.Desc) {
	ch <- upDesc
	ch <- errorsDesc
	ch <- otherPlayersDesc
	ch <- sharedBlocksDesc
	ch <- networkPlayersDesc
	ch <- networkTotalDesc
}

func (s *Store) Collect(ch chan<- prometheus.Metric) {
	up := 1.0
	if s.Away() {
		up = 0
	}
	ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, up)
	ch <- prometheus.MustNewConstMetric(errorsDesc, prometheus.CounterValue, float64(s.health.errors.Load()))
	ch <- prometheus.MustNewConstMetric(sharedBlocksDesc, prometheus.GaugeValue, float64(s.blocks.held.Load()))
	var here map[string]int
	if s.counts != nil {
		here, _ = s.counts()
	}
	s.players.mu.Lock()
	defer s.players.mu.Unlock()
	for route := range s.players.others {
		ch <- prometheus.MustNewConstMetric(otherPlayersDesc, prometheus.GaugeValue, float64(s.othersLocked(route)), route)
	}
	total := 0
	for route, n := range here {
		n += s.othersLocked(route)
		total += n
		ch <- prometheus.MustNewConstMetric(networkPlayersDesc, prometheus.GaugeValue, float64(n), route)
	}
	ch <- prometheus.MustNewConstMetric(networkTotalDesc, prometheus.GaugeValue, float64(total))
}
