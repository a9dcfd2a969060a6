// Package docker finds routes in a Docker engine's labelled containers, or podman's (its
// `podman system service` serves the same API), and starts and stops containers for a route's
// wake. It speaks the Engine API with net/http, over a unix socket or TCP:
//
//	GET  /version                                    once: the API version to ask in (1.41, or
//	                                                 the engine's oldest when newer)
//	GET  /v1.41/events?filters={"type":["container","network"]}
//	                                                 a stream of JSON objects, one per event
//	GET  /v1.41/containers/json?all=1&filters={"label":["moonbridge.host"]}
//	POST /v1.41/containers/{id}/start, .../stop      204, or 304 when there was nothing to do
//
// Source subscribes to the events, then lists the containers, and lists them again after each
// event and every resync; it reports the whole set of routes when it changes. A container's
// labels (prefix moonbridge):
//
//	moonbridge.host=survival.example.net,*.survival.example.net   required
//	moonbridge.port=25565            the container's port (default 25565)
//	moonbridge.network=games         which network's address, when it is on several
//	moonbridge.backend=127.0.0.1:25566   dial this instead (a published port, a DNS name)
//	moonbridge.wake=true             a stopped container stays a route and is started for a login
//	moonbridge.stop_after_idle=10m   with wake: stopped after this long without a player
//	moonbridge.route=lobby           containers with the same route share one, docker/lobby
//	moonbridge.balance=round-robin   how that route picks a container (default failover)
//	moonbridge.countries.allow=DE,AT   the route's country lists (and .deny), as the file's
//
// A running container is a route named docker/<name> to its address and port; a stopped one
// is none, unless it wakes. Containers with the same route label (replicas) make one route
// named docker/<route>, their addresses its backends in the order of the containers' names;
// they must name the same hosts and balance, and a waking container cannot share its route. A stopped container has no address, so a waking container's route
// dials one that does not change when it starts: the backend label, or <name>:<port>, which
// the engine's DNS resolves on a user-defined network once the container runs (moonbridge
// then runs in a container on that network). A container whose labels do not parse is left
// out with a log line.
package docker
