// Package bench is the session benchmark of moonbridge: the Go form of the Java MoonBridge's
// ProxySessionBenchmark (docs/design.md, "Where this comes from"). Its parts live in
// sub-packages, each with one job:
//
//	login     the offline 1.7.10 login both ends play (frames: relay/mc, the proxy's codec)
//	traffic   what flows after login: the echo and modded profiles, byte for byte
//	backend   the fake Minecraft server the relays forward to
//	client    transports (tcp now; ws and wss wait for the ws client) and one player session
//	phase     many sessions in lock step, timed and sampled against the proxy process
//	procfs    /proc readers: process CPU and RSS, host-wide TCP OutSegs
//	target    the relay under test: one already running, or bin/moonbridge started here
//	suite     repeats of paired direct and proxy phases, summarised
//	ab        variants run as separate processes in alternating order, with pair ratios
//	stats     medians, ranges and percentiles
//	report    markdown and JSON rendering
//
// The binary is cmd/mbbench; bench/peers starts HAProxy, websockify and v2ray for comparison.
package bench
