package routes

// Status is what a route's server-list entry shows in place of its backend's answer, on every
// ping the route answers from a backend's answer (live, cached or last known); a key left empty
// keeps the backend's part. While no backend ever answered, the fallback section answers.
type Status struct {
	// MOTD is plain text with § codes, or a JSON text component ({"text":..,"color":..}).
	MOTD string `yaml:"motd"`
	// Icon is a 64x64 PNG file of at most 16 KiB, read at load and at every reload.
	Icon string `yaml:"icon"`
	// VersionName replaces the server's version name, which clients show in place of the player
	// count when their version differs from the server's (the protocol stays the server's).
	VersionName string `yaml:"version_name"`
	// Online is the player line's count: backend (the server's) or proxy (the proxy's count of
	// the route's players).
	Online string `yaml:"online"`
	// MaxPlayers is the player line's max; 0: the server's (or the route's max_players).
	MaxPlayers int `yaml:"max_players"`
}

// status.online values.
const (
	OnlineBackend = "backend"
	OnlineProxy   = "proxy"
)

func defaultStatus() Status { return Status{Online: OnlineBackend} }
