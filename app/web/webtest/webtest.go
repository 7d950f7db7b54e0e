// Package webtest feeds bytes to the kit's one JSON decoder and form reader as a request
// would, for the fuzz targets of the handler packages (go test -fuzz; `just fuzz`).
package webtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"crm/app/web"
)

// DecodeJSON decodes body into a P with web.ReadJSON. A refusal must be a client error
// (below 500). What is accepted must be clean: encoded again, the payload decodes again.
func DecodeJSON[P any](t testing.TB, body []byte) (P, bool) {
	t.Helper()
	var p P
	if err := readJSON(body, &p); err != nil {
		if status, _, _, _ := web.Classify(err); status >= 500 {
			t.Fatalf("body %q refused with %d: %v", body, status, err)
		}
		return p, false
	}
	again, err := json.Marshal(p)
	if err != nil {
		t.Fatalf("accepted %q, which does not encode again: %v", body, err)
	}
	var q P
	if err := readJSON(again, &q); err != nil {
		t.Fatalf("accepted %q, but not its own encoding %s: %v", body, again, err)
	}
	return p, true
}

func readJSON(body []byte, dst any) error {
	r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	_, err := web.ReadJSON(httptest.NewRecorder(), r, dst, web.MaxJSONBody)
	return err
}

// ReadForm reads body as a posted URL-encoded form with web.ReadForm: a refusal must be a
// client error; an accepted form is returned.
func ReadForm(t testing.TB, body string) (*http.Request, bool) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if err := web.ReadForm(httptest.NewRecorder(), r); err != nil {
		if status, _, _, _ := web.Classify(err); status >= 500 {
			t.Fatalf("form %q refused with %d: %v", body, status, err)
		}
		return nil, false
	}
	return r, true
}

// Query parses a raw query string the way a request's URL is read (a malformed one is
// dropped, as the CleanQuery middleware refuses it before any handler).
func Query(raw string) (url.Values, bool) {
	q, err := url.ParseQuery(raw)
	return q, err == nil
}
