// Package pkgmanager writes the package-manager manifests of a release from its SHA256SUMS, and
// checks them against it: what `make dist` leaves in dist/ for an owner to publish to a Scoop
// bucket, to winget-pkgs and to a Homebrew tap. Read and written (DIR is dist/):
//
//	DIR/SHA256SUMS                     read: "<sha256 hex>  <file>" a line (sha256sum's output)
//	DIR/moonbridge_<v>_<os>_<arch>_<flavour>.zip|.tar.gz
//	                                   read: the archives, one folder of that name inside each
//	DIR/scoop/moonbridge.json          Scoop app manifest: architecture 64bit and arm64, each
//	                                   url, hash, extract_dir; bin moonbridge.exe
//	DIR/winget/<ID>/<ID>.yaml          winget version manifest       } manifest version 1.6.0,
//	DIR/winget/<ID>/<ID>.installer.yaml  zip holding a portable       } multi-file: x64 and
//	                                   moonbridge.exe, alias moonbridge } arm64 installers
//	DIR/winget/<ID>/<ID>.locale.en-US.yaml  defaultLocale manifest
//	DIR/homebrew/moonbridge.rb         formula: on_macos (purego) and on_linux (boringssl), each
//	                                   with on_intel and on_arm: url and sha256
//
// Every URL is Settings.URL + "/" + the archive's file name. SHA256SUMS does not list the
// manifests: they are made from it, and they carry the owner's download URL, which is not part
// of the build (make dist-manifests writes them again for another URL without touching it).
package pkgmanager

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Target is one archive of the dist matrix (dist.mk's DIST_TARGETS).
type Target struct {
	OS, Arch, Flavour string
}

// The archives the manifests point at. Windows and macOS have the purego flavour only; Linux
// gets boringssl, the flavour the .deb, the .rpm and docs/install.md recommend for a server.
var (
	WindowsAMD64 = Target{"windows", "amd64", "purego"}
	WindowsARM64 = Target{"windows", "arm64", "purego"}
	DarwinAMD64  = Target{"darwin", "amd64", "purego"}
	DarwinARM64  = Target{"darwin", "arm64", "purego"}
	LinuxAMD64   = Target{"linux", "amd64", "boringssl"}
	LinuxARM64   = Target{"linux", "arm64", "boringssl"}
)

func (t Target) String() string { return t.OS + "/" + t.Arch + "/" + t.Flavour }

// Folder is the one top-level folder of the archive (packaging/archive.sh).
func (t Target) Folder(version string) string {
	return "moonbridge_" + version + "_" + t.OS + "_" + t.Arch + "_" + t.Flavour
}

// Archive is the archive's file name in dist/.
func (t Target) Archive(version string) string {
	if t.OS == "windows" {
		return t.Folder(version) + ".zip"
	}
	return t.Folder(version) + ".tar.gz"
}

// Binary is the binary's path inside the archive.
func (t Target) Binary(version string) string {
	if t.OS == "windows" {
		return t.Folder(version) + "/moonbridge.exe"
	}
	return t.Folder(version) + "/moonbridge"
}

// Download is what a manifest says about one archive: where it is, its hash, and the binary in
// it that the package manager installs.
type Download struct {
	Target Target
	URL    string
	SHA256 string // lower-case hex
	Binary string // path inside the archive, with /
}

// Settings are the owner's choices that the build does not fix.
type Settings struct {
	Version  string // DIST_VERSION: git describe without the v
	URL      string // DIST_URL: where the archives are downloaded from, no trailing /
	Homepage string // DIST_HOMEPAGE
	WingetID string // DIST_WINGET_ID: Publisher.Package; its first part is the Publisher
}

// Placeholder tells whether u is on a .invalid host, as dist.mk's default DIST_URL is: such a
// name never resolves (RFC 6761), so manifests pointing there download nothing.
func Placeholder(u string) bool {
	parsed, err := url.Parse(u)
	return err == nil && strings.HasSuffix(parsed.Hostname(), ".invalid")
}

// versionPattern is what Scoop's schema allows in a version; winget's and Homebrew's allow more.
var versionPattern = regexp.MustCompile(`^[A-Za-z0-9_.+-]+$`)

// wingetIDPattern is winget's PackageIdentifier (manifest schema 1.6.0), less the characters
// that would need quoting in a file name or YAML.
var wingetIDPattern = regexp.MustCompile(`^[A-Za-z0-9_+-]{1,32}(\.[A-Za-z0-9_+-]{1,32}){1,7}$`)

// Validate checks s before anything is written: each value ends up in JSON, YAML and Ruby
// strings and in paths.
func (s Settings) Validate() error {
	if !versionPattern.MatchString(s.Version) {
		return &SettingsError{"version", s.Version, "want letters, digits and . _ + - only"}
	}
	if !wingetIDPattern.MatchString(s.WingetID) {
		return &SettingsError{"winget id", s.WingetID, "want Publisher.Package: 2 to 8 dot-separated parts of letters, digits, _ + -"}
	}
	for _, u := range []struct{ name, value string }{{"url", s.URL}, {"homepage", s.Homepage}} {
		if err := checkURL(u.value); err != nil {
			return &SettingsError{u.name, u.value, err.Error()}
		}
	}
	if strings.HasSuffix(s.URL, "/") {
		return &SettingsError{"url", s.URL, "must not end with /: the archive's name follows it"}
	}
	return nil
}

// checkURL accepts an absolute http or https URL with nothing that a Ruby or YAML string would
// read specially (Ruby interpolates #{...} in double quotes).
func checkURL(u string) error {
	if strings.ContainsAny(u, "\"'\\#{} \t\r\n") {
		return fmt.Errorf("must not contain quotes, backslashes, #, braces or spaces")
	}
	parsed, err := url.Parse(u)
	if err != nil {
		return err
	}
	if (parsed.Scheme != "https" && parsed.Scheme != "http") || parsed.Host == "" {
		return fmt.Errorf("want an absolute http:// or https:// URL")
	}
	return nil
}

// publisher is the winget Publisher: the first part of the identifier.
func (s Settings) publisher() string {
	p, _, _ := strings.Cut(s.WingetID, ".")
	return p
}
