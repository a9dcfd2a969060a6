package gossl

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// backend is what differs between providers: turning a certificate set and ticket keys into
// what new handshakes use, and wrapping a connection.
type backend interface {
	install(certs *certSet, keys []ticketKey) error
	wrap(raw net.Conn) Conn
	recordLayer() RecordLayer               // what carries its sessions' TLS 1.3 application records
	detachable() bool                       // whether DetachBoring can move its sessions onto an event loop
	resume(state []byte) (LoopCodec, error) // Server.ResumeMoved
}

// Server makes server-side TLS connections for one listener. It is safe for concurrent use.
type Server struct {
	provider string
	cfg      ServerConfig
	log      zerolog.Logger
	backend  backend
	tickets  *ticketKeys

	mu      sync.Mutex // serializes installs (reload, rotation)
	certs   atomic.Pointer[certSet]
	watcher *watcher
	// tried is the content of the certificate files (watchedFiles) when the last load began,
	// whoever asked for it (start, SIGHUP, the watcher): the watcher reloads when the files
	// differ from it, so a file changed back after a SIGHUP loaded another one is served again.
	tried atomic.Pointer[[]fileStamp]
}

func newServer(cfg ServerConfig, provider string, newBackend func(minVersion uint16, cfg ServerConfig) backend) (*Server, error) {
	cfg = cfg.withDefaults()
	minVersion, err := parseMinVersion(cfg.MinVersion)
	if err != nil {
		return nil, err
	}
	if cfg.RecordLayer, err = ParseRecordLayer(string(cfg.RecordLayer)); err != nil {
		return nil, err
	}
	files := watchedFiles(cfg.Certificates)
	seen := stamps(files)
	certs, err := loadCerts(cfg.Certificates)
	if err != nil {
		return nil, err
	}
	s := &Server{
		provider: provider,
		cfg:      cfg,
		log:      cfg.Logger.With().Str("tls_provider", provider).Logger(),
		backend:  newBackend(minVersion, cfg),
		tickets:  newTicketKeys(cfg.TicketRotation, time.Now()),
	}
	if err := s.install(certs); err != nil {
		return nil, err
	}
	if cfg.KeyLog != nil {
		s.log.Warn().Msg("SSLKEYLOGFILE IS ON: every TLS session key is being written out, and " +
			"anyone with that file can decrypt this listener's traffic. Debugging only; unset it.")
	}
	s.tried.Store(&seen)
	s.watcher = startWatcher(s, files, cfg.WatchInterval)
	return s, nil
}

// Provider names the provider that serves this listener: ProviderBoringSSL or ProviderGo. It
// is for logs; what the listener can do is asked with CanDetach and RecordLayer.
func (s *Server) Provider() string { return s.provider }

// RecordLayer names what carries this listener's TLS 1.3 application records: RecordLayerSSL
// or RecordLayerAEAD under BoringSSL (TLS 1.2 sessions always use RecordLayerSSL),
// RecordLayerGo under crypto/tls.
func (s *Server) RecordLayer() string { return s.backend.recordLayer().String() }

// CanDetach reports whether this listener's established sessions can move onto an event loop
// (DetachBoring, and Conn.CanDetach per session): true under BoringSSL, false under crypto/tls,
// whose tls.Conn needs a goroutine to read it.
func (s *Server) CanDetach() bool { return s.backend.detachable() }

// Wrap makes an accepted connection the server side of a TLS session; the handshake runs on
// first use or HandshakeContext. The returned Conn owns raw and closes it.
func (s *Server) Wrap(raw net.Conn) Conn {
	if s.tickets.due(time.Now()) {
		s.mu.Lock()
		if err := s.backend.install(s.certs.Load(), s.tickets.snapshot()); err != nil {
			s.log.Error().Err(err).Msg("TLS session ticket key rotation failed; keeping the old keys")
		}
		s.mu.Unlock()
	}
	return s.backend.wrap(raw)
}

// Reload reads the certificate files again and, if every one is valid, serves them to new
// handshakes; open sessions are untouched. On failure the old certificates stay, the reason is
// logged and returned. cmd/ calls it on SIGHUP; the watcher calls it on a file change.
func (s *Server) Reload() error {
	seen := stamps(watchedFiles(s.cfg.Certificates))
	s.tried.Store(&seen)
	certs, err := loadCerts(s.cfg.Certificates)
	if err == nil {
		err = s.install(certs)
	}
	if err != nil {
		s.log.Error().Err(err).Msg("TLS certificate reload failed; keeping the old certificate")
		return err
	}
	s.log.Info().Str("names", certs.names()).Msg("TLS certificates reloaded")
	return nil
}

func (s *Server) install(certs *certSet) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.backend.install(certs, s.tickets.snapshot()); err != nil {
		return err
	}
	s.certs.Store(certs)
	return nil
}

// Close stops the certificate watcher and waits for it. Connections made by Wrap stay open.
func (s *Server) Close() error {
	s.watcher.stop()
	return nil
}
