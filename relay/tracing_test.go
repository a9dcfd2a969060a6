package relay

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/rs/zerolog"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/internal/tracing"
	"github.com/moonbridge/moonbridge/internal/tracing/tracingtest"
	"github.com/moonbridge/moonbridge/mc"
	"github.com/moonbridge/moonbridge/mc/auth"
	"github.com/moonbridge/moonbridge/mc/auth/authtest"
	"github.com/moonbridge/moonbridge/relay/clientaddr"
	"github.com/moonbridge/moonbridge/ws"
)

// startTracer runs a tracer that exports to endpoint, every join sampled unless mutate says
// otherwise; the test's cleanup shuts it down (after the proxies started later have closed).
func startTracer(t *testing.T, endpoint string, mutate func(*tracing.Config)) *tracing.Tracer {
	t.Helper()
	cfg := tracing.Config{Endpoint: endpoint, SampleRatio: 1, ExportTimeout: 5 * time.Second}
	if mutate != nil {
		mutate(&cfg)
	}
	tr, err := tracing.New(cfg, zerolog.New(zerolog.NewTestWriter(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shutdownTracer(t, tr) })
	return tr
}

// shutdownTracer exports what tr has queued: every join that has ended.
func shutdownTracer(t *testing.T, tr *tracing.Tracer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tr.Shutdown(ctx); err != nil {
		t.Errorf("tracer shutdown: %v", err)
	}
}

// joinSpans are one join's spans as the receiver got them: the join's own and its steps' by name.
type joinSpans struct {
	root  *tracepb.Span
	steps map[string]*tracepb.Span
}

// oneJoin finds the one root span among spans (no parent, or one outside them: a trusted
// traceparent's) and its steps, and checks that every span is of the root's trace.
func oneJoin(t *testing.T, spans []*tracepb.Span) joinSpans {
	t.Helper()
	j := joinSpans{steps: map[string]*tracepb.Span{}}
	ids := map[string]bool{}
	for _, s := range spans {
		ids[tracingtest.ID(s.SpanId)] = true
	}
	for _, s := range spans {
		if ids[tracingtest.ID(s.ParentSpanId)] {
			j.steps[s.Name] = s
			continue
		}
		if j.root != nil {
			t.Fatalf("two root spans: %s and %s", j.root.Name, s.Name)
		}
		j.root = s
	}
	if j.root == nil {
		t.Fatalf("no root span among %d spans", len(spans))
	}
	for _, s := range spans {
		if tracingtest.ID(s.TraceId) != tracingtest.ID(j.root.TraceId) {
			t.Errorf("span %s is of trace %x, the join's is %x", s.Name, s.TraceId, j.root.TraceId)
		}
	}
	return j
}

// under checks that the step named name is there, a child of parent.
func (j joinSpans) under(t *testing.T, name string, parent *tracepb.Span) *tracepb.Span {
	t.Helper()
	s := j.steps[name]
	if s == nil {
		t.Fatalf("no %s span; steps: %v", name, stepNames(j.steps))
	}
	if tracingtest.ID(s.ParentSpanId) != tracingtest.ID(parent.SpanId) {
		t.Errorf("span %s is not a child of %s", name, parent.Name)
	}
	if s.StartTimeUnixNano > s.EndTimeUnixNano || s.StartTimeUnixNano < j.root.StartTimeUnixNano {
		t.Errorf("span %s runs from %d to %d, the join from %d", name, s.StartTimeUnixNano, s.EndTimeUnixNano, j.root.StartTimeUnixNano)
	}
	return s
}

// tracesHeld counts the server's sessions that hold a trace.
func tracesHeld(srv *Server) int {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	n := 0
	for sess := range srv.sessions {
		sess.info.mu.Lock()
		if sess.info.trace != nil {
			n++
		}
		sess.info.mu.Unlock()
	}
	return n
}

func stepNames(steps map[string]*tracepb.Span) []string {
	var names []string
	for n := range steps {
		names = append(names, n)
	}
	return names
}

func wantAttrs(t *testing.T, s *tracepb.Span, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got := tracingtest.Attr(s, k); got != v {
			t.Errorf("span %s: %s = %q, want %q", s.Name, k, got, v)
		}
	}
}

func TestTraceOfAJoin(t *testing.T) {
	for _, tc := range []struct {
		name      string
		transport Protocol
		provider  string
	}{
		{"minecraft", Minecraft, "go"},
		{"ws", WS, "go"},
		{"wss go", WSS, "go"},
		{"wss boringssl", WSS, "boringssl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rcv := tracingtest.Start(t)
			tr := startTracer(t, rcv.URL, nil)
			backend := startBackend(t, false)
			srv, addr := startProxy(t, func(c *Config) {
				c.Routes = routeTo(backend.addr())
				c.TLS = tlsServer(t, tc.provider)
				c.Tracer = tr
			}, tc.transport)
			conn := dialClient(t, tc.transport, addr)
			exchange(t, conn, "play.example.net", 4096)
			if n := tracesHeld(srv); n != 0 {
				t.Errorf("%d relaying sessions still hold their trace", n)
			}
			conn.Close()
			shutdownTracer(t, tr)

			j := oneJoin(t, rcv.Spans())
			if j.root.Name != tracing.NameJoin || j.root.Kind != tracepb.Span_SPAN_KIND_SERVER {
				t.Errorf("the join's span is %q of kind %v", j.root.Name, j.root.Kind)
			}
			wantAttrs(t, j.root, map[string]string{
				"moonbridge.transport": string(tc.transport), "moonbridge.route": "*", "moonbridge.host": "play.example.net",
				"moonbridge.next_state": "login", "moonbridge.protocol_version": "767", "moonbridge.outcome": "relayed",
				"moonbridge.backend": backend.addr(), "client.address": "127.0.0.1",
			})
			if j.root.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
				t.Errorf("a relayed join has an error status: %s", j.root.Status.Message)
			}
			want := []string{"accept", "route", "backend.dial"}
			if tc.transport != Minecraft {
				want = append(want, "websocket.upgrade")
			}
			if tc.transport == WSS {
				want = append(want, "tls.handshake")
				wantAttrs(t, j.root, map[string]string{"moonbridge.tls.provider": tc.provider, "tls.protocol.version": "1.3"})
			}
			for _, name := range want {
				j.under(t, name, j.root)
			}
			if len(j.steps) != len(want) {
				t.Errorf("steps %v, want %v", stepNames(j.steps), want)
			}
			if len(j.root.Events) != 1 || j.root.Events[0].Name != "backend.first_bytes" {
				t.Errorf("events %v, want backend.first_bytes", j.root.Events)
			}
			if svc := rcv.Services(); len(svc) == 0 || svc[0] != tracing.DefaultServiceName {
				t.Errorf("service names %v", svc)
			}
		})
	}
}

// A join whose backend is down ends with an error status, on its dial and on itself.
func TestTraceOfAFailedJoin(t *testing.T) {
	rcv := tracingtest.Start(t)
	tr := startTracer(t, rcv.URL, nil)
	srv, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(testutil.ClosedPort(t))
		c.Tracer = tr
	}, Minecraft)
	conn := dialClient(t, Minecraft, addr)
	conn.Write(handshakeFrame("play.example.net", mc.NextLogin))
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	io.Copy(io.Discard, conn) // the fallback's disconnect, then the close
	conn.Close()
	// The session closed the player's side as it failed; its join ends as the session does.
	testutil.WaitFor(t, "the session's end", func() bool { return srv.sessionCount() == 0 })
	shutdownTracer(t, tr)

	j := oneJoin(t, rcv.Spans())
	wantAttrs(t, j.root, map[string]string{"moonbridge.outcome": "backend_unreachable", "moonbridge.answered": "fallback"})
	if j.root.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || j.root.Status.Message == "" {
		t.Errorf("the join's status is %v, want an error with its reason", j.root.Status)
	}
	dial := j.under(t, "backend.dial", j.root)
	if dial.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("the dial's status is %v, want an error", dial.Status)
	}
	if len(j.root.Events) != 0 {
		t.Errorf("a join no backend took has events %v", j.root.Events)
	}
}

// With the collector away, joins go on and the spans that could not be exported are counted.
func TestTraceExporterAwayLeavesJoinsAlone(t *testing.T) {
	tr := startTracer(t, "http://"+testutil.ClosedPort(t)+"/v1/traces", nil)
	backend := startBackend(t, false)
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.addr())
		c.Tracer = tr
	}, Minecraft)
	for range 3 {
		conn := dialClient(t, Minecraft, addr)
		exchange(t, conn, "play.example.net", 1024)
		conn.Close()
	}
	shutdownTracer(t, tr)
	if st := tr.Stats(); st.Failed == 0 || st.Exported != 0 {
		t.Errorf("stats %+v: want failed spans and none exported", st)
	}
}

// A traceparent header decides nothing unless the owner trusts parents and the peer is a
// trusted proxy: a client can neither turn sampling on nor put its join into another trace.
func TestTraceParentOnlyFromTrustedProxies(t *testing.T) {
	const traceID, spanID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	header := http.Header{"Traceparent": {"00-" + traceID + "-" + spanID + "-01"}}
	for _, tc := range []struct {
		name         string
		trust        bool
		trustedPeer  bool
		ratio        float64
		wantSpans    bool
		wantInParent bool
	}{
		{"ignored by default", false, true, 1, true, false},
		{"cannot turn sampling on", false, true, 0, false, false},
		{"ignored from an untrusted peer", true, false, 1, true, false},
		{"untrusted peer cannot turn sampling on", true, false, 0, false, false},
		{"followed from a trusted proxy", true, true, 0, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rcv := tracingtest.Start(t)
			tr := startTracer(t, rcv.URL, func(c *tracing.Config) { c.TrustParent, c.SampleRatio = tc.trust, tc.ratio })
			backend := startBackend(t, false)
			_, addr := startProxy(t, func(c *Config) {
				c.Routes = routeTo(backend.addr())
				c.Tracer = tr
				if tc.trustedPeer {
					c.TrustedProxies = mustNets(t, "127.0.0.0/8")
				}
			}, WS)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			conn, err := ws.Dial(ctx, ws.DialConfig{URL: "ws://" + addr + "/mc", Header: header, TLSConfig: &tls.Config{}})
			if err != nil {
				t.Fatal(err)
			}
			exchange(t, conn, "play.example.net", 1024)
			conn.Close()
			shutdownTracer(t, tr)

			spans := rcv.Spans()
			if !tc.wantSpans {
				if len(spans) != 0 {
					t.Fatalf("%d spans exported; the header must not turn sampling on", len(spans))
				}
				return
			}
			j := oneJoin(t, spans)
			inParent := tracingtest.ID(j.root.TraceId) == traceID
			if inParent != tc.wantInParent {
				t.Errorf("join in the header's trace: %v, want %v", inParent, tc.wantInParent)
			}
			if tc.wantInParent && tracingtest.ID(j.root.ParentSpanId) != spanID {
				t.Errorf("the join's parent is %x, want %s", j.root.ParentSpanId, spanID)
			}
		})
	}
}

func mustNets(t *testing.T, cidrs ...string) clientaddr.Nets {
	t.Helper()
	nets, err := clientaddr.ParseNets("trusted network", cidrs)
	if err != nil {
		t.Fatal(err)
	}
	return nets
}

// An online login has its login step with the session server's request under it, and the
// player's name on the join.
func TestTraceOfAnOnlineLogin(t *testing.T) {
	rcv := tracingtest.Start(t)
	tr := startTracer(t, rcv.URL, nil)
	sessions := authtest.NewSessionServer(t)
	backend := authtest.Backend{Forwarding: auth.ForwardNone, Got: make(chan authtest.BackendLogin, 1), Received: new(testutil.SyncBuffer)}
	ln := testutil.Serve(t, backend.Serve)
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(ln.Addr().String())
		c.Routes[0].Login = &auth.Config{Online: true, Keys: authtest.Keys(t),
			Sessions: auth.SessionServer{BaseURL: sessions.URL, Timeout: 2 * time.Second}}
		c.Tracer = tr
	}, Minecraft)
	pc := loginThrough(t, loginSetup{addr: addr}, Minecraft, authtest.Player{Name: "Alex", Protocol: 767, Sessions: sessions})
	if got := backendLogin(t, &backend); got.Err != nil {
		t.Fatal(got.Err)
	}
	readLoginSuccess(t, pc, false)
	shutdownTracer(t, tr)

	j := oneJoin(t, rcv.Spans())
	wantAttrs(t, j.root, map[string]string{"moonbridge.player": "Alex", "moonbridge.outcome": "relayed"})
	login := j.under(t, "login", j.root)
	j.under(t, "session_server", login)
	if dial := j.under(t, "backend.dial", j.root); dial.StartTimeUnixNano < login.EndTimeUnixNano {
		t.Error("the dial started before the login ended")
	}
}

// A connection refused before its session (a TLS handshake that fails) is a "connection"
// span with the refusal's reason and the failed step.
func TestTraceOfARefusedConnection(t *testing.T) {
	rcv := tracingtest.Start(t)
	tr := startTracer(t, rcv.URL, nil)
	_, addr := startProxy(t, func(c *Config) { c.Tracer = tr }, WSS)
	conn := dialClient(t, Minecraft, addr) // plain TCP
	conn.Write([]byte{0x16, 0x03, 0x01, 0x00, 0x05, 'h', 'e', 'l', 'l', 'o'})
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	io.Copy(io.Discard, conn)
	conn.Close()
	testutil.WaitFor(t, "the refused connection's spans", func() bool { return tr.Stats().Exported >= 2 })
	shutdownTracer(t, tr)

	j := oneJoin(t, rcv.Spans())
	if j.root.Name != tracing.NameConnection || j.root.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("the span is %q with status %v", j.root.Name, j.root.Status)
	}
	wantAttrs(t, j.root, map[string]string{"moonbridge.outcome": "refused", "moonbridge.reason": refusedTLS})
	if s := j.under(t, "tls.handshake", j.root); s.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("the handshake's status is %v", s.Status)
	}
}

// The hooks a join runs cost no allocation with tracing off (the join path allocates what it
// did before); with tracing on they do, which shows the count can fail.
func TestTraceHooksOffZeroAllocs(t *testing.T) {
	for _, on := range []bool{false, true} {
		var tr *tracing.Tracer
		if on {
			tr = startTracer(t, "http://"+testutil.ClosedPort(t)+"/v1/traces", nil)
		}
		srv, _ := startProxy(t, func(c *Config) { c.Tracer = tr }, Minecraft)
		ln := srv.listeners[0]
		info := &connInfo{}
		sess := &session{srv: srv, info: info}
		o := &opening{route: &routeTo("127.0.0.1:1")[0], first: []byte("first")}
		hs := mc.Handshake{Protocol: 767, Host: "play.example.net", NextState: mc.NextLogin}
		req := &http.Request{Header: http.Header{}}
		allocs := testing.AllocsPerRun(50, func() {
			accepted := time.Now()
			info.trace = srv.tracer.Start(accepted)
			traceAccepted(info, WSS, accepted)
			traceTLS(info, info.trace.Now(), io.ErrUnexpectedEOF)
			ln.traceUpgrade(info, req)
			info.trace.Hold()
			sess.traceHello(hs)
			sess.traceRoute(o, info.trace.Now())
			sess.traceStep(tracing.StepLogin, info.trace.Now())
			if asked := sess.traceSessionServer(); asked != nil {
				asked(accepted, nil)
			}
			sess.traceDial(o, info.trace.Now())
			sess.traceRelayed()
			sess.traceEnd()
			info.closeTrace()
		})
		if on && allocs == 0 {
			t.Error("tracing on: the hooks allocated nothing, so this count measures nothing")
		}
		if !on && allocs != 0 {
			t.Errorf("tracing off: the join's hooks allocated %.1f times per join", allocs)
		}
	}
}

// A WebSocket upgrade access control refuses (403: the address is on the route's deny list)
// is a refused connection whose reason names the access check.
func TestTraceOfAnUpgradeAccessRefused(t *testing.T) {
	rcv := tracingtest.Start(t)
	tr := startTracer(t, rcv.URL, nil)
	backend := startBackend(t, false)
	_, addr := startProxy(t, func(c *Config) {
		c.Routes = routeTo(backend.addr())
		c.Routes[0].Access.Deny = mustNets(t, "127.0.0.0/8")
		c.Tracer = tr
	}, WS)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if conn, err := ws.Dial(ctx, ws.DialConfig{URL: "ws://" + addr + "/mc"}); err == nil {
		conn.Close()
		t.Fatal("the upgrade went through")
	}
	testutil.WaitFor(t, "the refused upgrade's span", func() bool { return tr.Stats().Exported >= 1 })
	shutdownTracer(t, tr)

	j := oneJoin(t, rcv.Spans())
	wantAttrs(t, j.root, map[string]string{"moonbridge.outcome": "refused", "moonbridge.reason": "access_address"})
	if j.root.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("the span's status is %v, want an error", j.root.Status)
	}
}
