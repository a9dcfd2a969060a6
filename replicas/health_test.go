package replicas

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// A call that fails while other calls are being answered (one slow call, or the error go-redis
// keeps giving for a new connection up to a second after Redis restarted) is counted, but does
// not make Redis away: only failures with no answer for a call's bound do, said once.
func TestHealthTakesRedisAwayOnlyWithoutAnswers(t *testing.T) {
	var log bytes.Buffer
	var h health
	h.init(zerolog.New(&log), 50*time.Millisecond)
	refused := errors.New("connection refused")
	h.succeeded(time.Now())
	for range 3 {
		h.failed(time.Now(), "heartbeat", refused)
		h.succeeded(time.Now())
	}
	if h.away.Load() || strings.Contains(log.String(), "away") {
		t.Fatalf("Redis taken for away while it answered between the failures: %s", log.String())
	}
	time.Sleep(50*time.Millisecond + redialEvery)
	for range 3 {
		h.failed(time.Now(), "heartbeat", refused)
	}
	if !h.away.Load() || strings.Count(log.String(), "Redis is away") != 1 {
		t.Fatalf("failures a bound after the last answer: away %v, log %s; want away, said once", h.away.Load(), log.String())
	}
	if n := h.errors.Load(); n != 6 {
		t.Errorf("%d failed calls counted, want 6", n)
	}
}

// A replica's first calls run while it starts, often beside many others (a slow seat call, a
// heartbeat on a busy machine): a failure then is one call's, as after an answer. Redis that
// never answers is away a call's bound and a redial after the start.
func TestHealthGivesTheStartACallsBound(t *testing.T) {
	var log bytes.Buffer
	var h health
	h.init(zerolog.New(&log), 50*time.Millisecond)
	refused := errors.New("context deadline exceeded")
	h.failed(time.Now(), "seat", refused)
	if h.away.Load() || strings.Contains(log.String(), "away") {
		t.Fatalf("Redis taken for away by a failure at the start: %s", log.String())
	}
	time.Sleep(50*time.Millisecond + redialEvery)
	h.failed(time.Now(), "heartbeat", refused)
	if !h.away.Load() || strings.Count(log.String(), "Redis is away") != 1 {
		t.Fatalf("no answer since the start for a bound: away %v, log %s; want away, said once", h.away.Load(), log.String())
	}
}
