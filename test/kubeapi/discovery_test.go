package kubeapi

import (
	"context"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/moonbridge/moonbridge/discover/kube"
	"github.com/moonbridge/moonbridge/routes"
)

// A Service annotated for moonbridge becomes the route kube/NS/NAME to NAME.NS.svc:PORT, and the
// route goes when the annotation is taken off, comes back when it is put on again, and goes
// when the Service is deleted.
func TestAnnotatedServiceBecomesARouteAndGoes(t *testing.T) {
	ctx := context.Background()
	client, ns, w := watchNamespace(t, needCluster(t), "service-route", kube.Settings{}, readServices)
	w.waitFor(t, "first (empty) set", func(found map[string]routes.Route) bool { return len(found) == 0 })

	annotated := map[string]string{hostAnnotation: "survival.example.net"}
	svc := createService(t, client, minecraftService(ns, "survival", annotated))
	route := "kube/" + ns + "/survival"
	w.waitFor(t, "the annotated Service's route", backendsAre(route, "survival."+ns+".svc:25565"))
	if found, _ := w.now(); !slices.Equal(byName(found)[route].Hosts, []string{"survival.example.net"}) {
		t.Errorf("hosts %v", byName(found)[route].Hosts)
	}

	services := client.CoreV1().Services(ns)
	svc.Annotations = nil
	svc, err := services.Update(ctx, svc, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "the route gone with the annotation", absent(route))

	svc.Annotations = annotated
	if _, err := services.Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "the route back with the annotation", backendsAre(route, "survival."+ns+".svc:25565"))

	if err := services.Delete(ctx, svc.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "the route gone with the Service", absent(route))
}

// In endpoints mode the route's backends are the ready endpoints of the Service's
// EndpointSlices on the pods' port, and follow the slices as they are written, changed and
// deleted; with none left the route keeps the Service's name.
func TestEndpointSlicesChangeTheBackends(t *testing.T) {
	ctx := context.Background()
	client, ns, w := watchNamespace(t, needCluster(t), "endpoint-backends", kube.Settings{}, readServices, readEndpointSlices)
	createService(t, client, minecraftService(ns, "lobby", map[string]string{
		hostAnnotation: "lobby.example.net", backendsAnnotation: "endpoints"}))
	route, byService := "kube/"+ns+"/lobby", "lobby."+ns+".svc:25565"
	w.waitFor(t, "the route to the Service's name while it has no endpoint", backendsAre(route, byService))

	slices := client.DiscoveryV1().EndpointSlices(ns)
	a, err := slices.Create(ctx, endpointSlice(ns, "lobby-a", "lobby", endpoint{"10.1.0.1", true}, endpoint{"10.1.0.2", true}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "both ready endpoints", backendsAre(route, "10.1.0.1:25566", "10.1.0.2:25566"))

	a.Endpoints[1].Conditions.Ready = new(bool)
	if _, err := slices.Update(ctx, a, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "the endpoint that is no longer ready left out", backendsAre(route, "10.1.0.1:25566"))

	if _, err := slices.Create(ctx, endpointSlice(ns, "lobby-b", "lobby", endpoint{"10.1.0.3", true}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "a second slice's endpoint added", backendsAre(route, "10.1.0.1:25566", "10.1.0.3:25566"))

	if err := slices.Delete(ctx, "lobby-a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "the deleted slice's endpoint gone", backendsAre(route, "10.1.0.3:25566"))
	if err := slices.Delete(ctx, "lobby-b", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	w.waitFor(t, "the Service's name again with no slice left", backendsAre(route, byService))
}
