package pkgmanager

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// urlHashes decodes a manifest with its format's parser into plain maps, apart from this
// package's types, and returns its URL: sha256 pairs, found by walking to them.
func urlHashes(t *testing.T, dir, name string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if strings.HasSuffix(name, ".json") {
		err = json.Unmarshal(data, &doc)
	} else {
		err = yaml.Unmarshal(data, &doc)
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	pairs := map[string]string{}
	switch name {
	case scoopPath:
		for _, arch := range doc["architecture"].(map[string]any) {
			a := arch.(map[string]any)
			pairs[a["url"].(string)] = a["hash"].(string)
		}
	default:
		for _, inst := range doc["Installers"].([]any) {
			i := inst.(map[string]any)
			pairs[i["InstallerUrl"].(string)] = strings.ToLower(i["InstallerSha256"].(string))
		}
	}
	return pairs
}

func TestWrittenManifestsCarryTheHashesOfSHA256SUMS(t *testing.T) {
	dir, sums := fakeDist(t)
	s := testSettings()
	names, err := Write(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	id := wingetFiles(s.WingetID)
	want := []string{brewPath, scoopPath, id.version, id.installer, id.locale}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("wrote %v, want %v", names, want)
	}
	formula, err := readFormula(dir)
	if err != nil {
		t.Fatal(err)
	}
	brewPairs := map[string]string{}
	for _, d := range formula.downloads {
		brewPairs[d.URL] = d.SHA256
	}
	for manifest, pairs := range map[string]map[string]string{scoopPath: urlHashes(t, dir, scoopPath),
		id.installer: urlHashes(t, dir, id.installer), brewPath: brewPairs} {
		var targets []Target
		for _, k := range kinds {
			if k.main(s) == manifest {
				targets = k.targets
			}
		}
		if len(pairs) != len(targets) {
			t.Errorf("%s: %d downloads %v, want %d", manifest, len(pairs), pairs, len(targets))
		}
		for _, target := range targets {
			file := target.Archive(testVersion)
			if got := pairs[s.URL+"/"+file]; got != sums[file] {
				t.Errorf("%s: %s has sha256 %q, the file's is %s", manifest, file, got, sums[file])
			}
		}
	}
	checked, err := Check(dir, testVersion)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checked {
		if c.Base != s.URL {
			t.Errorf("%s: base %s, want %s", c.Manifest, c.Base, s.URL)
		}
	}
}

func TestWriteNamesTheMissingArchive(t *testing.T) {
	file := WindowsARM64.Archive(testVersion)
	for _, tc := range []struct {
		name   string
		inSums bool // whether the archive stays listed in SHA256SUMS
		remove func(t *testing.T, dir string, sums map[string]string)
	}{
		{"not in SHA256SUMS", false, func(t *testing.T, dir string, sums map[string]string) {
			edit(t, dir, SumsFile, sums[file]+"  "+file+"\n", "")
		}},
		{"not in dist", true, func(t *testing.T, dir string, _ map[string]string) {
			if err := os.Remove(filepath.Join(dir, file)); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, sums := fakeDist(t)
			tc.remove(t, dir, sums)
			_, err := Write(dir, testSettings())
			var missing *MissingArchiveError
			if !errors.As(err, &missing) || missing.Archive != file || missing.Manifest != scoopPath {
				t.Fatalf("got %v, want a MissingArchiveError for %s in %s", err, file, scoopPath)
			}
			where := SumsFile
			if tc.inSums {
				where = dir
			}
			if missing.Where != where {
				t.Errorf("missing from %q, want %q", missing.Where, where)
			}
			if !strings.Contains(err.Error(), file) {
				t.Errorf("the message does not name the archive: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "scoop")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a manifest was written all the same (stat: %v)", err)
			}
		})
	}
}

func TestCheckFindsHashesThatDiffer(t *testing.T) {
	other := strings.Repeat("0", 64)
	winArm := WindowsARM64.Archive(testVersion)
	linuxArm := LinuxARM64.Archive(testVersion)
	installer := wingetFiles(testSettings().WingetID).installer
	for _, tc := range []struct {
		name, source, archive string
		change                func(t *testing.T, dir string, sums map[string]string)
	}{
		{"scoop hash", scoopPath, winArm, func(t *testing.T, dir string, sums map[string]string) {
			edit(t, dir, scoopPath, sums[winArm], other)
		}},
		{"winget hash", installer, winArm, func(t *testing.T, dir string, sums map[string]string) {
			edit(t, dir, installer, strings.ToUpper(sums[winArm]), other)
		}},
		{"homebrew sha256", brewPath, linuxArm, func(t *testing.T, dir string, sums map[string]string) {
			edit(t, dir, brewPath, sums[linuxArm], other)
		}},
		{"archive changed after SHA256SUMS", linuxArm, linuxArm, func(t *testing.T, dir string, _ map[string]string) {
			f, err := os.OpenFile(filepath.Join(dir, linuxArm), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Write([]byte("x")); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, sums := written(t)
			tc.change(t, dir, sums)
			_, err := Check(dir, testVersion)
			var mismatch *HashMismatchError
			if !errors.As(err, &mismatch) || mismatch.Source != tc.source || mismatch.Archive != tc.archive || mismatch.Want != sums[tc.archive] {
				t.Fatalf("got %v, want a HashMismatchError of %s in %s", err, tc.archive, tc.source)
			}
		})
	}
}

func TestCheckFindsMissingArchives(t *testing.T) {
	file := DarwinARM64.Archive(testVersion)
	t.Run("not in SHA256SUMS", func(t *testing.T) {
		dir, sums := written(t)
		edit(t, dir, SumsFile, sums[file]+"  "+file+"\n", "")
		assertMissing(t, dir, file, SumsFile)
	})
	t.Run("not in dist", func(t *testing.T) {
		dir, _ := written(t)
		if err := os.Remove(filepath.Join(dir, file)); err != nil {
			t.Fatal(err)
		}
		assertMissing(t, dir, file, dir)
	})
}

func assertMissing(t *testing.T, dir, file, where string) {
	t.Helper()
	_, err := Check(dir, testVersion)
	var missing *MissingArchiveError
	if !errors.As(err, &missing) || missing.Archive != file || missing.Manifest != brewPath || missing.Where != where {
		t.Fatalf("got %v, want a MissingArchiveError for %s in %s, from %s", err, file, where, brewPath)
	}
}

func TestCheckFindsWrongManifests(t *testing.T) {
	s := testSettings()
	paths := wingetFiles(s.WingetID)
	winAmd := WindowsAMD64.Archive(testVersion)
	for _, tc := range []struct {
		name, manifest, why string
		change              func(t *testing.T, dir string)
	}{
		{"scoop 32bit architecture", scoopPath, "unknown field", func(t *testing.T, dir string) {
			edit(t, dir, scoopPath, `"architecture": {`, `"architecture": {"32bit": {"url": "https://x.example/a.zip"},`)
		}},
		{"scoop url of another file", scoopPath, "that ends in /", func(t *testing.T, dir string) {
			edit(t, dir, scoopPath, s.URL+"/"+winAmd, s.URL+"/moonbridge.zip")
		}},
		{"scoop extract_dir", scoopPath, "installs", func(t *testing.T, dir string) {
			edit(t, dir, scoopPath, `"extract_dir": "`+WindowsAMD64.Folder(testVersion)+`"`, `"extract_dir": "bin"`)
		}},
		{"winget second folder", "winget", "exactly one folder", func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "winget", "Other.Moonbridge"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"winget not portable", paths.installer, "NestedInstallerType", func(t *testing.T, dir string) {
			edit(t, dir, paths.installer, "NestedInstallerType: portable", "NestedInstallerType: exe")
		}},
		{"winget two identifiers", paths.locale, "PackageIdentifier", func(t *testing.T, dir string) {
			edit(t, dir, paths.locale, "PackageIdentifier: "+s.WingetID, "PackageIdentifier: Example.Other")
		}},
		{"winget manifest version", paths.version, "ManifestVersion", func(t *testing.T, dir string) {
			edit(t, dir, paths.version, "ManifestVersion: 1.6.0", "ManifestVersion: 1.5.0")
		}},
		{"formula url outside a block", brewPath, "outside its block", func(t *testing.T, dir string) {
			edit(t, dir, brewPath, "  license", "  url \"https://x.example/moonbridge.tar.gz\"\n  license")
		}},
		{"formula without on_arm in on_linux", brewPath, "no download for linux/arm64", func(t *testing.T, dir string) {
			sum := readSums(t, dir)[LinuxARM64.Archive(testVersion)]
			edit(t, dir, brewPath, "    on_arm do\n      url \""+s.URL+"/"+LinuxARM64.Archive(testVersion)+"\"\n      sha256 \""+sum+"\"\n    end\n", "")
		}},
		{"formula sha256 before url", brewPath, "want url, then sha256", func(t *testing.T, dir string) {
			sum := readSums(t, dir)[DarwinAMD64.Archive(testVersion)]
			url := "      url \"" + s.URL + "/" + DarwinAMD64.Archive(testVersion) + "\"\n"
			edit(t, dir, brewPath, url+"      sha256 \""+sum+"\"\n", "      sha256 \""+sum+"\"\n"+url)
		}},
		{"formula installs another file", brewPath, "no line", func(t *testing.T, dir string) {
			edit(t, dir, brewPath, `bin.install "moonbridge"`, `bin.install "moonbridge-purego"`)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := written(t)
			tc.change(t, dir)
			assertManifestError(t, dir, testVersion, tc.manifest, tc.why)
		})
	}
}

func TestCheckHoldsManifestsToTheRelease(t *testing.T) {
	t.Run("another version", func(t *testing.T) {
		dir, _ := written(t)
		assertManifestError(t, dir, "1.2.4", scoopPath, `version "`+testVersion+`", the release is "1.2.4"`)
	})
	t.Run("archive without the binary", func(t *testing.T) {
		dir, _ := fakeDist(t)
		files := map[string][]byte{}
		for _, target := range allTargets {
			binary := target.Binary(testVersion)
			if target == WindowsARM64 {
				binary = target.Folder(testVersion) + "/moonbridge-purego.exe"
			}
			files[target.Archive(testVersion)] = fakeArchive(t, target, binary)
		}
		writeDist(t, dir, files)
		if _, err := Write(dir, testSettings()); err != nil {
			t.Fatal(err)
		}
		assertManifestError(t, dir, testVersion, scoopPath, "holds no file "+WindowsARM64.Binary(testVersion))
	})
	t.Run("archive with a second folder", func(t *testing.T) {
		dir, _ := fakeDist(t)
		files := map[string][]byte{}
		for _, target := range allTargets {
			files[target.Archive(testVersion)] = fakeArchive(t, target, target.Binary(testVersion))
		}
		files[DarwinAMD64.Archive(testVersion)] = fakeArchive(t, DarwinAMD64, "moonbridge")
		writeDist(t, dir, files)
		if _, err := Write(dir, testSettings()); err != nil {
			t.Fatal(err)
		}
		assertManifestError(t, dir, testVersion, brewPath, "outside its folder")
	})
}

func assertManifestError(t *testing.T, dir, version, manifest, why string) {
	t.Helper()
	_, err := Check(dir, version)
	var bad *ManifestError
	if !errors.As(err, &bad) || bad.Manifest != manifest || !strings.Contains(bad.Why, why) {
		t.Fatalf("got %v, want a ManifestError in %s saying %q", err, manifest, why)
	}
}

func readSums(t *testing.T, dir string) Sums {
	t.Helper()
	sums, err := ReadSums(dir)
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

// TestFormulaIsRuby runs the Ruby parser on the formula: Go has none, so without ruby this
// check does not run (scripts/expected-skips.txt lists the skip).
func TestFormulaIsRuby(t *testing.T) {
	ruby, err := exec.LookPath("ruby")
	if err != nil {
		t.Skip("ruby is not installed: the formula's Ruby syntax is not checked (its blocks are, by TestCheck*)")
	}
	dir, _ := written(t)
	out, err := exec.Command(ruby, "-c", filepath.Join(dir, filepath.FromSlash(brewPath))).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "Syntax OK" {
		t.Fatalf("ruby -c: %v: %s", err, out)
	}
}

func TestParseSumsRejectsWhatDistDoesNotWrite(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	if sums, err := ParseSums([]byte(hash + "  a.zip\n" + hash + " *b.tar.gz\n")); err != nil || len(sums) != 2 || sums["b.tar.gz"] != hash {
		t.Fatalf("text and binary mode lines: %v, %v", sums, err)
	}
	for _, tc := range []struct{ name, text, why string }{
		{"empty", "", "empty"},
		{"short hash", hash[:63] + "  a.zip\n", "want <64"},
		{"upper-case hash", strings.ToUpper(hash) + "  a.zip\n", "want <64"},
		{"one space", hash + " a.zip\n", "want <64"},
		{"sub-folder", hash + "  scoop/moonbridge.json\n", "top level"},
		{"escaped name", `\` + hash + `  a\nb.zip` + "\n", "top level"},
		{"twice", hash + "  a.zip\n" + hash + "  a.zip\n", "twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSums([]byte(tc.text))
			var bad *SumsError
			if !errors.As(err, &bad) || !strings.Contains(bad.Why, tc.why) {
				t.Fatalf("got %v, want a SumsError saying %q", err, tc.why)
			}
		})
	}
}

func TestSettingsThatCannotGoIntoAManifest(t *testing.T) {
	for _, tc := range []struct {
		name, setting string
		change        func(*Settings)
	}{
		{"version with a space", "version", func(s *Settings) { s.Version = "1.0 beta" }},
		{"empty version", "version", func(s *Settings) { s.Version = "" }},
		{"winget id of one part", "winget id", func(s *Settings) { s.WingetID = "moonbridge" }},
		{"url not absolute", "url", func(s *Settings) { s.URL = "releases/v1" }},
		{"url with a slash at the end", "url", func(s *Settings) { s.URL += "/" }},
		{"url with Ruby interpolation", "url", func(s *Settings) { s.URL = "https://x.example/#{system}" }},
		{"url of another scheme", "url", func(s *Settings) { s.URL = "ftp://x.example/v1" }},
		{"homepage with a quote", "homepage", func(s *Settings) { s.Homepage = `https://x.example/"` }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testSettings()
			tc.change(&s)
			dir, _ := fakeDist(t)
			_, err := Write(dir, s)
			var bad *SettingsError
			if !errors.As(err, &bad) || bad.Setting != tc.setting {
				t.Fatalf("got %v, want a SettingsError for %s", err, tc.setting)
			}
		})
	}
}

func TestPlaceholder(t *testing.T) {
	for u, want := range map[string]bool{
		"https://example.invalid/moonbridge/releases/download/v1.2.3":  true,
		"https://github.com/owner/moonbridge/releases/download/v1.2.3": false,
		"https://invalid.example.net/v1":                               false,
	} {
		if got := Placeholder(u); got != want {
			t.Errorf("Placeholder(%s) = %v, want %v", u, got, want)
		}
	}
}
