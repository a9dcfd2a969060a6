// Package bench is the session benchmark of moonbridge: the Go form of the Java MoonBridge's
// ProxySessionBenchmark (docs/design.md, "Where this comes from"). Its parts live in
// sub-packages, each with one job:
//
//	login     the offline 1.7.10 login both ends play (frames: mc, the proxy's codec)
//	traffic   what flows after login: the echo and modded profiles, byte for byte, and the
//	          ladder's paced traffic (idle, play)
//	pace      a paced schedule played in real time, with how late each write began
//	backend   the fake Minecraft server the relays forward to
//	client    transports (tcp now; ws and wss wait for the ws client) and one player session
//	phase     many sessions in lock step, timed and sampled against the proxy process
//	upgrade   connection setup: sessions established and closed in a loop, timed and sampled
//	procfs    /proc readers: process CPU, RSS and threads, host-wide TCP OutSegs
//	target    the relay under test: one already running, or bin/moonbridge started here
//	suite     repeats of paired direct and proxy phases (frames or upgrades), summarised
//	ab        variants run as separate processes in alternating order, with pair ratios
//	ladder    the supported-players ladder: paced scenarios at growing counts, pass/invalid
//	          verdicts, tables and an SVG plot
//	stats     medians, ranges, percentiles and a lock-free duration histogram
//	report    markdown and JSON rendering
//	netns     named network namespaces: created, entered by a thread, commands run in them
//	delaylink a user-space link that delays IP packets between two TUN devices (no netem here)
//	netpath   the player and edge namespaces joined only by such a link
//	jointime  joins timed from the connect to Login Success, over paths in alternating rounds
//
// The binary is cmd/mbbench; bench/peers starts HAProxy, websockify and v2ray for comparison.
package bench
