package kubeapi

import "testing"

// A Role that lets discovery read Services but not EndpointSlices: a Service in endpoints mode
// still has its route, to the Service's name, and the log says what is refused, to whom,
// and which grant is missing, as an error once the refusals have lasted (15 s).
func TestNoEndpointSlicesGrantIsAClearError(t *testing.T) {
	client, ns, w := watchNamespace(t, needCluster(t), "no-slices", quickRetry, readServices)
	createService(t, client, minecraftService(ns, "lobby", map[string]string{
		hostAnnotation: "lobby.example.net", backendsAnnotation: "endpoints"}))
	w.waitFor(t, "the route to the Service's name", backendsAre("kube/"+ns+"/lobby", "lobby."+ns+".svc:25565"))
	w.waitLog(t, `"level":"error"`, "403", "endpointslices", watcher.Name,
		"list and watch", "endpointslices.discovery.k8s.io", "namespace "+ns)
}
