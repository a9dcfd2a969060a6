package relay

import (
	"context"
	"errors"
	"net"
	"strconv"

	"github.com/moonbridge/moonbridge/mc"
)

// DrainResult counts how the sessions open during a drain ended.
type DrainResult struct {
	// Ended by themselves, before the deadline (transferred players among them), counted from a
	// HandOver before the drain if there was one.
	Ended int
	// Closed at the deadline, with reason "shutdown", or before it, transferLeave after their
	// Transfer when they did not leave (reason errTransferred).
	Closed int
	// Transferred were sent a Transfer to a live instance (Config.Transfer) during the drain: at
	// its start, or as their relay started (a player still logging in when it began).
	Transferred int
	Told        int // of those closed, told why by a Disconnect
}

// Drain stops accepting (health turns not ready at once), sends the players it can move a
// Transfer to a live instance (Config.Transfer; they leave by themselves), lets the other
// sessions run until they end or ctx ends, then tells the rest why where their stream has room
// for a Disconnect, closes them with reason "shutdown" (WebSocket close 1001) and waits for
// everything the server started. Connections accepted before the listeners closed still become
// sessions; their server-list pings get the restarting answer (Config.RestartingMOTD).
func (s *Server) Drain(ctx context.Context) DrainResult {
	s.draining.Store(true)
	s.meter.Close() // players waiting for the session server are told and leave now
	s.mu.Lock()
	for _, ln := range s.listeners {
		ln.tcp.Close()
	}
	open := len(s.sessions)
	s.mu.Unlock()
	s.log.Info().Int("sessions", open).Msg("draining: listeners closed; waiting for sessions to end")
	moved := s.moveAll()
	if moved > 0 {
		t := s.settings().Transfer
		s.log.Info().Int("transferred", moved).Int("staying", open-moved).Str("transfer_to", net.JoinHostPort(t.Host, strconv.Itoa(int(t.Port)))).
			Msg("draining: players sent to a live instance")
	}
	s.waitForSessions(ctx)
	told := s.tellTheRest()
	closed := s.shutdown()
	s.healthMu.Lock()
	// Closed by the drain: at its deadline, or for not leaving on their Transfer (transferLeave).
	closed += s.drainUnmoved
	result := DrainResult{Ended: s.drainEnded - closed, Closed: closed, Transferred: int(s.drainMoved.Load()), Told: told}
	s.healthMu.Unlock()
	s.log.Info().Int("ended", result.Ended).Int("closed", result.Closed).Int("transferred", result.Transferred).Int("told", told).Msg("drained")
	return result
}

// waitForSessions returns when no session is open or ctx ends.
func (s *Server) waitForSessions(ctx context.Context) {
	for {
		s.mu.Lock()
		open := len(s.sessions)
		s.mu.Unlock()
		if open == 0 {
			return
		}
		select {
		case <-s.empty:
		case <-ctx.Done():
			return
		}
	}
}

// shutdown closes every listener and session and waits for everything the server started; it
// returns how many sessions it closed.
func (s *Server) shutdown() int {
	s.cancel()
	s.mu.Lock()
	for _, ln := range s.listeners {
		ln.close()
	}
	closed := len(s.sessions)
	for sess := range s.sessions {
		sess.abort(errShutdown)
	}
	s.mu.Unlock()
	s.wg.Wait()
	s.live.Wait()
	s.closeDataPath()
	s.stopMemoryWatch()
	return closed
}

var errShutdown = errors.New("proxy shutting down")

// fallback is the answer for pings and logins the relay answers itself: during a drain its
// status says the server is restarting.
func (s *session) fallback() mc.Answer {
	answer := s.conf.Fallback
	if s.srv.draining.Load() && s.conf.RestartingMOTD != "" {
		answer.Status.MOTD = s.conf.RestartingMOTD
	}
	return answer
}
