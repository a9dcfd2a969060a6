package config

import (
	"encoding"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
)

// keyLines maps each key the file sets ("limits.dial_timeout", "listeners[0].listen") to its
// line, so that an error found later, in validation, can say where to look.
type keyLines map[string]int

// line is the line of key, or of the closest enclosing key the file sets ("listeners[0]" for a
// listener's omitted protocols); 0 when the value is a default the file does not touch.
func (l keyLines) line(key string) int {
	for key != "" {
		if n, ok := l[key]; ok {
			return n
		}
		key = key[:max(strings.LastIndexAny(key, ".["), 0)]
	}
	return 0
}

// checkShape walks a parsed document along type t (Config for the file) before it is decoded,
// its keys named under root: an unknown key or a value of the wrong kind (a number where a
// duration goes, a list where a name goes) is reported with its key and line in a server
// owner's words, where the YAML decoder would name Go types. It returns every such error and
// the line of every key.
func checkShape(doc ast.Node, root string, t reflect.Type) (keyLines, []error) {
	s := &shapeChecker{lines: keyLines{}}
	s.value(root, doc, t)
	return s.lines, s.errs
}

type shapeChecker struct {
	lines keyLines
	errs  []error
}

var (
	durationType        = reflect.TypeFor[time.Duration]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func (s *shapeChecker) fail(key string, n ast.Node, format string, args ...any) {
	s.errs = append(s.errs, &InvalidError{Key: key, Line: nodeLine(n), Reason: fmt.Sprintf(format, args...)})
}

// value checks n against Go type t at key.
func (s *shapeChecker) value(key string, n ast.Node, t reflect.Type) {
	n = unwrap(n)
	if n == nil || n.Type() == ast.NullType || n.Type() == ast.AliasType {
		return // null keeps the default; an alias was checked where its anchor is
	}
	switch {
	case reflect.PointerTo(t).Implements(textUnmarshalerType):
		s.text(key, n, t)
	case t == durationType:
		s.duration(key, n)
	case t.Kind() == reflect.Struct:
		s.mapping(key, n, t)
	case t.Kind() == reflect.Slice:
		s.sequence(key, n, t.Elem())
	case t.Kind() == reflect.Int:
		if n.Type() != ast.IntegerType {
			s.fail(key, n, "want a whole number, not %s", describe(n))
		}
	case t.Kind() == reflect.Bool:
		if n.Type() != ast.BoolType {
			s.fail(key, n, "want true or false, not %s", describe(n))
		}
	case t.Kind() == reflect.String:
		if !isScalar(n) {
			s.fail(key, n, "want a single value, not %s", describe(n))
		}
	}
}

func (s *shapeChecker) mapping(key string, n ast.Node, t reflect.Type) {
	entries, ok := mappingEntries(n)
	if !ok {
		s.fail(key, n, "want keys and values (key: value), not %s", describe(n))
		return
	}
	for _, entry := range entries {
		name := entry.Key.GetToken().Value
		field, ok := fieldByTag(t, name)
		child := joinKey(key, name)
		if renamed, was := fieldWas(t, name); !ok && was {
			s.fail(child, entry.Key, "this key is now %s", yamlName(renamed))
			continue
		}
		if !ok {
			s.fail(child, entry.Key, "unknown key; %s", knownKeys(key, t))
			continue
		}
		s.lines[child] = nodeLine(entry.Key)
		s.value(child, entry.Value, field.Type)
	}
}

func (s *shapeChecker) sequence(key string, n ast.Node, elem reflect.Type) {
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		s.fail(key, n, "want a list ([a, b] or one \"- item\" a line), not %s", describe(n))
		return
	}
	for i, item := range seq.Values {
		child := fmt.Sprintf("%s[%d]", key, i)
		s.lines[child] = nodeLine(item)
		s.value(child, item, elem)
	}
}

func (s *shapeChecker) duration(key string, n ast.Node) {
	if n.Type() == ast.StringType {
		if _, err := time.ParseDuration(scalarText(n)); err == nil {
			return
		}
	}
	s.fail(key, n, "want a duration such as 5s, 1m30s or 500ms, not %s", describe(n))
}

// text checks a value its type parses itself (ByteSize) with that parser.
func (s *shapeChecker) text(key string, n ast.Node, t reflect.Type) {
	if !isScalar(n) {
		s.fail(key, n, "want a single value, not %s", describe(n))
		return
	}
	if err := reflect.New(t).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(scalarText(n))); err != nil {
		s.fail(key, n, "%v", err)
	}
}

// unwrap looks through a document, a tag (!!str) and an anchor (&name) to the value.
func unwrap(n ast.Node) ast.Node {
	for {
		switch v := n.(type) {
		case *ast.DocumentNode:
			n = v.Body
		case *ast.TagNode:
			n = v.Value
		case *ast.AnchorNode:
			n = v.Value
		default:
			return n
		}
	}
}

// mappingEntries is a mapping's key-value pairs; the parser gives a one-pair mapping as the
// pair itself.
func mappingEntries(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch v := n.(type) {
	case *ast.MappingNode:
		return v.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{v}, true
	}
	return nil, false
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	return findField(t, func(f reflect.StructField) bool { return yamlName(f) == name })
}

// fieldWas finds the field whose key was name before it was renamed (its tag was:"name").
func fieldWas(t reflect.Type, name string) (reflect.StructField, bool) {
	return findField(t, func(f reflect.StructField) bool { return f.Tag.Get("was") == name })
}

// findField is the first key of t that is, looking into the structs t inlines (a runtime
// package's settings with keys of the file's own beside them).
func findField(t reflect.Type, is func(reflect.StructField) bool) (reflect.StructField, bool) {
	for _, f := range keyFields(t) {
		if is(f) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// keyFields are the fields of t that are keys, those of inlined structs in their place.
func keyFields(t reflect.Type) []reflect.StructField {
	var fields []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		if _, opts, _ := strings.Cut(f.Tag.Get("yaml"), ","); opts == "inline" && f.Type.Kind() == reflect.Struct {
			fields = append(fields, keyFields(f.Type)...)
		} else if yamlName(f) != "-" {
			fields = append(fields, f)
		}
	}
	return fields
}

func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return name
}

func knownKeys(key string, t reflect.Type) string {
	var names []string
	for _, f := range keyFields(t) {
		names = append(names, yamlName(f))
	}
	slices.Sort(names)
	where := "here"
	if key != "" {
		where = "in " + key
	}
	return "the keys " + where + " are " + strings.Join(names, ", ")
}

func joinKey(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

func isScalar(n ast.Node) bool {
	switch n.Type() {
	case ast.MappingType, ast.MappingValueType, ast.SequenceType:
		return false
	}
	return true
}

// scalarText is a scalar's value as written, without quotes.
func scalarText(n ast.Node) string {
	if s, ok := n.(*ast.StringNode); ok {
		return s.Value
	}
	return n.GetToken().Value
}

// describe names what was written, for "want X, not Y".
func describe(n ast.Node) string {
	switch n.Type() {
	case ast.MappingType, ast.MappingValueType:
		return "keys and values"
	case ast.SequenceType:
		return "a list"
	}
	return fmt.Sprintf("%q", scalarText(n))
}

func nodeLine(n ast.Node) int {
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		return tk.Position.Line
	}
	return 0
}
