package pkgmanager

import "fmt"

// SettingsError is a setting that cannot go into a manifest.
type SettingsError struct {
	Setting, Value, Why string
}

func (e *SettingsError) Error() string {
	return fmt.Sprintf("%s %q: %s", e.Setting, e.Value, e.Why)
}

// SumsError is a line of SHA256SUMS that is not "<64 hex digits>  <file>".
type SumsError struct {
	Line int
	Text string
	Why  string
}

func (e *SumsError) Error() string {
	return fmt.Sprintf("SHA256SUMS line %d %q: %s", e.Line, e.Text, e.Why)
}

// MissingArchiveError is an archive a manifest needs that the release does not have: not listed
// in SHA256SUMS, or listed but not in the folder.
type MissingArchiveError struct {
	Manifest string // the manifest that needs it, as a path under dist/
	Archive  string // its file name
	Where    string // "SHA256SUMS" or the folder it should be in
}

func (e *MissingArchiveError) Error() string {
	return fmt.Sprintf("%s needs %s, which is not in %s: was it built (dist.mk's DIST_TARGETS)?", e.Manifest, e.Archive, e.Where)
}

// HashMismatchError is a sha256 that differs from SHA256SUMS's for the same file.
type HashMismatchError struct {
	Source  string // the manifest, as a path under dist/, or the archive file itself
	Archive string
	Got     string // what Source says or is
	Want    string // what SHA256SUMS says
}

func (e *HashMismatchError) Error() string {
	return fmt.Sprintf("%s: sha256 of %s is %s, SHA256SUMS says %s", e.Source, e.Archive, e.Got, e.Want)
}

// ManifestError is a manifest that does not parse or does not say what this package writes.
type ManifestError struct {
	Manifest string // path under dist/
	Why      string
}

func (e *ManifestError) Error() string {
	return fmt.Sprintf("%s: %s", e.Manifest, e.Why)
}
