package testutil

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// BearerCall sends one HTTP request with body and, unless token is "", the header
// Authorization: Bearer token; it returns the answer's status and body, and fails the test when
// there is no answer.
func BearerCall(t testing.TB, method, url, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
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
