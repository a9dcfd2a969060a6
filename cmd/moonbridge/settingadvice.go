package main

import (
	"fmt"

	"github.com/moonbridge/moonbridge/bridge"
)

// settingAdvice says how the one running the bridge changes a client setting: `moonbridge
// client` by a flag on its command line, a double-clicked bridge by a key under client: in the
// settings file it read or saved, which the player opens in a text editor.
type settingAdvice struct {
	file string // the double-clicked bridge's settings file; "": the command line
}

// setting names a certificate setting (bridge.Config.SettingNames).
func (a settingAdvice) setting(s bridge.Setting) string {
	flag, key := "--insecure", "insecure: true"
	if s == bridge.SettingCA {
		flag, key = "--ca", "ca: AUTHORITY.pem"
	}
	return a.choose(flag, key)
}

// listen says how to choose another address for the game.
func (a settingAdvice) listen() string {
	return a.choose("--listen 127.0.0.1:25566 (client.listen in a config file)", "listen: 127.0.0.1:25566")
}

func (a settingAdvice) choose(flag, key string) string {
	if a.file == "" {
		return flag
	}
	return fmt.Sprintf("set %s under client: in %s", key, a.file)
}
