// Package ab compares variants as docs/design.md ("How we measure") asks: each variant is a
// separate `mbbench run` process, pairs run one after another with the starting variant
// rotating, and results are the median [min-max] of every variant's proxy phases plus, per
// pair, each variant's median over the first variant's.
package ab

import (
	"fmt"
	"strings"
)

// Variant is a name and the `mbbench run` flags that make it, e.g. haproxy's --target and
// --target-pid, or moonbridge's --serve.
type Variant struct {
	Name string   `json:"name"`
	Args []string `json:"args"`
}

// ParseVariant reads NAME=ARGS; ARGS are split on spaces (no quoting).
func ParseVariant(s string) (Variant, error) {
	name, args, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return Variant{}, fmt.Errorf("variant %q: want NAME=ARGS", s)
	}
	return Variant{Name: name, Args: strings.Fields(args)}, nil
}

// Order is the order in which pair p (from 0) runs n variants: rotated by p, so that with two
// variants the one that starts alternates, and with more each takes every position in turn.
func Order(n, p int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = (p + i) % n
	}
	return order
}
