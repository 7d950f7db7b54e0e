// Package contract checks /v1/api answers against docs/openapi.yaml.
//
// It is a package of its own, apart from apptest, so that the API tests and the document's
// own tests share one reading of the document.
package contract

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"crm/docs"
)

// The API tests check every /v1/api answer they receive against docs/openapi.yaml:
// apptest's Client.Send calls CheckAPIResponse.
//
// OpenAPI 3.1's schemas are JSON Schema 2020-12, so the bodies and headers are checked by
// a JSON Schema validator (santhosh-tekuri/jsonschema), each schema compiled in place in
// the document, where its $refs resolve. What is OpenAPI's own (the operation a request
// reaches, the answer documented for its status, the content types and required headers)
// is the little this package reads itself. Until the forty-seventh round it was
// pb33f/libopenapi-validator, which did the same and whose generic types took 162 s of a
// cold machine's two cores to compile, the largest single step of the suite
// (docs/PERFORMANCE.md, "Forty-seventh round"). The document's structure against the
// OpenAPI 3.1 specification is Redocly's lint (`npx just lint-openapi`, part of the suite).

// base is where the document is held for the validator; nothing is fetched from it.
const base = "https://crm.invalid/openapi.json"

// Load gives docs/openapi.yaml, read and compiled once per test binary.
var Load = sync.OnceValues(func() (*Document, error) { return Parse(docs.OpenAPI) })

// Document is the contract: its operations, and every schema they name, compiled.
type Document struct {
	Version string
	Servers []string
	Paths   []*PathItem                   // by path
	Schemas map[string]Schema             // components.schemas, by name
	raw     map[string]any                // the document as JSON values
	checks  map[string]*jsonschema.Schema // compiled, by JSON pointer
}

// PathItem is one path of the document (relative to the server, "/lead/{id}").
type PathItem struct {
	Path       string
	Operations []*Operation // by method
	segments   []string
}

// Operation is a method on a path.
type Operation struct {
	Method      string // upper case
	ID          string
	Params      []Param           // the path item's and the operation's
	RequestBody map[string]Schema // by media type
	Responses   map[string]*Response
}

// Param is a parameter of an operation.
type Param struct {
	Name, In string
	Schema   Schema
}

// Response is what an operation documents for one status code.
type Response struct {
	Headers map[string]Header // by canonical name
	Content map[string]Schema // by media type; a media type without a schema has a zero Schema
}

// Header is a documented response header.
type Header struct {
	Required bool
	Schema   Schema
}

// Schema is a schema where it sits in the document: its JSON pointer and its value, with a
// $ref of its own followed (Value), though Ptr stays where it was named.
type Schema struct {
	Ptr   string
	Value map[string]any
	at    string // where Value sits, past the $refs
}

// Types are the schema's types ("type": "string" or a list).
func (s Schema) Types() []string {
	switch t := s.Value["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, v := range t {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// Parse reads an OpenAPI 3.1 document (YAML or JSON) and compiles every schema an
// operation's parameters, request bodies and answers name, and every component schema.
func Parse(text []byte) (*Document, error) {
	var y any
	if err := yaml.Unmarshal(text, &y); err != nil {
		return nil, err
	}
	// Through JSON, for the validator's value types (json.Number, map[string]any).
	b, err := json.Marshal(y)
	if err != nil {
		return nil, fmt.Errorf("not expressible as JSON (quote numeric keys): %w", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	raw, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("the document is not an object")
	}
	d := &Document{raw: raw, Schemas: map[string]Schema{}, checks: map[string]*jsonschema.Schema{}}
	d.Version, _ = raw["openapi"].(string)
	for _, s := range list(raw["servers"]) {
		u, _ := obj(s)["url"].(string)
		d.Servers = append(d.Servers, u)
	}
	for name := range obj(obj(raw["components"])["schemas"]) {
		d.Schemas[name] = d.schema("/components/schemas/" + escape(name))
	}
	paths := obj(raw["paths"])
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		d.Paths = append(d.Paths, d.pathItem(path, "/paths/"+escape(path)))
	}

	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(base, raw); err != nil {
		return nil, err
	}
	compile := func(s Schema) error {
		if s.Ptr == "" || d.checks[s.Ptr] != nil {
			return nil
		}
		sch, err := c.Compile(base + "#" + s.Ptr)
		if err != nil {
			return fmt.Errorf("%s: %w", s.Ptr, err)
		}
		d.checks[s.Ptr] = sch
		return nil
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(d.Schemas)) {
		errs = append(errs, compile(d.Schemas[name]))
	}
	for _, p := range d.Paths {
		for _, op := range p.Operations {
			for _, prm := range op.Params {
				errs = append(errs, compile(prm.Schema))
			}
			for _, s := range op.RequestBody {
				errs = append(errs, compile(s))
			}
			for _, r := range op.Responses {
				for _, h := range r.Headers {
					errs = append(errs, compile(h.Schema))
				}
				for _, s := range r.Content {
					errs = append(errs, compile(s))
				}
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Document) pathItem(path, ptr string) *PathItem {
	item, _ := d.resolve(ptr)
	p := &PathItem{Path: path, segments: strings.Split(path, "/")}
	common := d.params(item, ptr)
	for _, method := range []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"} {
		o, ok := item[method].(map[string]any)
		if !ok {
			continue
		}
		optr := ptr + "/" + method
		op := &Operation{Method: strings.ToUpper(method), RequestBody: map[string]Schema{}, Responses: map[string]*Response{}}
		op.ID, _ = o["operationId"].(string)
		op.Params = append(append([]Param{}, common...), d.params(o, optr)...)
		if rb, rptr := d.resolve(optr + "/requestBody"); rb != nil {
			for mt := range obj(rb["content"]) {
				op.RequestBody[mt] = d.schema(rptr + "/content/" + escape(mt) + "/schema")
			}
		}
		for code := range obj(o["responses"]) {
			r, rptr := d.resolve(optr + "/responses/" + escape(code))
			res := &Response{Headers: map[string]Header{}, Content: map[string]Schema{}}
			for name := range obj(r["headers"]) {
				h, hptr := d.resolve(rptr + "/headers/" + escape(name))
				req, _ := h["required"].(bool)
				res.Headers[http.CanonicalHeaderKey(name)] = Header{Required: req, Schema: d.schema(hptr + "/schema")}
			}
			for mt := range obj(r["content"]) {
				res.Content[mt] = d.schema(rptr + "/content/" + escape(mt) + "/schema")
			}
			op.Responses[code] = res
		}
		p.Operations = append(p.Operations, op)
	}
	return p
}

// params are the parameters listed at ptr's "parameters", each $ref followed.
func (d *Document) params(node map[string]any, ptr string) []Param {
	var out []Param
	for i := range list(node["parameters"]) {
		p, pptr := d.resolve(ptr + "/parameters/" + strconv.Itoa(i))
		name, _ := p["name"].(string)
		in, _ := p["in"].(string)
		out = append(out, Param{Name: name, In: in, Schema: d.schema(pptr + "/schema")})
	}
	return out
}

// schema is the schema at ptr, or the zero Schema when there is none.
func (d *Document) schema(ptr string) Schema {
	v, at := d.resolve(ptr)
	if v == nil {
		return Schema{}
	}
	return Schema{Ptr: ptr, Value: v, at: at}
}

// resolve is the object at a JSON pointer of the document, its $refs (within the document)
// followed, and the pointer it was found at.
func (d *Document) resolve(ptr string) (map[string]any, string) {
	for range 20 { // a $ref chain longer than this is a loop
		var cur any = d.raw
		for _, tok := range strings.Split(ptr, "/")[1:] {
			tok = unescapeToken.Replace(tok)
			switch c := cur.(type) {
			case map[string]any:
				cur = c[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(c) {
					return nil, ptr
				}
				cur = c[i]
			default:
				return nil, ptr
			}
		}
		m, _ := cur.(map[string]any)
		ref, ok := m["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#/") {
			return m, ptr
		}
		ptr = strings.TrimPrefix(ref, "#")
	}
	return nil, ptr
}

// Properties are an object schema's properties, through $ref, allOf, oneOf and anyOf.
func (d *Document) Properties(s Schema) map[string]Schema {
	out := map[string]Schema{}
	if s.Value == nil {
		return out
	}
	at := s.at
	for name := range obj(s.Value["properties"]) {
		out[name] = d.schema(at + "/properties/" + escape(name))
	}
	for _, kw := range []string{"allOf", "oneOf", "anyOf"} {
		for i := range list(s.Value[kw]) {
			for name, p := range d.Properties(d.schema(at + "/" + kw + "/" + strconv.Itoa(i))) {
				out[name] = p
			}
		}
	}
	return out
}

// Validate checks a JSON value against a schema of the document.
func (d *Document) Validate(s Schema, v any) error {
	sch := d.checks[s.Ptr]
	if sch == nil {
		return fmt.Errorf("no compiled schema at %q", s.Ptr)
	}
	return sch.Validate(v)
}

// ValidateJSON checks JSON text against a schema of the document.
func (d *Document) ValidateJSON(s Schema, body []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("the body is not JSON: %w", err)
	}
	return d.Validate(s, v)
}

// Find is the operation of the document a request to path (under the server, "/lead/7")
// reaches: the path with the most fixed segments among those that match, as a router
// prefers "/lead/logo/{id}" to "/lead/{a}/{b}". It is nil, with the path item, when the
// path is documented but not the method; nil and nil when the path is not.
func (d *Document) Find(method, path string) (*Operation, *PathItem) {
	segs := strings.Split(path, "/")
	var best *PathItem
	bestFixed := -1
	for _, p := range d.Paths {
		if len(p.segments) != len(segs) {
			continue
		}
		fixed := 0
		for i, s := range p.segments {
			if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
				if segs[i] == "" {
					fixed = -1
					break
				}
				continue
			}
			if s != segs[i] {
				fixed = -1
				break
			}
			fixed++
		}
		if fixed > bestFixed {
			best, bestFixed = p, fixed
		}
	}
	if best == nil {
		return nil, nil
	}
	for _, op := range best.Operations {
		if op.Method == method {
			return op, best
		}
	}
	return nil, best
}

// CheckAPIResponse reports how an answer to a /v1/api request differs from what the
// document allows for that operation: its status, content type, documented headers and
// body. A path or method the document does not list must be refused, with 404 or 405 and
// the error envelope; answering it any other way is an undocumented operation.
func CheckAPIResponse(req *http.Request, res *http.Response, body []byte) error {
	p := req.URL.Path
	if p != "/v1/api" && !strings.HasPrefix(p, "/v1/api/") {
		return nil
	}
	d, err := Load()
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
	op, item := d.Find(req.Method, strings.TrimPrefix(p, "/v1/api"))
	if op == nil {
		// The document names no 405 answer (no operation gives one), so a 405 is checked as
		// the error envelope whose status is 405 and that has no field errors.
		status, envelope, what := http.StatusNotFound, "Error404", "path"
		if item != nil {
			status, envelope, what = http.StatusMethodNotAllowed, "ErrorEnvelope", "method"
		}
		problem := fmt.Sprintf("answered %d with %q", res.StatusCode, res.Header.Get("Content-Type"))
		if res.StatusCode == status && mediaType(res) == "application/json" {
			var env struct {
				Status int             `json:"status"`
				Errors json.RawMessage `json:"errors"`
			}
			err := d.ValidateJSON(d.Schemas[envelope], body)
			if err == nil && json.Unmarshal(body, &env) == nil && env.Status == status && env.Errors == nil {
				return nil // refused, as it should be
			}
			if err == nil {
				return fmt.Errorf("%s %s: the %d envelope must repeat its status and have no field errors\nbody: %.600s", req.Method, req.URL.Path, status, body)
			}
			problem = err.Error()
		}
		return fmt.Errorf("%s %s is not in the document (its %s is unknown), so it must be refused with %d and the error envelope:\n%s\nbody: %.600s",
			req.Method, req.URL.Path, what, status, problem, body)
	}
	if err := d.checkAnswer(op, res, body); err != nil {
		return fmt.Errorf("%s %s (%s): %w\nbody: %.600s", req.Method, item.Path, op.ID, err, body)
	}
	return nil
}

// checkAnswer checks an answer against what its operation documents for its status.
func (d *Document) checkAnswer(op *Operation, res *http.Response, body []byte) error {
	code := strconv.Itoa(res.StatusCode)
	r := op.Responses[code]
	if r == nil {
		r = op.Responses[code[:1]+"XX"]
	}
	if r == nil {
		r = op.Responses["default"]
	}
	if r == nil {
		return fmt.Errorf("status %s is not documented", code)
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(r.Headers)) {
		h := r.Headers[name]
		v, present := res.Header[name]
		switch {
		case !present && h.Required:
			errs = append(errs, fmt.Errorf("the required header %s is missing", name))
		case present && h.Schema.Ptr != "":
			if err := d.Validate(h.Schema, headerValue(h.Schema, v[0])); err != nil {
				errs = append(errs, fmt.Errorf("header %s: %w", name, err))
			}
		}
	}
	mt := mediaType(res)
	switch {
	case len(r.Content) == 0:
		if len(body) > 0 {
			errs = append(errs, fmt.Errorf("a body (%s) where the document has none", mt))
		}
	default:
		s, ok := r.Content[mt]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("content type %q is not documented for %s (only %s)", mt, code, strings.Join(slices.Sorted(maps.Keys(r.Content)), ", ")))
		case s.Ptr != "" && (mt == "application/json" || strings.HasSuffix(mt, "+json")):
			if err := d.ValidateJSON(s, body); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// headerValue is a header's text as the value its schema describes: a header is text on
// the wire ("simple" style), so a number or a boolean is read from it.
func headerValue(s Schema, text string) any {
	for _, t := range s.Types() {
		if t == "integer" || t == "number" || t == "boolean" {
			if v, err := jsonschema.UnmarshalJSON(strings.NewReader(text)); err == nil {
				return v
			}
		}
	}
	return text
}

func mediaType(res *http.Response) string {
	mt, _, err := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if err != nil {
		return res.Header.Get("Content-Type")
	}
	return mt
}

// APIOperations lists the document's operations as "METHOD /v1/api/path".
func APIOperations(t *testing.T, d *Document) []string {
	t.Helper()
	if len(d.Servers) != 1 || d.Servers[0] != "/v1/api" {
		t.Fatalf("servers: want the one relative server /v1/api")
	}
	var ops []string
	for _, p := range d.Paths {
		for _, op := range p.Operations {
			ops = append(ops, op.Method+" /v1/api"+p.Path)
		}
	}
	slices.Sort(ops)
	return ops
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

// escape is a JSON pointer token (RFC 6901).
func escape(tok string) string {
	return escapeToken.Replace(tok)
}

// The JSON pointer token escapes of RFC 6901, each way.
var (
	escapeToken   = strings.NewReplacer("~", "~0", "/", "~1")
	unescapeToken = strings.NewReplacer("~1", "/", "~0", "~")
)
