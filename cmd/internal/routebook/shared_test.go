package routebook

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"

	"github.com/moonbridge/moonbridge/internal/testutil"
	"github.com/moonbridge/moonbridge/replicas"
	"github.com/moonbridge/moonbridge/replicas/redistest"
)

// sharedBook is a book whose API routes are shared on server's Redis through a replica's store
// that reads them every refresh, with the file's route lobby for play.example.net.
func sharedBook(t *testing.T, server *redistest.Server, id string, refresh time.Duration) *Book {
	t.Helper()
	store := replicas.New(replicas.Settings{Address: server.Addr, KeyPrefix: "rb:", ReplicaID: id,
		Heartbeat: 100 * time.Millisecond, BlockRefresh: refresh}, zerolog.New(zerolog.NewTestWriter(t)))
	book, _, _ := testBook(t, fileWith(route("lobby", "play.example.net")), nil, SharedWriter(store.SaveRoutes))
	store.FollowRoutes(func(text []byte) { book.ApplyShared(text) })
	store.Start(func() (map[string]int, uint64) { return nil, 0 }, func(int) {})
	t.Cleanup(func() { store.Close() })
	return book
}

// servedAPI are the labels of the API's routes book serves, and why the others are left out.
func servedAPI(book *Book) (served []string, leftOut map[string]string) {
	leftOut = map[string]string{}
	for _, e := range book.List() {
		switch {
		case e.Origin != originAPI:
		case e.LeftOut == "":
			served = append(served, e.Route.Label())
		default:
			leftOut[e.Route.Label()] = e.LeftOut
		}
	}
	return served, leftOut
}

// Issue 42: a route added through one replica's routes API is served by the other within a
// second, and gone from it once removed.
func TestSharedAPIRoutesReachEveryReplica(t *testing.T) {
	server := redistest.Start(t)
	a, b := sharedBook(t, server, "a", 100*time.Millisecond), sharedBook(t, server, "b", 100*time.Millisecond)
	if err := a.Add(route("survival", "survival.example.net")); err != nil {
		t.Fatal(err)
	}
	if !testutil.Within(time.Second, func() bool { s, _ := servedAPI(b); return slices.Equal(s, []string{"survival"}) }) {
		t.Fatal("a route added through one replica's API is not served by the other after a second")
	}
	if err := a.Remove("survival"); err != nil {
		t.Fatalf("a replica's change right after its own: %v", err)
	}
	testutil.WaitFor(t, "the removed route to leave the other replica", func() bool { s, _ := servedAPI(b); return len(s) == 0 })
}

// Issue 42: a change made on a replica that has not read another's change yet is refused, not
// saved over it.
func TestSharedAPIRoutesRefuseAChangeOverAnUnreadOne(t *testing.T) {
	server := redistest.Start(t)
	a := sharedBook(t, server, "a", 100*time.Millisecond)
	if err := a.Add(route("survival", "survival.example.net")); err != nil {
		t.Fatal(err)
	}
	// stale reads the routes once as it starts and then not for an hour: once it serves
	// survival, a's next change is one it has not read.
	stale := sharedBook(t, server, "stale", time.Hour)
	testutil.WaitFor(t, "the stale replica's first read", func() bool {
		s, _ := servedAPI(stale)
		return slices.Equal(s, []string{"survival"})
	})
	if err := a.Add(route("adventure", "adventure.example.net")); err != nil {
		t.Fatal(err)
	}
	if err := stale.Add(route("creative", "creative.example.net")); !errors.Is(err, replicas.ErrRoutesChanged) {
		t.Errorf("a change over routes the replica has not read: %v, want it refused", err)
	}
	served, _ := servedAPI(a)
	if slices.Sort(served); !slices.Equal(served, []string{"adventure", "survival"}) {
		t.Errorf("the first replica serves %v after the refused change, want its own routes only", served)
	}
}

// Issue 42: whoever can write to Redis gets no more than the routes API gives: a route that
// names a wake command admin.routes_api.allow does not list, or takes a file route's host, is
// left out with the reason; text that is not a routes list changes nothing.
func TestSharedAPIRoutesAreCheckedAsTheAPIChecksThem(t *testing.T) {
	server := redistest.Start(t)
	b := sharedBook(t, server, "b", 100*time.Millisecond)
	rdb := redis.NewClient(&redis.Options{Addr: server.Addr})
	t.Cleanup(func() { rdb.Close() })
	write := func(version int, text string) {
		t.Helper()
		if err := rdb.HSet(context.Background(), "rb:routes", "version", version, "text", text).Err(); err != nil {
			t.Fatal(err)
		}
	}
	write(100, `routes:
  - name: fine
    hosts: [fine.example.net]
    backends: ["10.0.0.5:25565"]
  - name: evil
    hosts: [evil.example.net]
    backends: ["10.0.0.5:25565"]
    wake:
      command: ["/bin/sh", "-c", "id"]
  - name: steal
    hosts: [play.example.net]
    backends: ["10.0.0.6:25565"]
`)
	var served []string
	var leftOut map[string]string
	testutil.WaitFor(t, "the written routes to be read", func() bool { served, leftOut = servedAPI(b); return len(served) > 0 })
	if !slices.Equal(served, []string{"fine"}) {
		t.Errorf("serves %v of what was written to Redis, want only fine", served)
	}
	if !strings.Contains(leftOut["evil"], "admin.routes_api.allow") || !strings.Contains(leftOut["steal"], "config file") {
		t.Errorf("left out: %v, want evil for its wake command and steal for the file's host", leftOut)
	}
	write(101, "routes: {not: [a list")
	time.Sleep(300 * time.Millisecond) // three refreshes
	if s, _ := servedAPI(b); !slices.Equal(s, []string{"fine"}) {
		t.Errorf("after text that is no routes list the replica serves %v, want what it served", s)
	}
}
