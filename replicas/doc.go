// Package replicas is the state moonbridge instances behind one address share, on Redis (or
// Valkey): the players each replica counts per route, the block list, the per-network rates of
// new connections and logins. The relay asks it only at accept, login and on a change, and
// reads everything else from local caches that goroutines of this package refresh; nothing here
// is called per frame or per packet.
//
// What lives in Redis, under the key prefix P:
//
//	P replicas              sorted set: replica id -> Redis' time (ms) of its last heartbeat
//	P players:<route>       hash: replica id -> "<version> <players>" on that route
//	P blocks                sorted set: blocked key (an address, or an IPv6 network's first
//	                        address) -> end of the block (unix ms)
//	P blocks:version        counter, raised by every block, so a refresh reads the set only
//	                        when it changed
//	P rate:<name>:<window>  counter of one network's events in one window, expiring after it
//
// A replica is live while its heartbeat is younger than three heartbeats; only live replicas'
// players count. A replica writes its own count with a version that only grows, so a late
// write never overwrites a newer one.
//
// When Redis is away or slow, every call gives up after its bound (Settings.JoinWait for a
// join, Settings.Timeout otherwise): the relay goes on with its own state, one log line says
// Redis is away and one that it is back, moonbridge_replicas_redis_errors_total counts the
// failures. What was learnt from the other replicas is dropped once it is older than the
// replicas' liveness, so while Redis is away every limit holds per replica. When Redis is back
// the heartbeat republishes the counts and the blocks made meanwhile.
package replicas
