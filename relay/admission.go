package relay

import (
	"bufio"
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/moonbridge/moonbridge/mc"
)

var memoryRefusingDesc = prometheus.NewDesc("moonbridge_memory_refusing",
	"1 while new logins are refused because memory is near memory.limit (from 90% until back "+
		"under 80%), else 0.", nil, nil)

func (w *memoryWatch) refusingValue() float64 {
	if w.refusing.Load() {
		return 1
	}
	return 0
}

// refuseWhenFull answers the player itself while memory is near the limit and says whether it
// did: the server list shows the full message with as many players online as the maximum, and
// a login is disconnected with it. Sessions already relaying are not touched.
func (s *session) refuseWhenFull(r *bufio.Reader, hello mc.Hello) bool {
	if !s.srv.mem.refusing.Load() {
		return false
	}
	err := s.srv.fullAnswer().Serve(r, hello, s.sendAnswer)
	if hello.IsPing() {
		s.line.answered = "server full"
		s.abort(err)
		return true
	}
	s.srv.countRefusal(refusedMemory) // the session's end line says it
	s.abort(errors.Join(ErrServerFull, err))
	return true
}

// fullAnswer is the fallback's status (favicon, version name) saying the server is full: the
// players online, this session not counted, are also the maximum.
func (s *Server) fullAnswer() mc.Answer {
	s.mu.Lock()
	online := len(s.sessions) - 1
	s.mu.Unlock()
	message := s.mem.cfg.FullMessage
	status := s.settings().Fallback.Status
	status.MOTD = "§c" + message
	status.MaxPlayers, status.OnlinePlayers = online, online
	return mc.Answer{Status: status, Disconnect: message}
}
