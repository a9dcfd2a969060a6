package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/moonbridge/moonbridge/cmd/internal/config"
)

// clientFileName is the settings file that moonbridge without a command reads: a config file
// whose client: section is read, as --config reads one.
const clientFileName = "moonbridge-client.yml"

// clientFiles are where moonbridge without a command looks for clientFileName, in this order:
// beside the program, where a player puts the file a server owner gave them, and in the user's
// config folder, where the bridge saves the address the player typed. A place that cannot be
// known (no home folder) is "".
type clientFiles struct {
	beside, user string
}

func locateClientFiles() clientFiles {
	var f clientFiles
	if exe, err := os.Executable(); err == nil {
		f.beside = filepath.Join(filepath.Dir(exe), clientFileName)
	}
	if dir, err := os.UserConfigDir(); err == nil {
		f.user = filepath.Join(dir, "moonbridge", clientFileName)
	}
	return f
}

// found is the first of the files that is there, or "". One that cannot even be looked at
// counts as there, so that reading it says why.
func (f clientFiles) found() string {
	for _, path := range []string{f.beside, f.user} {
		if path == "" {
			continue
		}
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			return path
		}
	}
	return ""
}

// saveTarget is where the address a player typed is saved: the file that was read (it had
// none), else the user's config folder.
func (f clientFiles) saveTarget(read string) string {
	if read != "" {
		return read
	}
	return f.user
}

// writeClientFile writes c as a config file of its own (config.Client.File) at path, mode 0600
// since it may hold a token, creating the folder (0700). It writes a temporary file beside path
// and renames it over path, so that a reader never sees half a file.
func writeClientFile(path string, c config.Client) error {
	body, err := c.File()
	if err != nil {
		return err
	}
	if path == "" {
		return errors.New("there is no user config folder to save the settings in (is HOME set?)")
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".moonbridge-client-*.yml") // 0600
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails once renamed
	_, err = tmp.Write(append([]byte(clientFileHeader), body...))
	if err := errors.Join(err, tmp.Close()); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// clientFileHeader opens every file writeClientFile writes.
const clientFileHeader = `# moonbridge client settings: moonbridge started without a command (a double-click) reads
# this file beside the program, or in the user's config folder (moonbridge/` + clientFileName + `).
# A token here lets you in to the server: keep the file to yourself.
`

// writeConfigForPlayer is `moonbridge client --write-config FILE`: the settings in a file a
// server owner hands to a player, and what the player does with it.
func writeConfigForPlayer(path string, c config.Client, out io.Writer) error {
	if err := writeClientFile(path, c); err != nil {
		return fmt.Errorf("--write-config: %w", err)
	}
	fmt.Fprintf(out, "Wrote %s.\n", path)
	if c.Token != "" || c.TokenFile != "" {
		fmt.Fprintln(out, "It holds the token: give it to that one player only.")
	}
	fmt.Fprintf(out, "The player puts it beside moonbridge (moonbridge.exe on Windows), named %s, and double-clicks the program.\n", clientFileName)
	if c.CA != "" {
		fmt.Fprintf(out, "Note: ca names %s on this machine; the player needs that file at the same path.\n", c.CA)
	}
	if c.Insecure {
		fmt.Fprintln(out, "Note: insecure is on: the player's bridge will not check the server's certificate. For tests only.")
	}
	return nil
}
