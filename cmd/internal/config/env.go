package config

import (
	"bytes"
	"fmt"
	"regexp"
)

// placeholder matches ${NAME} and ${NAME:default}; NAME is a shell-style variable name.
var placeholder = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:([^}]*))?\}`)

// UnsetVariableError is a ${NAME} placeholder without a default whose variable is not set.
type UnsetVariableError struct {
	Name string
	Line int
}

func (e *UnsetVariableError) Error() string {
	return fmt.Sprintf("line %d: environment variable %s is not set and ${%s} has no default (write ${%s:default})",
		e.Line, e.Name, e.Name, e.Name)
}

// ExpandEnv replaces placeholders line by line, so YAML errors keep their line numbers. Secrets
// (a token, a key path) can stay out of the file this way. Comments are left alone.
func ExpandEnv(raw []byte, lookup func(string) (string, bool)) ([]byte, error) {
	lines := bytes.SplitAfter(raw, []byte("\n"))
	var out bytes.Buffer
	for i, line := range lines {
		code, comment := splitComment(line)
		var missing *UnsetVariableError
		expanded := placeholder.ReplaceAllFunc(code, func(match []byte) []byte {
			parts := placeholder.FindSubmatch(match)
			if value, ok := lookup(string(parts[1])); ok {
				return []byte(value)
			}
			if parts[2] != nil {
				return parts[3]
			}
			if missing == nil {
				missing = &UnsetVariableError{Name: string(parts[1]), Line: i + 1}
			}
			return match
		})
		if missing != nil {
			return nil, missing
		}
		out.Write(expanded)
		out.Write(comment)
	}
	return out.Bytes(), nil
}

// splitComment splits a YAML line before its comment: a # at the start or after white space,
// outside single or double quotes.
func splitComment(line []byte) (code, comment []byte) {
	var quote byte
	for i, c := range line {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return line[:i], line[i:]
		}
	}
	return line, nil
}
