package config

import (
	"bytes"
	"fmt"
	"os"

	"github.com/goccy/go-yaml"
)

// Load reads a YAML file over the defaults: keys it does not set keep their default values.
// Unknown keys and wrong types are errors that name the key and line.
func Load(path string) (Config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	cfg, err := Parse(raw, os.LookupEnv)
	if err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// Parse decodes YAML over the defaults after expanding environment placeholders with lookup.
func Parse(raw []byte, lookup func(string) (string, bool)) (Config, error) {
	expanded, err := ExpandEnv(raw, lookup)
	if err != nil {
		return Config{}, err
	}
	cfg := Default()
	if len(bytes.TrimSpace(expanded)) > 0 {
		dec := yaml.NewDecoder(bytes.NewReader(expanded), yaml.Strict())
		if err := dec.Decode(&cfg); err != nil {
			return Config{}, fmt.Errorf("\n%s", yaml.FormatError(err, false, true))
		}
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// Marshal renders the effective configuration, as check-config prints it.
func (c Config) Marshal() ([]byte, error) {
	return yaml.MarshalWithOptions(c, yaml.IndentSequence(true))
}
