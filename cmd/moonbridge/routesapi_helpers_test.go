package main

import (
	"encoding/json"
	"testing"

	"github.com/moonbridge/moonbridge/internal/testutil"
)

// testToken is the routes API's token in apiConfig.
const testToken = "0123456789abcdef-test-token"

// apiCall sends one request to the routes API at base with testToken and returns its status
// and body.
func apiCall(t *testing.T, base, method, path, body string) (int, string) {
	t.Helper()
	return testutil.BearerCall(t, method, base+path, testToken, body)
}

// servedFrom reads where the route the API shows in body comes from, and whether it is served.
func servedFrom(t *testing.T, body string) (origin string, served bool) {
	t.Helper()
	var v struct {
		Origin string `json:"origin"`
		Served bool   `json:"served"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("not a route: %v\n%s", err, body)
	}
	return v.Origin, v.Served
}
