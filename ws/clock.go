package ws

import "time"

// Clock schedules the keepalive task. The real one is time.AfterFunc;
// tests inject a manual clock to check the ping bounds without sleeping.
type Clock interface {
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a scheduled call that can be re-armed or cancelled, as
// *time.Timer from time.AfterFunc.
type Timer interface {
	Reset(d time.Duration) bool
	Stop() bool
}

type realClock struct{}

func (realClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
