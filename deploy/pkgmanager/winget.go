package pkgmanager

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// winget's multi-file format: a version, an installer and a defaultLocale manifest in one folder
// named after the PackageIdentifier (winget-pkgs keeps it as manifests/<p>/<Publisher>/<Package>/
// <version>/). The fields follow the 1.6.0 schemas; sigs.k8s.io/yaml writes them in key order.
const (
	wingetManifestVersion = "1.6.0"
	wingetLocale          = "en-US"
	wingetAlias           = "moonbridge"
)

// wingetCommon is what all three manifests carry.
type wingetCommon struct {
	PackageIdentifier string `json:"PackageIdentifier"`
	PackageVersion    string `json:"PackageVersion"`
	ManifestType      string `json:"ManifestType"`
	ManifestVersion   string `json:"ManifestVersion"`
}

type wingetVersion struct {
	wingetCommon
	DefaultLocale string `json:"DefaultLocale"`
}

// wingetInstaller: the zip holds a portable moonbridge.exe, which winget links as the command
// moonbridge. The path inside the zip differs by architecture, so each installer names its own.
type wingetInstaller struct {
	wingetCommon
	InstallerType       string                 `json:"InstallerType"`
	NestedInstallerType string                 `json:"NestedInstallerType"`
	Commands            []string               `json:"Commands"`
	Installers          []wingetInstallerEntry `json:"Installers"`
}

type wingetInstallerEntry struct {
	Architecture         string             `json:"Architecture"`
	InstallerURL         string             `json:"InstallerUrl"`
	InstallerSha256      string             `json:"InstallerSha256"`
	NestedInstallerFiles []wingetNestedFile `json:"NestedInstallerFiles"`
}

type wingetNestedFile struct {
	RelativeFilePath     string `json:"RelativeFilePath"`
	PortableCommandAlias string `json:"PortableCommandAlias"`
}

type wingetLocaleManifest struct {
	wingetCommon
	PackageLocale    string `json:"PackageLocale"`
	Publisher        string `json:"Publisher"`
	PackageName      string `json:"PackageName"`
	PackageURL       string `json:"PackageUrl"`
	License          string `json:"License"`
	ShortDescription string `json:"ShortDescription"`
	Description      string `json:"Description"`
	// InstallationNotes is what winget prints after installing: what a player runs.
	InstallationNotes string   `json:"InstallationNotes"`
	Moniker           string   `json:"Moniker"`
	Tags              []string `json:"Tags"`
}

// wingetArchitectures maps winget's Architecture to the archive.
var wingetArchitectures = map[string]Target{"x64": WindowsAMD64, "arm64": WindowsARM64}

var winget = kind{
	name:    "winget",
	targets: []Target{WindowsAMD64, WindowsARM64},
	main:    func(s Settings) string { return wingetFiles(s.WingetID).installer },
	write:   writeWinget,
	read:    readWinget,
}

type wingetPaths struct{ version, installer, locale string }

func wingetFiles(id string) wingetPaths {
	dir := "winget/" + id + "/" + id
	return wingetPaths{dir + ".yaml", dir + ".installer.yaml", dir + ".locale." + wingetLocale + ".yaml"}
}

func writeWinget(s Settings, d map[Target]Download) (map[string][]byte, error) {
	common := func(manifestType string) wingetCommon {
		return wingetCommon{s.WingetID, s.Version, manifestType, wingetManifestVersion}
	}
	inst := wingetInstaller{wingetCommon: common("installer"), InstallerType: "zip", NestedInstallerType: "portable",
		Commands: []string{wingetAlias}}
	for _, arch := range []string{"x64", "arm64"} {
		t := wingetArchitectures[arch]
		inst.Installers = append(inst.Installers, wingetInstallerEntry{Architecture: arch, InstallerURL: d[t].URL,
			InstallerSha256:      strings.ToUpper(d[t].SHA256),
			NestedInstallerFiles: []wingetNestedFile{{strings.ReplaceAll(d[t].Binary, "/", `\`), wingetAlias}}})
	}
	locale := wingetLocaleManifest{wingetCommon: common("defaultLocale"), PackageLocale: wingetLocale,
		Publisher: s.publisher(), PackageName: "moonbridge", PackageURL: s.Homepage, License: license,
		ShortDescription: summary, Description: description, InstallationNotes: playerNote, Moniker: "moonbridge",
		Tags: []string{"minecraft", "websocket", "proxy", "cdn"}}
	paths := wingetFiles(s.WingetID)
	files := map[string][]byte{}
	for _, f := range []struct {
		path, schema string
		manifest     any
	}{{paths.version, "version", wingetVersion{common("version"), wingetLocale}}, {paths.installer, "installer", inst},
		{paths.locale, "defaultlocale", locale}} {
		data, err := yaml.Marshal(f.manifest)
		if err != nil {
			return nil, err
		}
		header := fmt.Sprintf("# Written by make dist from SHA256SUMS (deploy/cmd/mkmanifests).\n"+
			"# yaml-language-server: $schema=https://aka.ms/winget-manifest.%s.%s.schema.json\n", f.schema, wingetManifestVersion)
		files[f.path] = append([]byte(header), data...)
	}
	return files, nil
}

// readWinget finds the one folder under winget/ and decodes its three manifests strictly.
func readWinget(dir string) (parsed, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "winget"))
	if err != nil {
		return parsed{path: "winget"}, err
	}
	if len(entries) != 1 || !entries[0].IsDir() {
		return parsed{path: "winget"}, &ManifestError{"winget", "want exactly one folder, named after the PackageIdentifier"}
	}
	id := entries[0].Name()
	paths := wingetFiles(id)
	p := parsed{path: paths.installer}
	var version wingetVersion
	var inst wingetInstaller
	var locale wingetLocaleManifest
	for _, f := range []struct {
		path, manifestType string
		into               any
		common             *wingetCommon
	}{{paths.version, "version", &version, &version.wingetCommon}, {paths.installer, "installer", &inst, &inst.wingetCommon},
		{paths.locale, "defaultLocale", &locale, &locale.wingetCommon}} {
		if err := decodeYAML(dir, f.path, f.into); err != nil {
			return p, err
		}
		if err := f.common.check(f.path, id, version.PackageVersion, f.manifestType); err != nil {
			return p, err
		}
	}
	if err := checkWingetLocale(paths.locale, version, locale); err != nil {
		return p, err
	}
	p.version = version.PackageVersion
	p.downloads, err = wingetDownloads(paths.installer, inst)
	return p, err
}

func decodeYAML(dir, name string, into any) error {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	if err := yaml.UnmarshalStrict(data, into); err != nil {
		return &ManifestError{name, err.Error()}
	}
	return nil
}

// check holds c to the folder's identifier, the version manifest's version and its own type.
func (c wingetCommon) check(name, id, version, manifestType string) error {
	switch {
	case c.PackageIdentifier != id:
		return &ManifestError{name, fmt.Sprintf("PackageIdentifier %q, but the folder is %q", c.PackageIdentifier, id)}
	case c.PackageVersion == "" || c.PackageVersion != version:
		return &ManifestError{name, fmt.Sprintf("PackageVersion %q, the version manifest says %q", c.PackageVersion, version)}
	case c.ManifestType != manifestType || c.ManifestVersion != wingetManifestVersion:
		return &ManifestError{name, fmt.Sprintf("ManifestType %q, ManifestVersion %q: want %q, %s", c.ManifestType, c.ManifestVersion, manifestType, wingetManifestVersion)}
	}
	return nil
}

// checkWingetLocale checks what the defaultLocale schema requires.
func checkWingetLocale(name string, v wingetVersion, l wingetLocaleManifest) error {
	if l.PackageLocale != v.DefaultLocale {
		return &ManifestError{name, fmt.Sprintf("PackageLocale %q, the version manifest's DefaultLocale is %q", l.PackageLocale, v.DefaultLocale)}
	}
	for _, f := range []struct{ field, value string }{{"Publisher", l.Publisher}, {"PackageName", l.PackageName},
		{"License", l.License}, {"ShortDescription", l.ShortDescription}} {
		if len(f.value) < 2 {
			return &ManifestError{name, f.field + " is missing"}
		}
	}
	return nil
}

func wingetDownloads(name string, inst wingetInstaller) ([]Download, error) {
	if inst.InstallerType != "zip" || inst.NestedInstallerType != "portable" {
		return nil, &ManifestError{name, fmt.Sprintf("InstallerType %q, NestedInstallerType %q: want zip holding a portable", inst.InstallerType, inst.NestedInstallerType)}
	}
	var downloads []Download
	for _, e := range inst.Installers {
		t, ok := wingetArchitectures[e.Architecture]
		if !ok {
			return nil, &ManifestError{name, fmt.Sprintf("Architecture %q: want x64 or arm64", e.Architecture)}
		}
		if len(e.NestedInstallerFiles) != 1 || e.NestedInstallerFiles[0].PortableCommandAlias != wingetAlias ||
			path.Base(strings.ReplaceAll(e.NestedInstallerFiles[0].RelativeFilePath, `\`, "/")) != exe {
			return nil, &ManifestError{name, e.Architecture + ": want one NestedInstallerFiles entry, " + exe + " as " + wingetAlias}
		}
		downloads = append(downloads, Download{Target: t, URL: e.InstallerURL, SHA256: strings.ToLower(e.InstallerSha256),
			Binary: strings.ReplaceAll(e.NestedInstallerFiles[0].RelativeFilePath, `\`, "/")})
	}
	return downloads, nil
}
