package app_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"go.yaml.in/yaml/v3"

	"crm/app/store"
	"crm/app/store/storetest"
	"crm/docs"
)

// The API tests check every /v1/api answer they receive against docs/openapi.yaml:
// client.send (helpers_test.go) calls checkAPIResponse.
//
// The validator is pb33f/libopenapi-validator, chosen over kin-openapi because it really
// validates OpenAPI 3.1: every schema of a 3.1 document goes to a JSON Schema 2020-12
// validator (santhosh-tekuri/jsonschema), compiled once and cached, and the document itself
// is checked against the official 3.1 schema. kin-openapi (v0.152) hands 3.1 schemas to the
// same 2020-12 validator only when they use a 3.1-only keyword; a schema with $refs and no
// such keyword falls back to its OpenAPI 3.0 validator, which for instance refuses the null
// of `enum: [a, null]`, and it compiles each schema again for every value it checks.
//
// It is pinned at v0.14.0: v0.15.2 and later depend on forks (github.com/pb33f/jsonschema,
// github.com/pb33f/go-yaml) that the module proxy does not serve here.

// apiContract is the document, loaded and compiled once per test binary.
var apiContract = sync.OnceValues(func() (*contract, error) {
	doc, err := libopenapi.NewDocument(docs.OpenAPI)
	if err != nil {
		return nil, err
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		return nil, err
	}
	opts := []config.Option{config.WithFormatAssertions()}
	v := validator.NewValidatorFromV3Model(&model.Model, opts...)
	v.SetDocument(doc) // for ValidateDocument
	return &contract{model: &model.Model, v: v, schemas: schema_validation.NewSchemaValidator(opts...)}, nil
})

type contract struct {
	model   *v3.Document
	v       validator.Validator
	schemas schema_validation.SchemaValidator
}

// schema is a schema of components/schemas.
func (c *contract) schema(name string) *base.Schema {
	if p := c.model.Components.Schemas.GetOrZero(name); p != nil {
		return p.Schema()
	}
	return nil
}

// checkAPIResponse reports how an answer to a /v1/api request differs from what the
// document allows for that operation: its status, content type, documented headers and
// body. A path or method the document does not list must be refused, with 404 or 405 and
// the error envelope; answering it any other way is an undocumented operation.
func checkAPIResponse(req *http.Request, res *http.Response, body []byte) error {
	if p := req.URL.Path; p != "/v1/api" && !strings.HasPrefix(p, "/v1/api/") {
		return nil
	}
	c, err := apiContract()
	if err != nil {
		return fmt.Errorf("docs/openapi.yaml does not load: %w", err)
	}
	if res.Header.Get("Content-Encoding") == "gzip" { // the test asked for it itself
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return err
		}
		if body, err = io.ReadAll(zr); err != nil {
			return err
		}
	}
	copied := *res
	copied.Body = io.NopCloser(bytes.NewReader(body))
	ok, verrs := c.v.ValidateHttpResponse(req, &copied)
	if ok {
		return nil
	}
	if undocumented(verrs) {
		status, envelope := http.StatusNotFound, "Error404"
		if verrs[0].ValidationSubType == helpers.ValidationMissingOperation {
			status, envelope = http.StatusMethodNotAllowed, "Error405"
		}
		if res.StatusCode == status && strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			ok, serrs := c.schemas.ValidateSchemaBytesWithVersion(c.schema(envelope), body, 3.1)
			if ok {
				return nil // refused, as it should be
			}
			verrs = serrs
		}
		return fmt.Errorf("%s %s is not in the document, so it must be refused with %d and the error envelope:\n%s\nbody: %.600s",
			req.Method, req.URL.Path, status, describe(verrs), body)
	}
	return fmt.Errorf("%s\nbody: %.600s", describe(verrs), body)
}

func undocumented(errs []*liberrors.ValidationError) bool {
	return len(errs) == 1 && errs[0].ValidationType == helpers.PathValidation &&
		(errs[0].ValidationSubType == helpers.ValidationMissing || errs[0].ValidationSubType == helpers.ValidationMissingOperation)
}

// describe lists the validator's findings, one per line, with the failing field.
func describe(errs []*liberrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "- %s: %s", e.Message, e.Reason)
		for _, f := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "\n    %s", f.Reason)
			if f.FieldPath != "" {
				fmt.Fprintf(&b, " at %s", f.FieldPath)
			}
			if f.KeywordLocation != "" {
				fmt.Fprintf(&b, " (schema %s)", f.KeywordLocation)
			}
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// apiOperations lists the document's operations as "METHOD /v1/api/path".
func apiOperations(t *testing.T, c *contract) []string {
	t.Helper()
	if len(c.model.Servers) != 1 || c.model.Servers[0].URL != "/v1/api" {
		t.Fatalf("servers: want the one relative server /v1/api")
	}
	var ops []string
	for path, item := range c.model.Paths.PathItems.FromOldest() {
		for method := range item.GetOperations().FromOldest() {
			ops = append(ops, strings.ToUpper(method)+" /v1/api"+path)
		}
	}
	sort.Strings(ops)
	return ops
}

func TestOpenAPIDocumentIsValid31(t *testing.T) {
	t.Parallel()
	c, err := apiContract()
	if err != nil {
		t.Fatal(err)
	}
	if v := c.model.Version; !strings.HasPrefix(v, "3.1.") {
		t.Fatalf("openapi: %q, want 3.1.x", v)
	}
	// Against the OpenAPI 3.1 schema of the specification.
	if ok, errs := c.v.ValidateDocument(); !ok {
		t.Fatalf("docs/openapi.yaml is not a valid OpenAPI 3.1 document:\n%s", describe(errs))
	}
	// Every schema compiles as JSON Schema 2020-12 (a typo in a keyword's value would
	// otherwise only show when a response reaches it).
	for name, proxy := range c.model.Components.Schemas.FromOldest() {
		if proxy.Schema() == nil {
			t.Errorf("components.schemas.%s: %v", name, proxy.GetBuildError())
		}
	}
	// operationIds are unique (3.1 requires it; code generators name functions after them).
	seen := map[string]string{}
	for path, item := range c.model.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			where := strings.ToUpper(method) + " " + path
			switch {
			case op.OperationId == "":
				t.Errorf("%s has no operationId", where)
			case seen[op.OperationId] != "":
				t.Errorf("operationId %s on both %s and %s", op.OperationId, seen[op.OperationId], where)
			}
			seen[op.OperationId] = where
			if op.Responses == nil || op.Responses.Codes.GetOrZero("500") == nil {
				t.Errorf("%s does not document its 500 answer", where)
			}
		}
	}
}

func TestOpenAPIServed(t *testing.T) {
	t.Parallel()
	e := newTestServer(t, storetest.Open(t, store.SQLite))
	c := e.client()
	r := c.get("/v1/api/openapi.json")
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("openapi.json: %d %q", r.status, r.header.Get("Content-Type"))
	}
	// The same document as the YAML, as JSON.
	var served, want any
	mustJSON(t, r.body, &served)
	if err := yaml.Unmarshal(docs.OpenAPI, &want); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatalf("docs/openapi.yaml is not expressible as JSON (quote numeric keys): %v", err)
	}
	mustJSON(t, string(b), &want)
	if !reflect.DeepEqual(served, want) {
		t.Fatal("/v1/api/openapi.json is not docs/openapi.yaml")
	}
	// What is served parses as the same OpenAPI document.
	if _, err := libopenapi.NewDocument([]byte(r.body)); err != nil {
		t.Fatal(err)
	}
	// Cacheable: a client that holds the current copy gets 304.
	etag := r.header.Get("ETag")
	if etag == "" || r.header.Get("Cache-Control") == "" {
		t.Fatalf("not cacheable: %v", r.header)
	}
	if r := c.get("/v1/api/openapi.json", "If-None-Match", etag); r.status != http.StatusNotModified || r.body != "" {
		t.Fatalf("revalidation: %d %.100s", r.status, r.body)
	}
	if r := c.get("/v1/api/openapi.json", "If-None-Match", `"stale"`); r.status != http.StatusOK {
		t.Fatalf("stale copy: %d", r.status)
	}
}

// TestOpenAPICoversEveryRoute keeps the router and the document in step: every route under
// /v1/api is documented, and every documented operation is a route.
func TestOpenAPICoversEveryRoute(t *testing.T) {
	t.Parallel()
	c, err := apiContract()
	if err != nil {
		t.Fatal(err)
	}
	documented := apiOperations(t, c)

	e := newTestServer(t, storetest.Open(t, store.SQLite))
	routes, ok := e.srv.Config.Handler.(chi.Routes)
	if !ok {
		t.Fatalf("app.NewServer returns %T, not a chi router: walk it some other way", e.srv.Config.Handler)
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
		return checkAPIResponse(req, res, []byte(body))
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
		{"an undocumented path refused without the envelope", "GET", "/v1/api/nope", 404, "text/plain", `404 page not found`, "not in the document"},
	}
	for _, d := range drifts {
		err := check(d.method, d.path, d.status, d.ctype, d.body)
		if err == nil || !strings.Contains(err.Error(), d.errHas) {
			t.Errorf("%s: %v", d.name, err)
		}
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
