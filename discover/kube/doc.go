// Package kube finds routes in Kubernetes: Services that carry moonbridge's annotations, and,
// for a Service that asks for it, the ready endpoints of its EndpointSlices. It speaks the API
// server's HTTP and JSON itself (no client-go), and watches, so a change reaches the proxy in
// about a second.
//
// A Service becomes the route "kube/NAMESPACE/NAME" (the prefix is Settings.AnnotationPrefix):
//
//	metadata:
//	  annotations:
//	    moonbridge.io/host: survival.example.net,*.survival.example.net  # required
//	    moonbridge.io/port: minecraft   # a port's name or number; default: the port named
//	                                    # minecraft, else the first TCP port
//	    moonbridge.io/backends: service # service (default): NAME.NAMESPACE.svc:PORT;
//	                                    # endpoints: each ready endpoint's address:targetPort
//	    moonbridge.io/countries-allow: DE,AT  # the route's country lists (and countries-deny)
//
// In endpoints mode a Service with no ready endpoint keeps its route, with the Service's name
// as the backend, so its players see the route's fallback rather than another route's server.
// A Service whose annotations do not parse is left out, with a log line; so is an ExternalName
// Service (a DNS alias for any name, in the cluster or not) unless Settings.ExternalName allows
// it.
//
// Each resource is listed, then watched from the list's resourceVersion (one namespace's
// paths are /api/v1/namespaces/NS/services and so on):
//
//	GET /api/v1/services?limit=500[&continue=C]
//	  → {"metadata":{"resourceVersion":"RV","continue":"C"},"items":[Service...]}
//	GET /api/v1/services?watch=1&resourceVersion=RV&allowWatchBookmarks=true&timeoutSeconds=T
//	  → {"type":"ADDED"|"MODIFIED"|"DELETED"|"BOOKMARK"|"ERROR","object":{...}}  one per line
//	GET /apis/discovery.k8s.io/v1/endpointslices?labelSelector=kubernetes.io/service-name in (A,B)&...
//
// The EndpointSlices asked for are those of the Services in endpoints mode, named in the
// selector (A, B); a slice of another namespace's Service of the same name is dropped on
// receipt, and the watch starts again with a list when the set of those Services changes.
//
// A BOOKMARK only moves RV on; an ERROR or a response with code 410 (Gone: RV is older than the
// server keeps) starts again with a list; the end of a stream watches again from RV, after a
// pause that grows while attempts fail. A 403 is logged with the grant the account lacks (the
// verbs, RESOURCE.GROUP and the namespace): a warning, and an error once 403s have lasted 15
// seconds (a kube-apiserver that has just started refuses until it has loaded its RBAC rules).
// Every request sends "Authorization: Bearer TOKEN" with the token file read again, since a
// pod's bound token is rotated.
package kube
