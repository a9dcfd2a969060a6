package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// testToken is the routes API's token in apiConfig.
const testToken = "0123456789abcdef-test-token"

// apiCall sends one request to the routes API at base with testToken and returns its status
// and body.
func apiCall(t *testing.T, base, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(out)
}

// routeView is what the API shows of a route that these tests read.
type routeView struct {
	Origin string `json:"origin"`
	Served bool   `json:"served"`
}

// decodeView reads one route as the API shows it.
func decodeView(t *testing.T, body string) routeView {
	t.Helper()
	var v routeView
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("not a route view: %v\n%s", err, body)
	}
	return v
}
