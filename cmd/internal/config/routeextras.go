package config

// A route's keys beyond hosts and backends: what its server-list pings get (status_cache,
// fallback, last_known) and how it balances (balance).

// Route fallback names.
const (
	FallbackFixed     = "fixed"
	FallbackLastKnown = "last_known"
)

// LastKnown marks the last live status answer as offline while no backend answers; an empty
// key leaves that part as the server sent it.
type LastKnown struct {
	MOTDPrefix string `yaml:"motd_prefix"` // goes before the server's MOTD
	// VersionName replaces the server's version; clients then show it, in red, in place of the
	// player count.
	VersionName string `yaml:"version_name"`
}

func defaultLastKnown() LastKnown {
	return LastKnown{MOTDPrefix: "§c[offline] §r", VersionName: "§cOffline"}
}

// Balance names.
const (
	BalanceFailover         = "failover"
	BalanceRoundRobin       = "round-robin"
	BalanceRandom           = "random"
	BalanceLeastConnections = "least-connections"
)

func (r Route) validateExtras(key string) []error {
	errs := []error{
		oneOf(key+".fallback", r.Fallback, FallbackFixed, FallbackLastKnown),
		oneOf(key+".balance", r.Balance, BalanceFailover, BalanceRoundRobin, BalanceRandom, BalanceLeastConnections),
	}
	if r.StatusCache < 0 {
		errs = append(errs, invalid(key+".status_cache", "must be 0 (off) or a positive duration such as 5s"))
	}
	return errs
}
