package config

import (
	"os"
	"unicode/utf8"

	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/routes"
)

// maxVersionName bounds a version text an owner sets: clients show it on one line.
const maxVersionName = 256

// validateStatus checks a route's status section: its texts, its icon file and its player line.
func validateStatus(s routes.Status, key string) []error {
	key += ".status"
	errs := []error{
		oneOf(key+".online", s.Online, routes.OnlineBackend, routes.OnlineProxy),
		ownerText(key+".motd", s.MOTD),
		versionName(key+".version_name", s.VersionName),
		iconFile(key+".icon", s.Icon),
	}
	if s.MaxPlayers < 0 {
		errs = append(errs, invalid(key+".max_players", "must be 0 (the server's) or a number of players"))
	}
	return errs
}

// ownerText checks a text the server list or a disconnect shows (mc.ParseText); "" is none.
func ownerText(key, s string) error {
	if s == "" {
		return nil
	}
	if _, err := mc.ParseText(s); err != nil {
		return invalid(key, "%v", err)
	}
	return nil
}

// versionName checks a version text: UTF-8, one line, at most maxVersionName bytes.
func versionName(key, s string) error {
	if len(s) > maxVersionName || !utf8.ValidString(s) {
		return invalid(key, "must be UTF-8 text of at most %d bytes", maxVersionName)
	}
	return nil
}

// iconFile checks an icon file as ReadIcon reads it (which opens no FIFO or device); "" is none.
func iconFile(key, path string) error {
	if path == "" {
		return nil
	}
	if info, err := os.Stat(path); err != nil {
		return invalid(key, "cannot read %s: %v", path, pathErrorReason(err))
	} else if info.IsDir() {
		return invalid(key, "%s is a directory, not a file", path)
	}
	if _, err := ReadIcon(path); err != nil {
		return invalid(key, "%v", err)
	}
	return nil
}
