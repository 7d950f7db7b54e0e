package app_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.yaml.in/yaml/v3"

	"crm/app/apptest"
	"crm/app/apptest/contract"
	"crm/app/store"
	"crm/app/store/storetest"
	"crm/docs"
)

func TestOpenAPIDocumentIsValid31(t *testing.T) {
	t.Parallel()
	c, err := contract.Load()
	if err != nil {
		t.Fatal(err)
	}
	if v := c.Version; !strings.HasPrefix(v, "3.1.") {
		t.Fatalf("openapi: %q, want 3.1.x", v)
	}
	// Every schema compiled as JSON Schema 2020-12, checked against its meta-schema, when
	// Load read the document (a typo in a keyword's value would otherwise only show when a
	// response reaches it). The document against the OpenAPI 3.1 specification is Redocly's
	// lint (npx just lint-openapi).
	if len(c.Schemas) == 0 || len(c.Paths) == 0 {
		t.Fatalf("%d schemas and %d paths read", len(c.Schemas), len(c.Paths))
	}
	// operationIds are unique (3.1 requires it; code generators name functions after them).
	seen := map[string]string{}
	for _, item := range c.Paths {
		for _, op := range item.Operations {
			where := op.Method + " " + item.Path
			switch {
			case op.ID == "":
				t.Errorf("%s has no operationId", where)
			case seen[op.ID] != "":
				t.Errorf("operationId %s on both %s and %s", op.ID, seen[op.ID], where)
			}
			seen[op.ID] = where
			if op.Responses["500"] == nil {
				t.Errorf("%s does not document its 500 answer", where)
			}
		}
	}
}

func TestOpenAPIServed(t *testing.T) {
	t.Parallel()
	e := apptest.NewServer(t, storetest.Open(t, store.SQLite))
	c := e.Client()
	r := c.Get("/v1/api/openapi.json")
	if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("openapi.json: %d %q", r.Status, r.Header.Get("Content-Type"))
	}
	// The same document as the YAML, as JSON.
	var served, want any
	apptest.MustJSON(t, r.Body, &served)
	if err := yaml.Unmarshal(docs.OpenAPI, &want); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatalf("docs/openapi.yaml is not expressible as JSON (quote numeric keys): %v", err)
	}
	apptest.MustJSON(t, string(b), &want)
	if !reflect.DeepEqual(served, want) {
		t.Fatal("/v1/api/openapi.json is not docs/openapi.yaml")
	}
	// What is served parses as the same OpenAPI document.
	if _, err := contract.Parse([]byte(r.Body)); err != nil {
		t.Fatal(err)
	}
	// Cacheable: a client that holds the current copy gets 304.
	etag := r.Header.Get("ETag")
	if etag == "" || r.Header.Get("Cache-Control") == "" {
		t.Fatalf("not cacheable: %v", r.Header)
	}
	if r := c.Get("/v1/api/openapi.json", "If-None-Match", etag); r.Status != http.StatusNotModified || r.Body != "" {
		t.Fatalf("revalidation: %d %.100s", r.Status, r.Body)
	}
	if r := c.Get("/v1/api/openapi.json", "If-None-Match", `"stale"`); r.Status != http.StatusOK {
		t.Fatalf("stale copy: %d", r.Status)
	}
}

// TestOpenAPICoversEveryRoute keeps the router and the document in step: every route under
// /v1/api is documented, and every documented operation is a route.
func TestOpenAPICoversEveryRoute(t *testing.T) {
	t.Parallel()
	c, err := contract.Load()
	if err != nil {
		t.Fatal(err)
	}
	documented := contract.APIOperations(t, c)

	e := apptest.NewServer(t, storetest.Open(t, store.SQLite))
	routes, ok := e.Srv.Config.Handler.(chi.Routes)
	if !ok {
		t.Fatalf("app.NewServer returns %T, not a chi router: walk it some other way", e.Srv.Config.Handler)
	}
	var routed []string
	err = chi.Walk(routes, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if strings.HasPrefix(route, "/v1/api/") {
			routed = append(routed, method+" "+route)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(routed)
	routed = slices.Compact(routed)
	if len(routed) == 0 {
		t.Fatal("no /v1/api route found")
	}
	var problems []string
	for _, r := range routed {
		if !slices.Contains(documented, r) {
			problems = append(problems, "routed but not in docs/openapi.yaml: "+r)
		}
	}
	for _, d := range documented {
		if !slices.Contains(routed, d) {
			problems = append(problems, "in docs/openapi.yaml but not routed: "+d)
		}
	}
	if len(problems) > 0 {
		t.Fatal(strings.Join(problems, "\n"))
	}
}

// TestOpenAPIRefusesDrift shows that the contract check catches what it is for.
func TestOpenAPIRefusesDrift(t *testing.T) {
	t.Parallel()
	check := func(method, path string, status int, ctype, body string) error {
		req, _ := http.NewRequest(method, "http://crm.test"+path, nil)
		res := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {ctype}}, Request: req}
		return contract.CheckAPIResponse(req, res, []byte(body))
	}
	okBody := `{"status":200,"message":"OK","data":[{"label":"Leads","value":1}]}`
	if err := check("GET", "/v1/api/dropdown-lead-stage-master", 200, "application/json; charset=utf-8", okBody); err != nil {
		t.Fatalf("a good answer is refused: %v", err)
	}
	drifts := []struct {
		name                string
		method, path        string
		status              int
		ctype, body, errHas string
	}{
		{"an extra field", "GET", "/v1/api/dropdown-lead-stage-master", 200, "application/json",
			`{"status":200,"message":"OK","data":[{"label":"Leads","value":1,"colour":"red"}]}`, "colour"},
		{"a wrong type", "GET", "/v1/api/dropdown-lead-stage-master", 200, "application/json",
			`{"status":200,"message":"OK","data":[{"label":"Leads","value":"1"}]}`, "value"},
		{"a status the envelope does not repeat", "GET", "/v1/api/dropdown-lead-stage-master", 200, "application/json",
			`{"status":201,"message":"OK","data":[]}`, "status"},
		{"an undocumented status", "GET", "/v1/api/dropdown-lead-stage-master", 418, "application/json",
			`{"status":418,"message":"teapot"}`, "418"},
		{"another content type", "GET", "/v1/api/dropdown-lead-stage-master", 200, "text/html", `<p>hi</p>`, "text/html"},
		{"an error with field errors where none can be", "GET", "/v1/api/auth/me", 401, "application/json",
			`{"status":401,"message":"Unauthorized","errors":{"token":"required"}}`, "errors"},
		{"a null where the document has none", "GET", "/v1/api/lead/view-customer-lead/1", 200, "application/json",
			`{"status":200,"message":"OK","data":null}`, "data"},
		{"an undocumented path served", "GET", "/v1/api/secret-report", 200, "application/json",
			`{"status":200,"message":"OK"}`, "not in the document"},
		{"a required header left out", "GET", "/v1/api/lead/logo/1", 200, "image/png", "\x89PNG", "Cache-Control"},
		{"a body where the document has none", "GET", "/v1/api/openapi.json", 304, "application/json", `{}`, "a body"},
		{"an undocumented path refused without the envelope", "GET", "/v1/api/nope", 404, "text/plain", `404 page not found`, "not in the document"},
	}
	for _, d := range drifts {
		err := check(d.method, d.path, d.status, d.ctype, d.body)
		if err == nil || !strings.Contains(err.Error(), d.errHas) {
			t.Errorf("%s: %v", d.name, err)
		}
	}
	// A header is read as the type its schema names.
	req, _ := http.NewRequest("POST", "http://crm.test/v1/api/auth/login", nil)
	res := &http.Response{StatusCode: 429, Header: http.Header{"Content-Type": {"application/json"}, "Retry-After": {"2"}}, Request: req}
	body := []byte(`{"status":429,"message":"Too many sign-in attempts."}`)
	if err := contract.CheckAPIResponse(req, res, body); err != nil {
		t.Errorf("Retry-After: 2 is refused: %v", err)
	}
	res.Header.Set("Retry-After", "soon")
	if err := contract.CheckAPIResponse(req, res, body); err == nil || !strings.Contains(err.Error(), "Retry-After") {
		t.Errorf("Retry-After: soon: %v", err)
	}
	// Refusing an undocumented path or method, with the envelope, is what the document says.
	if err := check("GET", "/v1/api/nope", 404, "application/json", `{"status":404,"message":"Page not found"}`); err != nil {
		t.Errorf("404 for an undocumented path: %v", err)
	}
	if err := check("DELETE", "/v1/api/auth/login", 405, "application/json", `{"status":405,"message":"Method not allowed"}`); err != nil {
		t.Errorf("405 for an undocumented method: %v", err)
	}
	if err := check("GET", "/home", 200, "text/html", `<p>page</p>`); err != nil {
		t.Errorf("pages are not the API's: %v", err)
	}
}
