// Package bytesize is the config file's sizes: a number of bytes, or one with a binary unit.
package bytesize

import (
	"fmt"
	"strconv"
	"strings"
)

// Size is a size in bytes written as a number or with a binary unit: 65536, 64KiB, 16MiB.
type Size int64

var byteUnits = []struct {
	suffix string
	factor int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}

// UnmarshalText parses "16MiB" and plain numbers.
func (s *Size) UnmarshalText(text []byte) error {
	raw := strings.TrimSpace(string(text))
	factor := int64(1)
	for _, unit := range byteUnits {
		if number, ok := strings.CutSuffix(raw, unit.suffix); ok {
			raw, factor = strings.TrimSpace(number), unit.factor
			break
		}
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("want a size such as 65536, 64KiB or 16MiB (a whole number of bytes, B, KiB, MiB or GiB), not %q", text)
	}
	*s = Size(n * factor)
	return nil
}

// MarshalText writes the largest unit that divides the size exactly.
func (s Size) MarshalText() ([]byte, error) {
	for _, unit := range byteUnits {
		if s != 0 && int64(s)%unit.factor == 0 {
			return []byte(strconv.FormatInt(int64(s)/unit.factor, 10) + unit.suffix), nil
		}
	}
	return []byte("0"), nil
}
