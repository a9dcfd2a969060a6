package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

// playerConsole is the log of the bridge that moonbridge without a command runs, for a player
// to read: the bridge's game connections as sentences after the time, every other warning or
// error as its message, and nothing else. It reads the JSON lines a zerolog logger writes to
// it; the messages and fields it knows are the bridge's (bridge/session.go, bridge/hello.go).
type playerConsole struct {
	mu  sync.Mutex // loggers on several goroutines write
	out io.Writer
}

func (c *playerConsole) Write(line []byte) (int, error) {
	var e logEvent
	if err := json.Unmarshal(line, &e); err != nil {
		return 0, err
	}
	text := e.sentence()
	if text == "" {
		return len(line), nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := fmt.Fprintf(c.out, "%s %s\n", time.Now().Format(time.TimeOnly), text); err != nil {
		return 0, err
	}
	return len(line), nil
}

// logEvent is the fields of a log line that the console reads.
type logEvent struct {
	Level       string `json:"level"`
	Message     string `json:"message"`
	Error       string `json:"error"`
	Next        string `json:"next"`  // the handshake's next state: status, login, transfer
	Cause       string `json:"cause"` // a *bridge.DialError's: the WebSocket did not open
	CloseReason string `json:"close_reason"`
	Duration    string `json:"duration"`
}

// sentence is what the player reads of e; "" for nothing.
func (e logEvent) sentence() string {
	switch {
	case e.Message == "game connected":
		if e.joins() {
			return "Minecraft connected: joining the server."
		}
		return "" // a server-list ping: its end says how it went
	case e.Message == "session ended":
		return e.sessionEnd()
	case e.Level == "warn", e.Level == "error", e.Level == "fatal", e.Level == "panic":
		if e.Error != "" {
			return "Warning: " + e.Message + ": " + e.Error
		}
		return "Warning: " + e.Message
	}
	return ""
}

func (e logEvent) joins() bool { return e.Next == "login" || e.Next == "transfer" }

// sessionEnd says how a game connection ended.
func (e logEvent) sessionEnd() string {
	switch {
	case e.joins() && e.Cause != "":
		return "Minecraft could not join, the server cannot be reached: " + e.CloseReason
	case e.joins():
		return fmt.Sprintf("Minecraft left the server after %s: %s.", e.played(), e.CloseReason)
	case e.Next == "status" && e.Cause != "":
		return "Minecraft's server list could not reach the server: " + e.CloseReason
	case e.Next == "status":
		return "Minecraft's server list reached the server."
	}
	return "A game connection ended before it began: " + e.CloseReason + "."
}

// played is the session's duration to the second (to the millisecond under a second).
func (e logEvent) played() string {
	d, err := time.ParseDuration(e.Duration)
	switch {
	case err != nil:
		return e.Duration
	case d >= time.Second:
		return d.Round(time.Second).String()
	}
	return d.Round(time.Millisecond).String()
}
