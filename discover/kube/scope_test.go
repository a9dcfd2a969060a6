package kube

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

func endpointsAnnotation(hosts string) map[string]string {
	return map[string]string{"moonbridge.io/host": hosts, "moonbridge.io/backends": "endpoints"}
}

// sliceSelector is the label selector of the last list of EndpointSlices.
func sliceSelector(t *testing.T, api *fakeAPI) string {
	t.Helper()
	reqs := api.requests("endpointslices")
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].query.Get("watch") == "" {
			return reqs[i].query.Get("labelSelector")
		}
	}
	t.Fatal("no list of EndpointSlices")
	return ""
}

// The EndpointSlices asked for are those of the Services in endpoints mode, by name in the label
// selector; the set follows the Services: a Service that turns to endpoints is added (a new
// list), one deleted is dropped.
func TestSlicesOnlyOfEndpointServices(t *testing.T) {
	api := newFakeAPI(t)
	api.setList("services", "10",
		serviceObject("games", "survival", "1", endpointsAnnotation("survival.example.net"), "minecraft:25565"),
		serviceObject("games", "creative", "2", hostAnnotation("creative.example.net"), "minecraft:25565"),
		serviceObject("games", "website", "3", nil, "http:80"),
	)
	api.setList("endpointslices", "20",
		sliceObject("games", "survival-abc", "survival", "11", "minecraft", 30000, sliceEndpoint{"10.0.0.1", ready(true)}),
		sliceObject("games", "creative-abc", "creative", "12", "minecraft", 30000, sliceEndpoint{"10.0.0.2", ready(true)}),
		sliceObject("games", "website-abc", "website", "13", "http", 8080, sliceEndpoint{"10.0.0.3", ready(true)}),
	)
	updates, _ := start(t, api.settings())
	creative := route("kube/games/creative", "creative.games.svc:25565", "creative.example.net")
	eventually(t, updates, creative, route("kube/games/survival", "10.0.0.1:30000", "survival.example.net"))
	if got := sliceSelector(t, api); got != serviceNameLabel+" in (survival)" {
		t.Fatalf("EndpointSlices listed with labelSelector %q, want survival's alone", got)
	}

	services := api.nextWatch("services")
	services.send("MODIFIED", serviceObject("games", "creative", "21", endpointsAnnotation("creative.example.net"), "minecraft:25565"))
	eventually(t, updates, route("kube/games/creative", "10.0.0.2:30000", "creative.example.net"),
		route("kube/games/survival", "10.0.0.1:30000", "survival.example.net"))
	if got := sliceSelector(t, api); got != serviceNameLabel+" in (creative,survival)" {
		t.Fatalf("after creative turned to endpoints, labelSelector %q", got)
	}

	lists := api.lists("endpointslices")
	services.send("DELETED", serviceObject("games", "survival", "22", endpointsAnnotation("survival.example.net"), "minecraft:25565"))
	eventually(t, updates, route("kube/games/creative", "10.0.0.2:30000", "creative.example.net"))
	testutil.WaitFor(t, "a new list of EndpointSlices", func() bool { return api.lists("endpointslices") > lists })
	if got := sliceSelector(t, api); got != serviceNameLabel+" in (creative)" {
		t.Fatalf("after survival went, labelSelector %q", got)
	}
}

// The store keeps the slices of the Services it follows: not another namespace's Service of the
// same name (the selector names no namespace), not a slice of a Service it does not follow, and
// none of a Service it stops following.
func TestSliceStoreKeepsOnlyFollowed(t *testing.T) {
	st := newSliceStore()
	st.follow([]string{"games/survival"})
	view := st.view()
	view.replace([]endpointSlice{
		readObject[endpointSlice](t, sliceObject("games", "survival-abc", "survival", "1", "minecraft", 30000, sliceEndpoint{"10.0.0.1", nil})),
		readObject[endpointSlice](t, sliceObject("lobby", "survival-abc", "survival", "2", "minecraft", 30000, sliceEndpoint{"10.0.0.2", nil})),
	})
	view.put(readObject[endpointSlice](t, sliceObject("games", "website-abc", "website", "3", "http", 8080, sliceEndpoint{"10.0.0.3", nil})))
	if len(st.owner) != 1 || len(st.byService["games/survival"]) != 1 {
		t.Fatalf("kept %v, want games/survival-abc alone", st.owner)
	}
	st.follow([]string{"games/creative"})
	view.put(readObject[endpointSlice](t, sliceObject("games", "survival-def", "survival", "4", "minecraft", 30000, sliceEndpoint{"10.0.0.4", nil})))
	if len(st.owner) != 0 || len(st.byService) != 0 {
		t.Fatalf("kept %v after following another Service, and took a late event of the old watch", st.owner)
	}
}

// An ExternalName Service (a name in any DNS zone, not a workload of the cluster) is left out
// with a log line, unless the settings allow it.
func TestExternalNameRefusedUnlessAllowed(t *testing.T) {
	external := serviceObject("games", "elsewhere", "1", hostAnnotation("elsewhere.example.net"), "minecraft:25565")
	external["spec"] = map[string]any{"type": "ExternalName", "externalName": "mc.attacker.example", "ports": external["spec"].(map[string]any)["ports"]}
	good := serviceObject("games", "good", "2", hostAnnotation("good.example.net"), "minecraft:25565")
	goodRoute := route("kube/games/good", "good.games.svc:25565", "good.example.net")

	api := newFakeAPI(t)
	api.setList("services", "10", external, good)
	updates, logs := start(t, api.settings())
	expect(t, updates, goodRoute)
	for _, want := range []string{`"service":"games/elsewhere"`, "ExternalName", "mc.attacker.example"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %s:\n%s", want, logs)
		}
	}

	allowed := api.settings()
	allowed.ExternalName = true
	updates, _ = start(t, allowed)
	expect(t, updates, route("kube/games/elsewhere", "elsewhere.games.svc:25565", "elsewhere.example.net"), goodRoute)
}

// readObject decodes an object the fake writes, as the source decodes what the API sends.
func readObject[T object](t *testing.T, obj map[string]any) T {
	t.Helper()
	var out T
	data, err := json.Marshal(obj)
	if err == nil {
		err = json.Unmarshal(data, &out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}
