package ws

import (
	"errors"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"
)

// Server defaults.
const (
	DefaultPath              = "/mc"
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultMaxHeaderBytes    = 8 << 10
	DefaultHandshakeTimeout  = 10 * time.Second
)

// AdmitFunc decides, before the upgrade, whether a client may connect. A
// zero status admits it; otherwise the client gets that status (401, 403,
// 429 or 503 in practice) with reason as the body, no upgrade, and the
// connection is closed after the answer.
type AdmitFunc func(r *http.Request) (status int, reason string)

// Handler serves one upgraded connection. The request carries the headers
// the relay needs (X-Forwarded-For and the like). It runs on the HTTP
// server's goroutine for that connection; when it returns, the Server
// closes c.
type Handler func(c *Conn, r *http.Request)

// ServerConfig configures the upgrade endpoint.
type ServerConfig struct {
	Path string // the WebSocket path; default DefaultPath
	// ServesPath, when set, says which request paths are upgraded besides Path; nil: Path alone.
	// The relay serves its routes' paths with it, which change while it runs.
	ServesPath func(path string) bool
	// AllowedOrigins lists the Origin header values accepted; "*" accepts
	// any, and a request without Origin (not a browser: the client bridge,
	// the Minecraft client mod) always passes. Empty keeps gorilla's rule:
	// no Origin header, or one whose host equals the Host header.
	AllowedOrigins []string
	// Subprotocols the server speaks, in preference order; none: no subprotocol is negotiated.
	// AnySubprotocol among them selects the first value offered that is not moonbridge's
	// (CheckSubprotocol says what may be listed). The mode tokens of EarlyData and RawStream
	// come before them.
	Subprotocols      []string
	ReadHeaderTimeout time.Duration // default DefaultReadHeaderTimeout
	// MaxHeaderBytes bounds the request header; net/http allows 4096 bytes
	// of slack above it and answers 431 beyond.
	MaxHeaderBytes   int
	HandshakeTimeout time.Duration // bounds writing the 101 response
	Admit            AdmitFunc     // nil admits everyone
	Conn             Config        // settings of each upgraded connection
	Logger           zerolog.Logger
	// EarlyData is the most early data (EarlyDataPrefix) an upgrade request may carry, capped at
	// MaxEarlyData; 0 takes none: an offer is then not selected, and the client sends its bytes
	// in frames. With a limit, an offer ParseOffer refuses is answered 400 (431 when too large).
	EarlyData int
	// RawStream lets a client that offers it switch to the raw stream (RawStreamProtocol).
	RawStream bool
	// OnEarlyData, when set, hears what became of every offer of early data: before a refusal is
	// answered (err is the *EarlyDataError), after the upgrade that took them or left them.
	OnEarlyData func(r *http.Request, result EarlyDataResult, err error)
}

// Server is an http.Handler that upgrades requests on one path and hands
// the connections to a Handler. gorilla/websocket performs the handshake
// only (never permessage-deflate); the hijacked socket then runs this
// package's codec.
type Server struct {
	cfg      ServerConfig
	handle   Handler
	upgrader websocket.Upgrader
}

// NewServer returns a Server that calls handle for each upgraded client.
func NewServer(cfg ServerConfig, handle Handler) *Server {
	if cfg.Path == "" {
		cfg.Path = DefaultPath
	}
	if cfg.ReadHeaderTimeout <= 0 {
		cfg.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if cfg.MaxHeaderBytes <= 0 {
		cfg.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = DefaultHandshakeTimeout
	}
	return &Server{
		cfg:    cfg,
		handle: handle,
		upgrader: websocket.Upgrader{
			HandshakeTimeout:  cfg.HandshakeTimeout,
			CheckOrigin:       originPolicy(cfg.AllowedOrigins), // ServeHTTP chooses the subprotocol
			EnableCompression: false,
		},
	}
}

// HTTPServer returns an http.Server with this Server as its handler and
// the header read timeout and size limit set. Serve it on any listener:
// plain TCP, or one whose connections are gossl's TLS net.Conns.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		IdleTimeout:       s.cfg.ReadHeaderTimeout,
		MaxHeaderBytes:    s.cfg.MaxHeaderBytes,
		ErrorLog:          httpErrorLog(s.cfg.Logger),
	}
}

// ServeHTTP answers 404 off the paths (Path, ServesPath), 426 to a non-upgrade request on one,
// 505 to an upgrade over HTTP/1.0 (RFC 6455 §4.1 wants HTTP/1.1 or later), the Admit hook's
// status to a refused client, 400 or 431 to early data it refuses, and otherwise upgrades. The
// handler runs once the 101 is written: early data are acted on while the answer travels to the
// client.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case !s.serves(r.URL.Path):
		http.NotFound(w, r)
		return
	case !websocket.IsWebSocketUpgrade(r):
		w.Header().Set("Upgrade", "websocket")
		w.Header().Set("Connection", "Upgrade")
		http.Error(w, "this endpoint speaks WebSocket only", http.StatusUpgradeRequired)
		return
	case !r.ProtoAtLeast(1, 1):
		http.Error(w, "a WebSocket upgrade needs HTTP/1.1 or later", http.StatusHTTPVersionNotSupported)
		return
	}
	if s.cfg.Admit != nil {
		if status, reason := s.cfg.Admit(r); status != 0 {
			s.cfg.Logger.Debug().Str("remote", r.RemoteAddr).Int("status", status).Str("reason", reason).Msg("ws: client refused before upgrade")
			if status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", "Bearer") // RFC 7235 §3.1: a 401 names its scheme
			}
			w.Header().Set("Connection", "close") // one answer per refused connection
			http.Error(w, reason, status)
			return
		}
	}
	offer, err := ParseOffer(r.Header, s.cfg.EarlyData)
	if err != nil {
		s.refuseEarlyData(w, r, err)
		return
	}
	chosen := offer.choose(s.cfg.RawStream, s.cfg.Subprotocols)
	wc, err := s.upgrader.Upgrade(w, r, protocolHeader(chosen)) // answers the client itself on failure
	if err != nil {
		s.cfg.Logger.Debug().Str("remote", r.RemoteAddr).Err(err).Msg("ws: upgrade failed")
		return
	}
	c := newConn(wc.NetConn(), RoleServer, s.cfg.Conn, chosen)
	if c.earlyTaken {
		c.early = offer.EarlyData
	}
	if offer.EarlyDataOffered && s.cfg.OnEarlyData != nil {
		s.cfg.OnEarlyData(r, earlyDataResult(c.earlyTaken), nil)
	}
	defer c.Close()
	s.handle(c, r)
}

// serves says whether an upgrade on path is taken.
func (s *Server) serves(path string) bool {
	return path == s.cfg.Path || s.cfg.ServesPath != nil && s.cfg.ServesPath(path)
}

// protocolHeader is the response header that selects chosen; nil for none.
func protocolHeader(chosen string) http.Header {
	if chosen == "" {
		return nil
	}
	return http.Header{"Sec-Websocket-Protocol": {chosen}}
}

func earlyDataResult(taken bool) EarlyDataResult {
	if taken {
		return EarlyDataUsed
	}
	return EarlyDataOff
}

// refuseEarlyData answers an offer of early data ParseOffer refused with its status and reason,
// once OnEarlyData has heard of it.
func (s *Server) refuseEarlyData(w http.ResponseWriter, r *http.Request, err error) {
	var ee *EarlyDataError
	if !errors.As(err, &ee) {
		ee = malformedEarlyData("%v", err)
	}
	s.cfg.Logger.Debug().Str("remote", r.RemoteAddr).Str("result", string(ee.Result)).Str("reason", ee.Reason).Msg("ws: early data refused")
	if s.cfg.OnEarlyData != nil {
		s.cfg.OnEarlyData(r, ee.Result, ee)
	}
	w.Header().Set("Connection", "close")
	http.Error(w, "early data: "+ee.Reason, ee.status())
}

// originPolicy builds the Upgrader's CheckOrigin from the allowed list.
func originPolicy(allowed []string) func(*http.Request) bool {
	if len(allowed) == 0 {
		return nil // gorilla's same-origin default
	}
	set := make(map[string]bool, len(allowed))
	for _, o := range allowed {
		set[o] = true
	}
	return func(r *http.Request) bool {
		origin := r.Header.Get("Origin")
		return set["*"] || origin == "" || set[origin]
	}
}
