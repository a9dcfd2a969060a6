// Package modern is a Minecraft 1.21/1.21.1 (protocol 767) client and server small enough to
// check a proxy against: a fake backend that logs players in, configures them and echoes their
// test:echo plugin messages, and a player that joins, echoes and follows a Transfer (1.20.5+)
// with the cookies the server stored. Its packet ids and layouts are written down here from
// minecraft-data, apart from the proxy's own table on purpose (ids.go).
//
// Frames, before Set Compression and after it (threshold T):
//
//	frame      = VarInt(len) | VarInt(packet id) | fields
//	compressed = VarInt(len) | VarInt(0)         | VarInt(packet id) | fields     (packet < T bytes)
//	           | VarInt(len) | VarInt(packet len) | zlib(VarInt(packet id) | fields)  (packet >= T)
//
// One connection, as Serve and Join play it:
//
//	client                                           server
//	Handshake (767, host, port, next 2 or 3 = transfer)
//	Login Start (name, uuid)                   ->
//	                                           <- [Cookie Request (key)]: Cookie Response (key, present, [bytes])
//	                                           <- [Set Compression (T)]
//	                                           <- Login Success (uuid, name, no properties, strict false)
//	Login Acknowledged                         ->          configuration state from here
//	                                           <- Plugin Message minecraft:brand, Finish Configuration
//	Acknowledge Finish Configuration           ->          play state from here
//	                                           <- Keep Alive (the first play packet)
//	Plugin Message test:echo (data)            ->
//	                                           <- Plugin Message test:echo (the same data)
//
// A server moves a player with Store Cookie (key, bytes) and Transfer (host, VarInt port) in the
// configuration or play state; the client leaves and joins host:port with next state 3, answering
// the new server's Cookie Requests from what was stored. A Disconnect in those states carries its
// reason as network NBT: a root String tag, 08 | u16 length | modified UTF-8 (nbt.go).
package modern
