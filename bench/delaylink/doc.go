// Package delaylink is a network link with a fixed delay, in user space: it carries IP packets
// between two devices (TUN devices, one in each of two network namespaces) and holds every
// packet for the one-way delay before passing it on, in the order it came. It stands in for
// `tc qdisc ... netem delay` on kernels without the netem qdisc.
//
//	namespace A                                                        namespace B
//	sockets ─> tun (A) ─read─> [ hold RTT/2, FIFO ] ─write─> tun (B) ─> sockets
//	sockets <─ tun (A) <─write─ [ hold RTT/2, FIFO ] <─read─ tun (B) <─ sockets
//
// The delay model. Both directions hold every packet for OneWay (RTT/2) from the moment it is
// read, so everything TCP does is delayed as on a real path, the handshake included:
//
//	t = 0        A connects: its SYN leaves
//	t = RTT/2    B's kernel answers the SYN (SYN-ACK)
//	t = RTT      A's connect returns; A sends its first bytes with the handshake's last ACK
//	t = 1.5 RTT  B's accept returns and the first bytes are there to read
//	t = 2 RTT    B's immediate answer reaches A
//
// TLS, the WebSocket upgrade and TCP's own slow start and ACK clocking see the same delays.
// What it does not model: loss, reordering, jitter, a bandwidth limit (a packet is held for
// OneWay whatever its size, so a burst arrives as fast as it was sent) and queueing; a packet
// is late by the time its pump takes to wake from ppoll (tens of microseconds on an idle
// machine, more under load), which Counters.Late records. A TUN device of the kernel's
// defaults carries packets of its MTU (1500) with their checksums computed: the kernel
// segments and checksums for a device that offers no offloads, so each packet read is what a
// wire would carry.
package delaylink
