// Package clientaddr says who the client really is when a load balancer or a CDN stands between
// it and the proxy: the PROXY protocol header (haproxy's proxy-protocol.txt) that puts the real
// client's address in front of a connection's first bytes, the forwarded-address headers a CDN
// sets on a WebSocket upgrade (FromHeaders), the shared secret that proves a request came
// through our CDN (ForwardSecret), and the networks whose word is believed (Nets).
//
// Version 1 of the PROXY header is a text line of at most 107 bytes, version 2 a binary header:
//
//	v1:  "PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\n"
//	     "PROXY TCP6 <src> <dst> <sport> <dport>\r\n"
//	     "PROXY UNKNOWN[ anything]\r\n"          addresses unknown
//
//	v2:  0d 0a 0d 0a 00 0d 0a 51 55 49 54 0a    signature (12 bytes)
//	     21                                     version 2, command 1 PROXY (Relayed)
//	                                            (20 = LOCAL: no addresses)
//	     11                                     family TCP over IPv4
//	                                            (21 = TCP over IPv6)
//	     00 0c                                  length of what follows
//	     c0 a8 00 01  c0 a8 00 0b  dc 04  01 bb source, destination, ports
//	     [TLVs: type, uint16 length, value]...
//
// Headers are parsed like the Minecraft bytes: mc.ErrNeedMore while valid but short, an
// *mc.ProtocolError otherwise. This package only codes them and applies the rules; whether to
// read one at all is the caller's decision (the relay's listener policy): a header or a
// forwarded address is honoured only from a peer in the trusted Nets.
package clientaddr
