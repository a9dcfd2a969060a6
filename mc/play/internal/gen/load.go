package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/moonbridge/moonbridge/mc"
)

// firstProtocol is 1.20.5's, the first with Transfer and cookies.
const firstProtocol = 766

// stateIDs and protocolIDs mirror the types of mc/play's ids.go.
type stateIDs struct{ Disconnect, StoreCookie, Transfer, Switch int32 }

type protocolIDs struct {
	Configuration, Play stateIDs
	BundleDelimiter     int32
}

// release is one protocol's row: the releases that speak it and their ids.
type release struct {
	Names []string // Minecraft versions of the protocol, oldest first (protocolVersions.json)
	Data  []string // those of them minecraft-data has a protocol.json for
	IDs   protocolIDs
}

type source struct {
	Version   string // minecraft-data's package version
	Protocols map[int32]*release
	// The login state's cookie packets, the same in every protocol of the table.
	CookieRequest, CookieResponse int32
}

// load reads every release of protocol firstProtocol or later from minecraft-data at root.
func load(root string) (*source, error) {
	var pkg struct{ Version string }
	if err := readJSON(filepath.Join(root, "package.json"), &pkg); err != nil {
		return nil, err
	}
	data := filepath.Join(root, "minecraft-data", "data")
	var paths struct {
		PC map[string]struct{ Protocol, Version string } `json:"pc"`
	}
	if err := readJSON(filepath.Join(data, "dataPaths.json"), &paths); err != nil {
		return nil, err
	}
	src := &source{Version: pkg.Version, Protocols: map[int32]*release{}, CookieRequest: -1, CookieResponse: -1}
	for name, p := range paths.PC {
		if err := src.add(data, name, p.Version, p.Protocol); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if len(src.Protocols) == 0 {
		return nil, fmt.Errorf("%s: no release of protocol %d or later", data, firstProtocol)
	}
	if err := src.addNames(data); err != nil {
		return nil, err
	}
	return src, nil
}

// addNames lists each protocol's releases, also those minecraft-data has no data of its own for.
func (s *source) addNames(data string) error {
	var versions []struct {
		MinecraftVersion string
		Version          int32
		ReleaseType      string
	}
	if err := readJSON(filepath.Join(data, "pc", "common", "protocolVersions.json"), &versions); err != nil {
		return err
	}
	for _, v := range versions {
		if r := s.Protocols[v.Version]; r != nil && v.ReleaseType == "release" {
			r.Names = append(r.Names, v.MinecraftVersion)
		}
	}
	for _, r := range s.Protocols {
		slices.SortFunc(r.Names, compareVersions)
		slices.SortFunc(r.Data, compareVersions)
	}
	return nil
}

// add reads release name's version and, when it is a release of protocol firstProtocol or
// later, its packet ids.
func (s *source) add(data, name, versionPath, protocolPath string) error {
	var v struct {
		Version     int32
		ReleaseType string
	}
	if err := readJSON(filepath.Join(data, versionPath, "version.json"), &v); err != nil {
		return err
	}
	if v.Version < firstProtocol || v.ReleaseType != "release" {
		return nil
	}
	var proto map[string]json.RawMessage // states, and "types" shared by all
	if err := readJSON(filepath.Join(data, protocolPath, "protocol.json"), &proto); err != nil {
		return err
	}
	ids, err := s.readIDs(proto)
	if err != nil {
		return err
	}
	r := s.Protocols[v.Version]
	switch {
	case r == nil:
		s.Protocols[v.Version] = &release{Data: []string{name}, IDs: ids}
	case r.IDs != ids:
		return fmt.Errorf("ids %+v differ from %v's %+v, of the same protocol %d", ids, r.Data, r.IDs, v.Version)
	default:
		r.Data = append(r.Data, name)
	}
	return nil
}

func (s *source) readIDs(proto map[string]json.RawMessage) (protocolIDs, error) {
	var l lookup
	loginOut, loginIn := l.names(proto, "login", "toClient"), l.names(proto, "login", "toServer")
	config, play := l.names(proto, "configuration", "toClient"), l.names(proto, "play", "toClient")
	ids := protocolIDs{
		Configuration: stateIDs{
			Disconnect: l.id(config, "disconnect"), StoreCookie: l.id(config, "store_cookie"),
			Transfer: l.id(config, "transfer"), Switch: l.id(config, "finish_configuration"),
		},
		Play: stateIDs{
			Disconnect: l.id(play, "kick_disconnect"), StoreCookie: l.id(play, "store_cookie"),
			Transfer: l.id(play, "transfer"), Switch: l.id(play, "start_configuration"),
		},
		BundleDelimiter: l.id(play, "bundle_delimiter"),
	}
	l.want(loginOut, "disconnect", mc.LoginDisconnectID)
	l.want(loginOut, "encryption_begin", mc.EncryptionRequestID)
	l.want(loginOut, "success", mc.LoginSuccessID)
	l.want(loginOut, "compress", mc.SetCompressionID)
	l.want(loginOut, "login_plugin_request", mc.LoginPluginRequestID)
	s.CookieRequest = l.same(s.CookieRequest, l.id(loginOut, "cookie_request"), "login cookie_request")
	s.CookieResponse = l.same(s.CookieResponse, l.id(loginIn, "cookie_response"), "login cookie_response")
	return ids, l.err
}

// direction is one state and direction of a protocol.json: its packet type maps ids to names.
type direction struct {
	Types struct {
		Packet []json.RawMessage `json:"packet"` // ["container", [{"name": "name", "type": ["mapper", {...}]}, ...]]
	} `json:"types"`
}

// lookup reads ids out of protocol.json; its first fault sticks, as the readers of package mc do.
type lookup struct{ err error }

func (l *lookup) fail(format string, args ...any) {
	if l.err == nil {
		l.err = fmt.Errorf(format, args...)
	}
}

// names maps the packet names of state's direction dir to their ids.
func (l *lookup) names(proto map[string]json.RawMessage, state, dir string) map[string]int32 {
	var dirs map[string]direction
	var fields []struct {
		Name string
		Type []json.RawMessage
	}
	if json.Unmarshal(proto[state], &dirs) != nil || len(dirs[dir].Types.Packet) != 2 ||
		json.Unmarshal(dirs[dir].Types.Packet[1], &fields) != nil {
		l.fail("%s %s: no packet type", state, dir)
		return nil
	}
	for _, f := range fields {
		var mapper struct{ Mappings map[string]string }
		if f.Name != "name" || len(f.Type) != 2 || json.Unmarshal(f.Type[1], &mapper) != nil {
			continue
		}
		ids := map[string]int32{}
		for hex, name := range mapper.Mappings {
			id, err := strconv.ParseInt(hex, 0, 32)
			if err != nil {
				l.fail("%s %s: packet id %q: %v", state, dir, hex, err)
			}
			ids[name] = int32(id)
		}
		return ids
	}
	l.fail("%s %s: no packet name mapper", state, dir)
	return nil
}

func (l *lookup) id(ids map[string]int32, name string) int32 {
	id, ok := ids[name]
	if !ok && ids != nil {
		l.fail("no packet %q", name)
	}
	return id
}

// want checks a login id that package mc has as a constant.
func (l *lookup) want(ids map[string]int32, name string, want int32) {
	if got := l.id(ids, name); l.err == nil && got != want {
		l.fail("login packet %s is 0x%02x, package mc has 0x%02x", name, got, want)
	}
}

// same checks that an id seen before (-1: none yet) has not changed.
func (l *lookup) same(before, now int32, what string) int32 {
	if before >= 0 && before != now && l.err == nil {
		l.fail("%s is 0x%02x here, 0x%02x in another release", what, now, before)
	}
	return now
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// compareVersions orders Minecraft versions such as 1.21 and 1.21.11 by their numbers.
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := range min(len(as), len(bs)) {
		x, _ := strconv.Atoi(as[i])
		y, _ := strconv.Atoi(bs[i])
		if x != y {
			return x - y
		}
	}
	return len(as) - len(bs)
}
