package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"
)

// ErrEmptyFile is a config file with nothing in it. It is refused rather than read as the
// defaults: an empty file is usually a truncated write, and a SIGHUP that loaded it would close
// the configured listeners and drop the routes, trusted proxies and limits.
var ErrEmptyFile = errors.New("the file is empty (a truncated write?); leave --config out to run with the built-in defaults")

// Load reads a YAML file over the defaults: keys it does not set keep their default values.
// Unknown keys, wrong types and invalid values are errors that name the key and line; an empty
// file is ErrEmptyFile.
func Load(path string) (Config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return Config{}, fmt.Errorf("config %s: %w", path, ErrEmptyFile)
	}
	cfg, err := Parse(raw, os.LookupEnv)
	if err != nil {
		return Config{}, fmt.Errorf("config %s:\n%w", path, err)
	}
	return cfg, nil
}

// Parse decodes YAML over the defaults after expanding environment placeholders with lookup,
// and validates the result.
func Parse(raw []byte, lookup func(string) (string, bool)) (Config, error) {
	expanded, err := ExpandEnv(raw, lookup)
	if err != nil {
		return Config{}, err
	}
	cfg := Default()
	lines := keyLines{}
	if len(bytes.TrimSpace(expanded)) > 0 {
		if lines, err = decode(expanded, "", &cfg); err != nil {
			return Config{}, err
		}
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, lines.annotate(err)
	}
	return cfg, nil
}

// decode checks the document's shape against v's type (checkShape), its keys named under
// root ("" for the file, "route" for one route), then decodes it strictly into v.
func decode(text []byte, root string, v any) (keyLines, error) {
	file, err := parser.ParseBytes(text, 0)
	if err != nil {
		return nil, yamlError(err)
	}
	if len(file.Docs) != 1 {
		return nil, fmt.Errorf("want one YAML document, found %d (--- starts another)", len(file.Docs))
	}
	lines, errs := checkShape(file.Docs[0], root, reflect.TypeOf(v).Elem())
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := decodeStrict(text, v); err != nil {
		return nil, err
	}
	return lines, nil
}

// DecoderPanicError is a document the YAML library panicked on (a tag with no value, for one:
// `protocols: !000`), refused as any other bad document: a file or a routes API body must not
// end the process.
type DecoderPanicError struct{ Panic any }

func (e *DecoderPanicError) Error() string {
	return fmt.Sprintf("the YAML decoder cannot read this document (%v); look for a tag (!name) or an unusual construct", e.Panic)
}

// decodeStrict decodes text into v strictly; the YAML library's errors are shown with their
// position, and its panics become a DecoderPanicError.
func decodeStrict(text []byte, v any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &DecoderPanicError{Panic: p}
		}
	}()
	if err := yaml.NewDecoder(bytes.NewReader(text), yaml.Strict()).Decode(v); err != nil {
		return yamlError(err) // what checkShape does not foresee
	}
	return nil
}

// annotate gives each InvalidError in err the line of its key, and puts them in the file's
// order, those about defaults last.
func (l keyLines) annotate(err error) error {
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	for _, e := range errs {
		var invalid *InvalidError
		if errors.As(e, &invalid) && invalid.Line == 0 {
			invalid.Line = l.line(invalid.Key)
		}
	}
	slices.SortStableFunc(errs, func(a, b error) int { return cmp.Compare(sortLine(a), sortLine(b)) })
	return errors.Join(errs...)
}

func sortLine(err error) int {
	var invalid *InvalidError
	if errors.As(err, &invalid) && invalid.Line > 0 {
		return invalid.Line
	}
	return math.MaxInt
}

// Marshal renders the effective configuration, as check-config prints it.
func (c Config) Marshal() ([]byte, error) {
	return yaml.MarshalWithOptions(c, yaml.IndentSequence(true))
}
