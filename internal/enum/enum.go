// Package enum reads the named values settings take (a listener's protocols, a route's
// forwarding): each type declares its names once, next to the type, and parses and prints
// itself with Parse or Index, so that the config file and the Go API share one set.
package enum

import (
	"fmt"
	"slices"
	"strings"
)

// Error is a value that is not one of its type's names.
type Error struct {
	Value string
	Names []string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%q is not one of %s", e.Value, strings.Join(e.Names, ", "))
}

// Parse returns the one of names that text spells.
func Parse[T ~string](text []byte, names ...T) (T, error) {
	for _, n := range names {
		if string(n) == string(text) {
			return n, nil
		}
	}
	var zero T
	return zero, newError(text, names)
}

// Check says whether v is one of names; "" (a Go zero value, which means a default) is.
func Check[T ~string](v T, names ...T) error {
	if v == "" || slices.Contains(names, v) {
		return nil
	}
	return newError([]byte(v), names)
}

// Index returns the position of text among names, for a type that counts its values from 0.
func Index(text []byte, names ...string) (int, error) {
	if i := slices.Index(names, string(text)); i >= 0 {
		return i, nil
	}
	return 0, newError(text, names)
}

// Name is names[i], or the number itself for a value outside them.
func Name(i int, names ...string) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("%d", i)
}

func newError[T ~string](text []byte, names []T) *Error {
	e := &Error{Value: string(text)}
	for _, n := range names {
		e.Names = append(e.Names, string(n))
	}
	return e
}
