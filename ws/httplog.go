package ws

import (
	"log"
	"strings"

	"github.com/rs/zerolog"
)

// httpErrorLog is the *log.Logger that net/http writes its own errors to (a handler's panic, an
// accept error it retries, a misused ResponseWriter). Each line goes to logger, a panic at error
// level and the rest at warn, so they land where every other line of the listener does.
func httpErrorLog(logger zerolog.Logger) *log.Logger {
	return log.New(httpErrorWriter{logger}, "", 0)
}

type httpErrorWriter struct{ log zerolog.Logger }

func (w httpErrorWriter) Write(p []byte) (int, error) {
	line := strings.TrimSpace(string(p))
	ev := w.log.Warn()
	if strings.HasPrefix(line, "http: panic serving") {
		ev = w.log.Error()
	}
	ev.Str("source", "net/http").Msg(line)
	return len(p), nil
}
