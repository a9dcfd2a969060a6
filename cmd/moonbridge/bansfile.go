package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/atomicfile"
	"github.com/moonbridge/moonbridge/relay/bans"
)

// banStore is the ban list the relay checks and the file it is kept in (bans_file). The file
// is the list: read at start (a file that does not load refuses the start: the bans would
// otherwise not hold) and on SIGHUP (one that does not load keeps the list in force, and the
// log says why); the admin API's changes rewrite it whole and atomically, in its format, the
// bans that have ended left out. An API change is refused (ErrBansFileChanged) while the file
// on disk is not the one last read or written: an owner's edit not yet reloaded is never
// overwritten. Without a file the API's bans live in memory only.
type banStore struct {
	list *bans.List
	log  zerolog.Logger

	mu   sync.Mutex // one change or reload at a time
	path string
	seen [sha256.Size]byte // the file as last read or written; zero: it did not exist
}

// maxBansFileBytes bounds the file read: MaxBans bans of the longest kind, written out.
const maxBansFileBytes = 128 << 20

// ErrBansFileChanged: the bans file changed on disk since moonbridge read it.
var ErrBansFileChanged = errors.New("bans_file changed on disk since moonbridge read it: reload (SIGHUP) to take the edit in, then repeat the change")

// bansDoc is the file: a bans: list of entries (bans.Entry), the keys the API takes.
type bansDoc struct {
	Bans []bans.Entry `json:"bans" yaml:"bans"`
}

// openBans reads path (none: an empty list in memory) for serve.
func openBans(path string, log zerolog.Logger) (*banStore, error) {
	s := &banStore{list: bans.NewList(), log: log, path: path}
	if path == "" {
		return s, nil
	}
	list, sum, err := readBansFile(path, time.Now())
	if err != nil {
		return nil, err
	}
	s.list.Replace(list)
	s.seen = sum
	log.Info().Str("file", path).Int("bans", len(list)).Msg("bans read")
	return s, nil
}

// reload reads the file at path again (the running config's bans_file, which a reload may
// have changed): the list becomes what it says, or stays as it is when it does not load.
func (s *banStore) reload(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if path == "" {
		if s.path != "" {
			s.log.Warn().Str("was", s.path).Msg("SIGHUP: bans_file is no longer set; the bans in force stay, in memory only")
		}
		s.path = ""
		return
	}
	list, sum, err := readBansFile(path, time.Now())
	if err != nil {
		s.log.Error().Err(err).Msg("SIGHUP: bans not reloaded; keeping the bans in force")
		return
	}
	s.list.Replace(list)
	s.path, s.seen = path, sum
	s.log.Info().Str("file", path).Int("bans", len(list)).Msg("SIGHUP: bans reloaded")
}

// add puts b on the list and in the file; replaced: a ban with its key was there.
func (s *banStore) add(b bans.Ban) (replaced bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.list.All(time.Now())
	i := slices.IndexFunc(next, func(o bans.Ban) bool { return o.Kind == b.Kind && o.Value == b.Value })
	if i >= 0 {
		next[i] = b
	} else if next = append(next, b); len(next) > bans.MaxBans {
		return false, bans.ErrFull
	}
	if err := s.save(next); err != nil {
		return false, err
	}
	return s.list.Add(b)
}

// remove takes the ban of kind on value (canonical) off the list and out of the file.
func (s *banStore) remove(kind bans.Kind, value string) (bans.Ban, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.list.Get(kind, value)
	if !ok || !b.Active(time.Now()) {
		return bans.Ban{}, false, nil
	}
	next := slices.DeleteFunc(s.list.All(time.Now()), func(o bans.Ban) bool { return o.Kind == kind && o.Value == value })
	if err := s.save(next); err != nil {
		return bans.Ban{}, false, err
	}
	s.list.Remove(kind, value)
	return b, true, nil
}

// save writes list to the file, when there is one, unless it changed on disk; s.mu is held.
func (s *banStore) save(list []bans.Ban) error {
	if s.path == "" {
		return nil
	}
	if sum, err := fileSum(s.path); err != nil {
		return fmt.Errorf("bans_file %s: %w", s.path, err)
	} else if sum != s.seen {
		return ErrBansFileChanged
	}
	text, err := encodeBans(s.path, list)
	if err == nil {
		err = atomicfile.Write(s.path, text)
	}
	if err != nil {
		return fmt.Errorf("writing bans_file %s: %w", s.path, err)
	}
	s.seen = sha256.Sum256(text)
	return nil
}

// fileSum is the SHA-256 of the file at path; zero when it does not exist.
func fileSum(path string) ([sha256.Size]byte, error) {
	text, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return [sha256.Size]byte{}, nil
	}
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	return sha256.Sum256(text), nil
}

// readBansFile reads and checks the bans file: none when it does not exist yet (the API's
// first change makes it). A ban that has ended by now is left out; any other entry that does
// not check out makes the whole file refused, the error naming the first maxEntryErrors such
// entries, with their index and reason.
func readBansFile(path string, now time.Time) ([]bans.Ban, [sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	text, err := readBounded(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, sum, nil
	}
	if err != nil {
		return nil, sum, fmt.Errorf("bans_file: %w", err)
	}
	list, err := decodeBans(path, text, now)
	if err != nil {
		return nil, sum, fmt.Errorf("bans_file %s: %w", path, err)
	}
	return list, sha256.Sum256(text), nil
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	text, err := io.ReadAll(io.LimitReader(f, maxBansFileBytes+1))
	if err == nil && len(text) > maxBansFileBytes {
		err = fmt.Errorf("%s is over %d MiB", path, maxBansFileBytes>>20)
	}
	return text, err
}

// maxEntryErrors bounds the entries a refused file's error names.
const maxEntryErrors = 20

func decodeBans(path string, text []byte, now time.Time) ([]bans.Ban, error) {
	var doc bansDoc
	if err := unmarshalBans(path, text, &doc); err != nil {
		return nil, err
	}
	if len(doc.Bans) > bans.MaxBans {
		return nil, fmt.Errorf("%d bans: %w", len(doc.Bans), bans.ErrFull)
	}
	list := make([]bans.Ban, 0, len(doc.Bans))
	var errs []error
	for i, e := range doc.Bans {
		b, err := e.Ban(now)
		switch {
		case errors.Is(err, bans.ErrEnded):
		case err != nil && len(errs) < maxEntryErrors:
			errs = append(errs, fmt.Errorf("bans[%d]: %w", i, err))
		case err != nil:
		default:
			list = append(list, b)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return list, nil
}

// unmarshalBans decodes the file strictly (unknown keys are errors), as JSON or YAML by its name.
func unmarshalBans(path string, text []byte, doc *bansDoc) (err error) {
	if isJSON(path) {
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(doc); err != nil {
			return err
		}
		if dec.Decode(&struct{}{}) != io.EOF {
			return errors.New("more than one JSON value")
		}
		return nil
	}
	defer func() {
		if p := recover(); p != nil { // the YAML decoder's, on a document it cannot read
			err = fmt.Errorf("the YAML decoder cannot read this document: %v", p)
		}
	}()
	return yaml.NewDecoder(bytes.NewReader(text), yaml.Strict()).Decode(doc)
}

// bansFileHeader is the comment the YAML file is written with.
const bansFileHeader = "# moonbridge's bans (bans_file, docs/bans.md). moonbridge rewrites this file when the\n" +
	"# admin API changes a ban; comments are not kept. Edit it, then reload (SIGHUP).\n"

func encodeBans(path string, list []bans.Ban) ([]byte, error) {
	doc := bansDoc{Bans: make([]bans.Entry, len(list))}
	for i, b := range list {
		doc.Bans[i] = b.Entry()
	}
	if isJSON(path) {
		text, err := json.MarshalIndent(doc, "", "  ")
		return append(text, '\n'), err
	}
	return appendYAML([]byte(bansFileHeader), doc.Bans), nil
}

// appendYAML writes entries as the bans: list of a YAML file, each scalar double-quoted with
// JSON's escapes (which YAML's double quotes read the same). The YAML library's encoder takes
// about 0.2 ms a ban, 20 s for 100,000, under the lock of every change; this takes JSON's time.
func appendYAML(dst []byte, entries []bans.Entry) []byte {
	if len(entries) == 0 {
		return append(dst, "bans: []\n"...)
	}
	dst = append(dst, "bans:\n"...)
	for _, e := range entries {
		dst = appendYAMLField(append(dst, "  - "...), "kind", string(e.Kind))
		for _, f := range [][2]string{{"value", e.Value}, {"reason", e.Reason}, {"expires", e.Expires}, {"added", e.Added}} {
			if f[1] != "" {
				dst = appendYAMLField(append(dst, "    "...), f[0], f[1])
			}
		}
		if e.ConfirmWide {
			dst = append(dst, "    confirm_wide: true\n"...)
		}
	}
	return dst
}

func appendYAMLField(dst []byte, key, value string) []byte {
	quoted, _ := json.Marshal(value) // a string: cannot fail
	dst = append(append(dst, key...), ": "...)
	return append(append(dst, quoted...), '\n')
}

func isJSON(path string) bool { return strings.EqualFold(filepath.Ext(path), ".json") }
