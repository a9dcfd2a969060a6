package config

import (
	"os"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/replicas"
)

// Replicas is the state moonbridge instances behind one address share on Redis or Valkey
// (package replicas, docs/replicas.md): the players per route and max_players, the block list,
// the per-network rates. Off by default: each instance counts alone.
type Replicas struct {
	Enabled bool `yaml:"enabled"`
	// Address is Redis' host:port.
	Address  string `yaml:"address"`
	Username string `yaml:"username"`
	// PasswordFile holds the password (its surrounding white space dropped); "": none.
	PasswordFile string      `yaml:"password_file"`
	TLS          ReplicasTLS `yaml:"tls"`
	// KeyPrefix goes before every key, so that several networks can share one Redis.
	KeyPrefix string `yaml:"key_prefix"`
	// ID names this instance among the replicas; "": its host name and process id.
	ID string `yaml:"id"`
	// LoginEgress names the address this instance reaches the session server from: the
	// instances that name the same one share login.meter's budget. "" is one name too.
	LoginEgress string `yaml:"login_egress"`
	// Timeout bounds each background call (heartbeat, refreshes, publishing a block).
	Timeout time.Duration `yaml:"timeout"`
	// JoinWait bounds what a player's join waits on Redis for max_players across replicas.
	JoinWait time.Duration `yaml:"join_wait"`
	// Heartbeat is how often an instance publishes its players and reads the others'.
	Heartbeat time.Duration `yaml:"heartbeat"`
}

// ReplicasTLS is how Redis is reached over TLS.
type ReplicasTLS struct {
	Enabled bool `yaml:"enabled"`
	// CAFile is the PEM authority of Redis' certificate; "": the system's.
	CAFile string `yaml:"ca_file"`
	// ServerName is the name the certificate must carry; "": the address' host.
	ServerName string `yaml:"server_name"`
}

func defaultReplicas() Replicas {
	return Replicas{
		Address: "127.0.0.1:6379", KeyPrefix: replicas.DefaultKeyPrefix, Timeout: replicas.DefaultTimeout,
		JoinWait: replicas.DefaultJoinWait, Heartbeat: replicas.DefaultHeartbeat,
	}
}

// validate checks the section when it is on; the files it names are read at start.
func (r Replicas) validate() []error {
	const key = "replicas"
	if !r.Enabled {
		return nil
	}
	errs := []error{dialAddr(key+".address", r.Address)}
	if r.KeyPrefix == "" || strings.ContainsAny(r.KeyPrefix, " \t\r\n") {
		errs = append(errs, invalid(key+".key_prefix", "%q must be non-empty text without spaces, such as moonbridge:", r.KeyPrefix))
	}
	for _, name := range []struct{ key, value string }{{"id", r.ID}, {"login_egress", r.LoginEgress}} {
		if strings.ContainsAny(name.value, " \t\r\n") {
			errs = append(errs, invalid(key+"."+name.key, "%q may not hold spaces", name.value))
		}
	}
	if r.Timeout <= 0 {
		errs = append(errs, invalid(key+".timeout", "must be a positive duration such as 500ms"))
	}
	if r.JoinWait <= 0 || r.JoinWait > time.Second {
		errs = append(errs, invalid(key+".join_wait", "must be a positive duration of at most 1s (a join waits that long on Redis), such as 50ms"))
	}
	if r.Heartbeat < 100*time.Millisecond || r.Heartbeat > 10*time.Second {
		errs = append(errs, invalid(key+".heartbeat", "must be from 100ms to 10s"))
	}
	if !r.TLS.Enabled && (r.TLS.CAFile != "" || r.TLS.ServerName != "") {
		errs = append(errs, invalid(key+".tls", "ca_file and server_name are for tls.enabled: true"))
	}
	return append(errs, passwordFile(key+".password_file", r.PasswordFile), readableFile(key+".tls.ca_file", r.TLS.CAFile))
}

// passwordFile: path, when set, is a readable file that holds a password. One that holds only
// white space (a Secret shipped empty) would send no AUTH: a Redis that wants a password refuses
// every call, one that wants none takes writes from anyone.
func passwordFile(key, path string) error {
	if err := readableFile(key, path); err != nil || path == "" {
		return err
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return invalid(key, "cannot read %s: %v", path, pathErrorReason(err))
	}
	if strings.TrimSpace(string(raw)) == "" {
		return invalid(key, "%s is empty: put Redis' password in it, or leave password_file out for a Redis without one", path)
	}
	return nil
}
