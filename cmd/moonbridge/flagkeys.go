package main

import (
	"errors"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// flagKeys maps each config key a given flag set to that flag ("listeners[0].listen" to
// "--listen"), so that an error about its value names what was typed.
type flagKeys map[string]string

// set gives *dst a flag's value when the flag was given, and records the key it set.
func (k flagKeys) set(dst *string, value, key, flag string) {
	if value != "" {
		*dst = value
		k[key] = flag
	}
}

// validate validates cfg; each InvalidError about a key a flag set comes back as a flagError.
func (k flagKeys) validate(cfg config.Config) error {
	err := cfg.Validate()
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return k.rename(err)
	}
	errs := joined.Unwrap()
	for i := range errs {
		errs[i] = k.rename(errs[i])
	}
	return errors.Join(errs...)
}

func (k flagKeys) rename(err error) error {
	var invalid *config.InvalidError
	if errors.As(err, &invalid) && k[invalid.Key] != "" {
		return &flagError{flag: k[invalid.Key], invalid: invalid}
	}
	return err
}

// flagError is an InvalidError about a value a flag gave: it names the flag, not the key.
type flagError struct {
	flag    string // e.g. --listen
	invalid *config.InvalidError
}

func (e *flagError) Error() string { return e.flag + ": " + e.invalid.Reason }
func (e *flagError) Unwrap() error { return e.invalid }
