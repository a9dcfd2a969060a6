package pkgmanager

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"
)

const brewPath = "homebrew/moonbridge.rb"

// brewBlocks are the formula's on_<os> do / on_<arch> do blocks, in the order written.
var brewBlocks = []struct {
	os, arch string
	target   Target
}{
	{"macos", "intel", DarwinAMD64}, {"macos", "arm", DarwinARM64},
	{"linux", "intel", LinuxAMD64}, {"linux", "arm", LinuxARM64},
}

// Homebrew works inside the folder when an archive holds only one, so install finds moonbridge
// at the top (readFormula records the binary as the archive's Folder/moonbridge). The test runs `moonbridge version`, which prints the version.
var brewTemplate = template.Must(template.New("formula").Parse(`# Written by make dist from SHA256SUMS (deploy/cmd/mkmanifests), for a tap: Formula/moonbridge.rb.
class Moonbridge < Formula
  desc "{{.Summary}}"
  homepage "{{.Homepage}}"
  version "{{.Version}}"
  license "{{.License}}"
{{range .OS}}
  on_{{.Name}} do
{{- range .Arches}}
    on_{{.Name}} do
      url "{{.URL}}"
      sha256 "{{.SHA256}}"
    end
{{- end}}
  end
{{end}}
  def install
    bin.install "moonbridge"
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/moonbridge version")
  end
end
`))

type brewArch struct{ Name, URL, SHA256 string }

type brewOS struct {
	Name   string
	Arches []brewArch
}

var homebrew = kind{
	name:    "homebrew",
	targets: []Target{DarwinAMD64, DarwinARM64, LinuxAMD64, LinuxARM64},
	main:    func(Settings) string { return brewPath },
	write:   writeFormula,
	read:    readFormula,
}

func writeFormula(s Settings, d map[Target]Download) (map[string][]byte, error) {
	var oses []brewOS
	for _, b := range brewBlocks {
		if len(oses) == 0 || oses[len(oses)-1].Name != b.os {
			oses = append(oses, brewOS{Name: b.os})
		}
		last := &oses[len(oses)-1]
		last.Arches = append(last.Arches, brewArch{b.arch, d[b.target].URL, d[b.target].SHA256})
	}
	var out bytes.Buffer
	err := brewTemplate.Execute(&out, map[string]any{"Summary": summary, "Homepage": s.Homepage, "Version": s.Version,
		"License": license, "OS": oses})
	return map[string][]byte{brewPath: out.Bytes()}, err
}

// The formula's lines that readFormula holds to one form. Ruby has no parser here: each block
// is read line by line, and a url, sha256 or on_ line anywhere else is an error.
var (
	brewVersionLine = regexp.MustCompile(`^  version "([A-Za-z0-9_.+-]+)"$`)
	brewOSLine      = regexp.MustCompile(`^  on_(macos|linux) do$`)
	brewArchLine    = regexp.MustCompile(`^    on_(intel|arm) do$`)
	brewURLLine     = regexp.MustCompile(`^      url "(https?://[^"\\#{} ]+)"$`)
	brewSHALine     = regexp.MustCompile(`^      sha256 "([0-9a-f]{64})"$`)
	brewLoose       = regexp.MustCompile(`^\s*(url|sha256|version|on_\w+)\b`)
	brewRequired    = []string{
		"class Moonbridge < Formula",
		`    bin.install "moonbridge"`,
		`    assert_match version.to_s, shell_output("#{bin}/moonbridge version")`,
	}
)

// brewReader is readFormula's state: the block it is in and what it has read.
type brewReader struct {
	os, arch string
	current  Download
	p        parsed
	seen     map[string]bool
}

func readFormula(dir string) (parsed, error) {
	data, err := os.ReadFile(filepath.Join(dir, brewPath))
	if err != nil {
		return parsed{path: brewPath}, err
	}
	text := string(data)
	for _, line := range brewRequired {
		if !strings.Contains(text, "\n"+line+"\n") {
			return parsed{path: brewPath}, &ManifestError{brewPath, fmt.Sprintf("no line %q", line)}
		}
	}
	r := brewReader{p: parsed{path: brewPath}, seen: map[string]bool{}}
	for i, line := range strings.Split(text, "\n") {
		if err := r.line(line); err != nil {
			return r.p, &ManifestError{brewPath, fmt.Sprintf("line %d %q: %v", i+1, line, err)}
		}
	}
	if r.os != "" {
		return r.p, &ManifestError{brewPath, "on_" + r.os + " is not closed"}
	}
	for i := range r.p.downloads {
		r.p.downloads[i].Binary = r.p.downloads[i].Target.Binary(r.p.version)
	}
	return r.p, nil
}

func (r *brewReader) line(line string) error {
	switch {
	case r.arch != "":
		return r.archLine(line)
	case r.os != "":
		return r.osLine(line)
	}
	if m := brewOSLine.FindStringSubmatch(line); m != nil {
		r.os = m[1]
		return nil
	}
	if m := brewVersionLine.FindStringSubmatch(line); m != nil && r.p.version == "" {
		r.p.version = m[1]
		return nil
	}
	if brewLoose.MatchString(line) {
		return fmt.Errorf("not in the form written, or outside its block")
	}
	return nil
}

// osLine reads inside on_<os> do: on_<arch> do blocks and end.
func (r *brewReader) osLine(line string) error {
	if line == "  end" {
		r.os = ""
		return nil
	}
	m := brewArchLine.FindStringSubmatch(line)
	if m == nil {
		return fmt.Errorf("want on_intel do, on_arm do or end in on_%s", r.os)
	}
	block := r.os + "/" + m[1]
	if r.seen[block] {
		return fmt.Errorf("a second %s block", block)
	}
	r.seen[block] = true
	r.arch = m[1]
	for _, b := range brewBlocks {
		if b.os == r.os && b.arch == r.arch {
			r.current = Download{Target: b.target}
		}
	}
	return nil
}

// archLine reads inside on_<arch> do: url, sha256, end, in that order.
func (r *brewReader) archLine(line string) error {
	if m := brewURLLine.FindStringSubmatch(line); m != nil && r.current.URL == "" {
		r.current.URL = m[1]
		return nil
	}
	if m := brewSHALine.FindStringSubmatch(line); m != nil && r.current.URL != "" && r.current.SHA256 == "" {
		r.current.SHA256 = m[1]
		return nil
	}
	if line == "    end" && r.current.SHA256 != "" {
		r.p.downloads = append(r.p.downloads, r.current)
		r.arch = ""
		return nil
	}
	return fmt.Errorf("want url, then sha256, then end in on_%s/on_%s", r.os, r.arch)
}
