package pkgmanager

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// SumsFile is the checksum file packaging/dist.sh writes in dist/.
const SumsFile = "SHA256SUMS"

// Sums maps a file name in dist/ to its sha256, lower-case hex.
type Sums map[string]string

// sumsLine is one line of `sha256sum -- *`: the hash, a space, a space (text mode) or * (binary
// mode), the name.
var sumsLine = regexp.MustCompile(`^([0-9a-f]{64}) [ *](.+)$`)

// ParseSums reads SHA256SUMS. dist.sh writes it for the files at dist/'s top level, so a name
// with a / or sha256sum's \ escape (a name with a newline or backslash) is an error, as is a name
// listed twice.
func ParseSums(data []byte) (Sums, error) {
	sums := Sums{}
	text := strings.TrimSuffix(string(data), "\n")
	if text == "" {
		return nil, &SumsError{Line: 1, Why: "empty"}
	}
	for i, line := range strings.Split(text, "\n") {
		m := sumsLine.FindStringSubmatch(line)
		switch {
		case strings.HasPrefix(line, `\`) || (m != nil && strings.Contains(m[2], "/")):
			return nil, &SumsError{i + 1, line, "want a plain file name at dist/'s top level"}
		case m == nil:
			return nil, &SumsError{i + 1, line, "want <64 lower-case hex digits>, two spaces, a file name"}
		case sums[m[2]] != "":
			return nil, &SumsError{i + 1, line, "file listed twice"}
		}
		sums[m[2]] = m[1]
	}
	return sums, nil
}

// ReadSums reads dir's SHA256SUMS.
func ReadSums(dir string) (Sums, error) {
	data, err := os.ReadFile(filepath.Join(dir, SumsFile))
	if err != nil {
		return nil, err
	}
	return ParseSums(data)
}
