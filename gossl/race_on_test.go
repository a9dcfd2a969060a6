//go:build race

package gossl

const raceEnabled = true
