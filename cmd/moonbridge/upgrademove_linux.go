package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/handover"
	"github.com/moonbridge/moonbridge/relay"
)

// The established sessions of an upgrade: after the new process said Ready, the old one offers
// it every session that can move (relay.Server.MoveSessions), one at a time on the channel
// (internal/handover), and the new one takes each into its relay (relay.Server.AdoptSession).

// answerWait bounds how long the old process waits for the new one's answer to one session;
// nextSessionWait how long the new one waits for the next session (or the end).
const (
	answerWait      = 5 * time.Second
	nextSessionWait = 30 * time.Second
)

// Why a session offered stayed, as the old process counts it (the new process's own reason is
// on its log line).
const (
	stayRefused = "refused by the new process"
	stayNotSent = "could not be sent to the new process"
	stayNoTaker = "the new process ended the hand-over"
)

// sessionMover is the old process's side: it sends the sessions on conn and closes it.
func sessionMover(conn *handover.Conn, log zerolog.Logger) func(*relay.Server) relay.MoveReport {
	return func(srv *relay.Server) relay.MoveReport {
		defer conn.Close() // the new process reads the end of the sessions
		return srv.MoveSessions(func(record []byte, fds [2]int) relay.MoveOffer { return offerSession(conn, record, fds, log) })
	}
}

// offerSession sends one session and reads what the new process did with it.
func offerSession(conn *handover.Conn, record []byte, fds [2]int, log zerolog.Logger) relay.MoveOffer {
	if err := conn.SendSession(record, fds, time.Now().Add(answerWait)); err != nil {
		log.Warn().Err(err).Msg("upgrade: a session could not be sent to the new process; it and the ones after it stay here")
		return relay.MoveOffer{Fate: relay.MoveKept, Why: stayNotSent, Stop: true}
	}
	err := conn.AwaitAnswer(time.Now().Add(answerWait))
	var refused *handover.RefusedError
	switch {
	case err == nil:
		return relay.MoveOffer{Fate: relay.MoveTaken}
	case errors.As(err, &refused):
		log.Warn().Str("reason", refused.Reason).Msg("upgrade: the new process refused a session; it stays here")
		return relay.MoveOffer{Fate: relay.MoveKept, Why: stayRefused}
	case errors.Is(err, io.EOF): // it runs a session only after its Taken went out
		log.Warn().Msg("upgrade: the new process ended the hand-over of sessions; the ones not moved stay here")
		return relay.MoveOffer{Fate: relay.MoveKept, Why: stayNoTaker, Stop: true}
	}
	log.Error().Err(err).Msg("upgrade: the new process gave no answer about a session; this process let go of it so that it never runs twice, and keeps the ones after it")
	return relay.MoveOffer{Fate: relay.MoveUnknown, Stop: true}
}

// takeSessions is the new process's side, once it said Ready: it reads the sessions the old
// process sends until it closes the channel, takes each it can and answers each, on a goroutine
// of its own.
func (c *upgradeChild) takeSessions(srv *relay.Server, log zerolog.Logger) {
	if c == nil || c.sessions == nil {
		return
	}
	conn := c.sessions
	c.sessions = nil
	go func() {
		defer conn.Close()
		taken, refused, err := receiveSessions(conn, srv, log)
		ev := log.Info()
		if err != nil {
			ev = log.Error().Err(err)
		}
		ev.Int("taken", taken).Int("refused", refused).Msg(fmt.Sprintf("upgrade: %d sessions moved in from the old process, %d refused", taken, refused))
	}()
}

// receiveSessions takes sessions until the old process's end of them (nil) or an error.
func receiveSessions(conn *handover.Conn, srv *relay.Server, log zerolog.Logger) (taken, refused int, err error) {
	for {
		m, err := conn.ReceiveSession(time.Now().Add(nextSessionWait))
		var bad *handover.SessionError
		switch {
		case errors.Is(err, io.EOF):
			return taken, refused, nil
		case errors.As(err, &bad):
			refused++
			if err := refuseSession(conn, bad, log); err != nil {
				return taken, refused, err
			}
			continue
		case err != nil:
			return taken, refused, err
		}
		a, err := srv.AdoptSession(m.Body, m.FDs)
		clear(m.Body) // a wss session's keys: the adoption has what it needs of them
		if err != nil {
			refused++
			if err := refuseSession(conn, err, log); err != nil {
				return taken, refused, err
			}
			continue
		}
		if err := conn.Answer(nil, time.Now().Add(answerWait)); err != nil {
			a.Cancel() // the old process was not told: it keeps the session
			return taken, refused, err
		}
		if err := a.Run(); err != nil {
			log.Error().Err(err).Str("session", a.ID()).Msg("upgrade: a session moved in could not start here")
		}
		taken++
	}
}

// refuseSession tells the old process that this one does not take the session it sent, why.
func refuseSession(conn *handover.Conn, why error, log zerolog.Logger) error {
	log.Warn().Err(why).Msg("upgrade: refused a session of the old process; it stays there")
	return conn.Answer(why, time.Now().Add(answerWait))
}
