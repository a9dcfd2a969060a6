package relay

import (
	"errors"
	"net/netip"
	"strconv"
	"time"

	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/mc"
)

// A client refused by a limit is told why in its own protocol: a Minecraft client gets a
// server-list entry or a login disconnect naming the limit (as a WebSocket client gets HTTP 429
// with it), a plain HTTP client a 429, and a TLS client too, after its handshake, except in
// attack mode, where a handshake to say no is not worth its CPU (answerTLS). Answers read with a
// short deadline (a TLS one with the handshake timeout), and what waits for them is bounded
// (refusalSlots), so refusals cannot pile up: beyond that, a refused client is only closed.
const (
	refusalAnswerTimeout = 2 * time.Second
	maxRefusalAnswers    = 64
)

// refuseLimit reports a connection a limit refused, answers it if it can, and closes it.
func (ln *listener) refuseLimit(conn *clientConn, err error) {
	ln.report(conn.info, conn.info.client, limitReason(err), err)
	conn.info.release() // a refused connection holds no slot while it is answered
	defer conn.Close()
	ln.srv.refused(ln.log, conn.info.clientAddr().Addr(), err)
	conn.SetDeadline(earliest(time.Now().Add(refusalAnswerTimeout), time.Now().Add(ln.srv.settings().limits.SniffTimeout)))
	if !ln.srv.answering.awaitFirstBytes(conn) {
		return
	}
	release, ok := ln.srv.answering.answerSlot(ln.srv.counter.networkFor(conn.info.clientAddr().Addr()))
	if !ok {
		return
	}
	defer release()
	switch protocol, _ := ln.sniff(conn); protocol {
	case Minecraft:
		ln.answerMinecraft(conn, err)
	case WS:
		conn.Write(http429(err.Error()))
	case WSS:
		ln.answerTLS(conn, err)
	}
}

// refused does what a limit's refusal of client means beyond its answer: a refusal by the
// total limit, which comes before the connection is counted under its address, counts toward
// the attack mode's measurement, and one by the per-address rate toward the block list
// (strikeOverRate).
func (s *Server) refused(log zerolog.Logger, client netip.Addr, err error) {
	switch limitReason(err) {
	case refusedTotal:
		s.counter.noteConnection(client)
	case refusedRate:
		s.strikeOverRate(log, client)
	}
}

// answerMinecraft reads the hello and answers it with the refusal's reason.
func (ln *listener) answerMinecraft(conn *clientConn, reason error) {
	hello, err := mc.ReadHello(conn.reader, ln.srv.settings().limits.MaxHandshakeFrame)
	if err != nil {
		return
	}
	answer := refusalAnswer(ln.srv.settings().Fallback, reason)
	answer.Serve(conn.reader, hello, func(frame []byte) error { _, err := conn.Write(frame); return err })
}

// refusalAnswer is the fallback's answer with the limit that refused the player as its words.
func refusalAnswer(fallback mc.Answer, reason error) mc.Answer {
	text := "Refused by the proxy: " + reason.Error() + ". Please try again in a minute."
	answer := mc.Answer{Status: fallback.Status, Disconnect: text}
	answer.Status.MOTD = "§c" + text
	return answer
}

func http429(reason string) []byte {
	body := reason + "\n"
	return []byte("HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; charset=utf-8\r\n" +
		"Connection: close\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}

// limitReason is the refusal reason of a limit's error.
func limitReason(err error) string {
	var limit *LimitError
	if errors.As(err, &limit) {
		return limit.Reason
	}
	return refusedPerAddr
}
