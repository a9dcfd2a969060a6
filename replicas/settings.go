package replicas

import (
	"crypto/tls"
	"time"
)

// Settings say where Redis is and how long a replica waits for it; cmd/moonbridge makes them
// from the config file's replicas section.
type Settings struct {
	// Address is Redis' host:port.
	Address  string
	Username string
	Password string
	// TLS, when set, is used to reach Redis over TLS.
	TLS *tls.Config
	// KeyPrefix goes before every key, so that several networks can share one Redis.
	KeyPrefix string
	// ReplicaID names this replica in Redis; it must differ between replicas (the host name
	// and process id by default).
	ReplicaID string
	// Egress names the address this replica reaches the session server from: the replicas
	// that name the same one share the login meter's budget ("" is a name too: every replica
	// that leaves it empty shares one).
	Egress string
	// Timeout bounds every background call (heartbeat, refreshes, publishing a block).
	Timeout time.Duration
	// JoinWait bounds what a player's join waits on Redis (the check of max_players across
	// replicas); past it the join is decided by this replica's own count.
	JoinWait time.Duration
	// Heartbeat is how often the replica publishes its counts and reads the others'.
	Heartbeat time.Duration
	// BlockRefresh is how often the shared block list is checked for changes.
	BlockRefresh time.Duration
}

// Defaults of the bounds and periods.
const (
	DefaultTimeout      = 500 * time.Millisecond
	DefaultJoinWait     = 50 * time.Millisecond
	DefaultHeartbeat    = time.Second
	DefaultBlockRefresh = 250 * time.Millisecond
	DefaultKeyPrefix    = "moonbridge:"
)

// withDefaults fills the zero periods and bounds.
func (s Settings) withDefaults() Settings {
	for _, d := range []struct {
		field *time.Duration
		value time.Duration
	}{{&s.Timeout, DefaultTimeout}, {&s.JoinWait, DefaultJoinWait}, {&s.Heartbeat, DefaultHeartbeat}, {&s.BlockRefresh, DefaultBlockRefresh}} {
		if *d.field <= 0 {
			*d.field = d.value
		}
	}
	return s
}

// liveFor is how long a replica counts after its last heartbeat.
func (s Settings) liveFor() time.Duration { return 3 * s.Heartbeat }
