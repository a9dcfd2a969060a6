package gossl

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/rs/zerolog"
)

const selfTestName = "selftest.moonbridge.invalid"

// selfTestLayers are BoringSSL's record layers (tls.record_layer): the self-test runs each, as a
// listener may use either.
var selfTestLayers = []RecordLayer{RecordLayerSSL, RecordLayerAEAD}

// selfTest runs, for each record layer, a TLS 1.3 handshake between p and crypto/tls over an
// in-process pipe and sends one record each way, checking the bytes and that the layer asked
// for carried them; it proves the provider works before any player needs it.
func selfTest(p Provider) error {
	pair, err := SelfSigned([]string{selfTestName}, time.Hour)
	if err != nil {
		return err
	}
	for _, layer := range selfTestLayers {
		if err := selfTestLayer(p, pair, layer); err != nil {
			return fmt.Errorf("record layer %s: %w", layer, err)
		}
	}
	return nil
}

func selfTestLayer(p Provider, pair PEMPair, layer RecordLayer) error {
	srv, err := p.NewServer(ServerConfig{Certificates: []CertSource{{PEM: pair}}, WatchInterval: -1, Logger: zerolog.Nop(), RecordLayer: layer})
	if err != nil {
		return err
	}
	defer srv.Close()
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pair.CertPEM)
	serverEnd, clientEnd := net.Pipe()
	deadline := time.Now().Add(5 * time.Second)
	_ = serverEnd.SetDeadline(deadline)
	_ = clientEnd.SetDeadline(deadline)
	client := tls.Client(clientEnd, &tls.Config{RootCAs: roots, ServerName: selfTestName})
	server := srv.Wrap(serverEnd)
	// The client's end goes first: the server's Close then fails its close_notify at once
	// instead of waiting out its write deadline on a pipe nobody reads.
	defer server.Close()
	defer clientEnd.Close()
	done := make(chan error, 1)
	go func() { done <- exchange(client, []byte("ping"), []byte("pong")) }()
	if err := errors.Join(exchange(server, []byte("pong"), []byte("ping")), <-done); err != nil {
		return err
	}
	if got := server.State().RecordLayer; got != layer.String() {
		return fmt.Errorf("the records went through %q", got)
	}
	return nil
}

// exchange writes send on one side while reading want (the peer's send) on it too.
func exchange(c net.Conn, send, want []byte) error {
	errc := make(chan error, 1)
	go func() { _, err := c.Write(send); errc <- err }()
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return errors.New("self-test record came back altered")
	}
	return <-errc
}
