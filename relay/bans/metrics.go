package bans

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	bansDesc = prometheus.NewDesc("moonbridge_bans",
		"Bans in force now (the bans file and the admin API's), by kind: name, uuid, address.", []string{"kind"}, nil)
	banRefusalsDesc = prometheus.NewDesc("moonbridge_ban_refusals_total",
		"Logins and connections refused by a ban, by the ban's kind: name, uuid, address.", []string{"kind"}, nil)
)

// Describe sends the list's descriptors: the list is a prometheus.Collector.
func (l *List) Describe(ch chan<- *prometheus.Desc) {
	ch <- bansDesc
	ch <- banRefusalsDesc
}

// Collect sends the bans in force by kind (the ended ones swept first) and the refusals.
func (l *List) Collect(ch chan<- prometheus.Metric) {
	counts := l.Counts(time.Now())
	for i, kind := range Kinds {
		ch <- prometheus.MustNewConstMetric(bansDesc, prometheus.GaugeValue, float64(counts[i]), string(kind))
		ch <- prometheus.MustNewConstMetric(banRefusalsDesc, prometheus.CounterValue, float64(l.refused[i].Load()), string(kind))
	}
}
