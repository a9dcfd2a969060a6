package config

import (
	"errors"
	"strings"

	"github.com/goccy/go-yaml"
)

// yamlError shows the YAML library's error with its position and the lines around it. A list
// or map left open ("[minecraft, ws" with no "]") is reported at the token after it, often the
// next line's key: the error then points after the last item instead, on the line of the mistake.
func yamlError(err error) error {
	var syntax *yaml.SyntaxError
	if errors.As(err, &syntax) && syntax.Token != nil {
		if what, open := unclosed(syntax.Message); open {
			if prev := syntax.Token.Prev; prev != nil && prev.Position.Line < syntax.Token.Position.Line {
				return errors.New(yaml.FormatErrorWithToken(what+" is not closed after this: "+syntax.Message, prev, false, true))
			}
		}
	}
	return errors.New(yaml.FormatError(err, false, true))
}

// unclosed says whether message is the library's for a flow list or map that lacks its end, and
// which of the two it is.
func unclosed(message string) (what string, open bool) {
	switch {
	case strings.Contains(message, "',' or ']' must be specified"):
		return "the list", true
	case strings.Contains(message, "',' or '}' must be specified"):
		return "the map", true
	}
	return "", false
}
