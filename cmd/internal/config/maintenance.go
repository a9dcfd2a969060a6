package config

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/relay"
)

// MaintenanceEntry is one maintenance, of a route or of every route (docs/maintenance.md): as
// the config file's maintenance list writes it, and as the admin endpoint's PUT /maintenance
// takes it (where the icon is the PNG itself in base64, not a file, and kick can be asked).
type MaintenanceEntry struct {
	Route string `yaml:"route" json:"route"` // a route's label; "": every route
	On    bool   `yaml:"on" json:"on"`
	// MOTD is the server list's text (plain with § codes, or a JSON text component).
	MOTD string `yaml:"motd" json:"motd"`
	// Icon: in the file, a 64x64 PNG file (ReadIcon); in the API, that PNG in base64. "": the
	// route's status.icon, else none.
	Icon string `yaml:"icon" json:"icon,omitempty"`
	// Version is shown, in red, in place of the player count.
	Version string `yaml:"version" json:"version"`
	// Message is what a player not on the allowlist reads when turned away or kicked.
	Message string   `yaml:"message" json:"message"`
	Allow   []string `yaml:"allow" json:"allow"` // player names and UUIDs
	// Start and End bound the maintenance in time (RFC 3339, 2026-12-24T18:00:00Z); "": from
	// now, until switched off.
	Start string `yaml:"start" json:"start"`
	End   string `yaml:"end" json:"end"`
	// Kick (the API only) ends the sessions of players in play not on the allowlist.
	Kick bool `yaml:"-" json:"kick,omitempty"`
}

// DefaultMaintenanceEntry is an entry's defaults, for each key the file or a request leaves out.
func DefaultMaintenanceEntry() MaintenanceEntry {
	return MaintenanceEntry{MOTD: "§6Down for maintenance§r\n§7We will be back soon", Version: "§cMaintenance",
		Message: "The server is down for maintenance. Please come back later.", Allow: []string{}}
}

// UnmarshalYAML starts an entry from its defaults.
func (e *MaintenanceEntry) UnmarshalYAML(unmarshal func(any) error) error {
	*e = DefaultMaintenanceEntry()
	type plain MaintenanceEntry
	return unmarshal((*plain)(e))
}

// IconLoader turns an entry's Icon into the data URL the status JSON carries.
type IconLoader func(icon string) (string, error)

// IconFromBase64 is the API's IconLoader: the PNG in base64, checked as ReadIcon checks a file.
func IconFromBase64(icon string) (string, error) {
	if base64.StdEncoding.DecodedLen(len(icon)) > MaxIconBytes+2 {
		return "", fmt.Errorf("%w: larger than %d bytes", ErrIcon, MaxIconBytes)
	}
	data, err := base64.StdEncoding.DecodeString(icon)
	if err != nil {
		return "", fmt.Errorf("%w: not base64: %v", ErrIcon, err)
	}
	if len(data) > MaxIconBytes {
		return "", fmt.Errorf("%w: larger than %d bytes", ErrIcon, MaxIconBytes)
	}
	url, err := mc.FaviconDataURL(data)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrIcon, err)
	}
	return url, nil
}

// Mode is the relay's maintenance of e (nil when e is off; an entry that is off is checked
// too), with icon loading e's icon. Each error is an *InvalidError naming the entry's key under key ("maintenance[0]", or "" for the
// API's body).
func (e MaintenanceEntry) Mode(key string, icon IconLoader) (*relay.MaintenanceMode, error) {
	var errs []error
	m := &relay.MaintenanceMode{VersionName: e.Version}
	var err error
	if m.MOTD, err = mc.ParseText(e.MOTD); err != nil {
		errs = append(errs, invalid(subKey(key, "motd"), "%v", err))
	}
	if m.Message, err = mc.ParseText(e.Message); err != nil {
		errs = append(errs, invalid(subKey(key, "message"), "%v", err))
	}
	errs = append(errs, versionName(subKey(key, "version"), e.Version))
	if e.Icon != "" {
		if m.Favicon, err = icon(e.Icon); err != nil {
			errs = append(errs, invalid(subKey(key, "icon"), "%v", err))
		}
	}
	if m.Allow, err = relay.NewAllowlist(e.Allow); err != nil {
		errs = append(errs, invalid(subKey(key, "allow"), "%v", err))
	}
	errs = append(errs, e.times(key, m))
	if err := errors.Join(errs...); err != nil || !e.On {
		return nil, err
	}
	return m, nil
}

// times reads Start and End into m: RFC 3339, the end after the start.
func (e MaintenanceEntry) times(key string, m *relay.MaintenanceMode) error {
	var err error
	if e.Start != "" {
		if m.Start, err = time.Parse(time.RFC3339, e.Start); err != nil {
			return invalid(subKey(key, "start"), "want a time such as 2026-12-24T18:00:00Z, not %.40q", e.Start)
		}
	}
	if e.End != "" {
		if m.End, err = time.Parse(time.RFC3339, e.End); err != nil {
			return invalid(subKey(key, "end"), "want a time such as 2026-12-24T20:00:00Z, not %.40q", e.End)
		}
	}
	if !m.Start.IsZero() && !m.End.IsZero() && !m.End.After(m.Start) {
		return invalid(subKey(key, "end"), "must be after start")
	}
	return nil
}

// subKey is key.name, or name for the API's body.
func subKey(key, name string) string {
	if key == "" {
		return name
	}
	return key + "." + name
}

// validateMaintenance checks the file's maintenance list: each entry as Mode reads it, and one
// entry per route at most.
func validateMaintenance(entries []MaintenanceEntry) []error {
	var errs []error
	seen := map[string]int{}
	for i, e := range entries {
		key := fmt.Sprintf("maintenance[%d]", i)
		if j, dup := seen[e.Route]; dup {
			errs = append(errs, invalid(key+".route", "%q has an entry already (maintenance[%d])", e.Route, j))
		}
		seen[e.Route] = i
		if strings.TrimSpace(e.Route) != e.Route {
			errs = append(errs, invalid(key+".route", "%q has spaces around it", e.Route))
		}
		if e.Icon != "" {
			if err := iconFile(key+".icon", e.Icon); err != nil {
				errs = append(errs, err)
				e.Icon = "" // checked here, with the file's messages
			}
		}
		if _, err := e.Mode(key, ReadIcon); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// maintenanceWarnings are the maintenance entries for a label no route of the file has.
func (c Config) maintenanceWarnings() []Warning {
	var out []Warning
	for i, e := range c.Maintenance {
		if e.Route == "" || slices.ContainsFunc(c.Routes, func(r Route) bool { return r.Label() == e.Route }) {
			continue
		}
		out = append(out, Warning{WarnMaintenanceRoute, fmt.Sprintf("maintenance[%d].route", i),
			fmt.Sprintf("%q names no route of this file: it applies only to a route of that label from the routes API or discovery", e.Route)})
	}
	return out
}
