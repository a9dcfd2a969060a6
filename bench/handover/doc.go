// Package handover measures a binary upgrade (SIGUSR2, docs/upgrade.md) under load: it starts
// moonbridge, logs paced players in over the chosen transports (flood's legitimate players:
// every byte checked), runs a connect loop (a new connection and a server-list ping every few
// ms), signals the main process once or several times in a row, each time the process that
// serves then (learnt from the old process's hand-over line), and reports the players broken,
// the sessions moved and stayed, the longest pause of a stream, the added p99 round trip, the
// connect attempts that failed, when each old process exited and the processes' RSS.
package handover
