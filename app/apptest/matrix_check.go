package apptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

// CheckRoutes walks e's router and checks every route against the matrix (see matrix.go):
// anonymous callers refused, another tenant's administrator kept out of tenant A's records,
// a role without the route's permission refused. Routes run as parallel subtests over one
// set of fixtures; tenant A's records are compared before and after.
func CheckRoutes(t *testing.T, e *Env, routes map[string]Route) {
	t.Helper()
	served := ServedRoutes(t, e)
	for _, key := range served {
		if _, ok := routes[key]; !ok {
			t.Errorf("route %s is not in the route matrix: add it to app/apptest/matrix.go, saying who may call it "+
				"(Public, SignedIn, or Permitted with the Perms it checks) and the fixtures of its URL parameters and body", key)
		}
	}
	keys := slices.Sorted(maps.Keys(routes))
	for _, key := range keys {
		if !slices.Contains(served, key) {
			t.Errorf("the route matrix has %s, which the router no longer serves: remove it from app/apptest/matrix.go", key)
		}
		if err := routes[key].valid(key); err != nil {
			t.Errorf("route matrix: %s: %v", key, err)
		}
	}
	if t.Failed() {
		return
	}

	fx := newMatrixFixtures(t, e, routes)
	before := fx.snapshot(t)
	t.Run("routes", func(t *testing.T) {
		for _, key := range keys {
			t.Run(key, func(t *testing.T) {
				t.Parallel()
				fx.check(t, key, routes[key])
			})
		}
	})
	// Nothing sent as tenant B or as a user without the permission changed tenant A's records.
	after := fx.snapshot(t)
	for _, name := range slices.Sorted(maps.Keys(before)) {
		if before[name] != after[name] {
			t.Errorf("tenant A's %s changed during the run:\nbefore: %s\nafter:  %s", name, before[name], after[name])
		}
	}
}

// ServedRoutes lists the router's routes as "METHOD pattern", sorted.
func ServedRoutes(t *testing.T, e *Env) []string {
	t.Helper()
	routes, ok := e.Srv.Config.Handler.(chi.Routes)
	if !ok {
		t.Fatalf("app.NewServer returns %T, not a chi router: walk it some other way", e.Srv.Config.Handler)
	}
	var out []string
	err := chi.Walk(routes, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		out = append(out, method+" "+route)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

var paramRE = regexp.MustCompile(`\{([^}/]+)\}|\*$`)

// valid reports a row that cannot be checked as it stands.
func (r Route) valid(key string) error {
	_, pattern, _ := strings.Cut(key, " ")
	switch {
	case r.Who == 0:
		return fmt.Errorf("say who may call it (Who: Public, SignedIn or Permitted)")
	case r.Who == Permitted && len(r.Perms)+len(r.AnyOf) == 0:
		return fmt.Errorf("Permitted without Perms or AnyOf")
	case r.Who != Permitted && len(r.Perms)+len(r.AnyOf) > 0:
		return fmt.Errorf("Perms on a route that is not Permitted")
	case r.Who == Public && (r.Tenant != NotSent || r.OwnerSees):
		return fmt.Errorf("a public route has no tenant check")
	case len(r.AnyOf) == 1:
		return fmt.Errorf("AnyOf of one permission: put it in Perms")
	}
	for _, m := range paramRE.FindAllStringSubmatch(pattern, -1) {
		name := m[1]
		if m[0] == "*" {
			name = "*"
		}
		if r.param(name) == "" {
			return fmt.Errorf("no fixture for URL parameter %s (ID or Params)", m[0])
		}
	}
	for c := range r.KnownGap {
		if c != Anonymous && c != OtherTenant && c != MissingPerm {
			return fmt.Errorf("KnownGap names no check: %q", c)
		}
	}
	return nil
}

// param is the fixture that fills a URL parameter.
func (r Route) param(name string) string {
	if name == "id" && r.ID != "" {
		return r.ID
	}
	return r.Params[name]
}

// check runs the route's checks, each as a subtest of its own (so a known gap skips
// only its check).
func (fx *matrixFixtures) check(t *testing.T, key string, r Route) {
	method, pattern, _ := strings.Cut(key, " ")
	run := func(name string, c Check, probe func(t *testing.T) []string) {
		t.Run(name, func(t *testing.T) {
			problems := probe(t)
			why, known := r.KnownGap[c]
			switch {
			case known && len(problems) > 0:
				t.Skipf("known gap: %s\n%s", why, strings.Join(problems, "\n"))
			case known:
				t.Errorf("the known gap %q no longer shows: remove KnownGap from %s in app/apptest/matrix.go", why, key)
			case len(problems) > 0:
				t.Error(strings.Join(problems, "\n"))
			}
		})
	}

	// (a) Anonymous: refused, unless public.
	run("anonymous", Anonymous, func(t *testing.T) []string {
		res, uri := fx.send(t, nil, method, pattern, r)
		return anonymousProblems(r, method, uri, res)
	})

	// Tenant A's administrator reaches it: the fixtures are right, so a refusal below is
	// about the caller.
	if method == http.MethodGet && r.Who != Public {
		t.Run("tenant A's administrator", func(t *testing.T) {
			res, uri := fx.send(t, fx.owner, method, pattern, r)
			if res.Status >= 400 {
				t.Errorf("GET %s: %d for tenant A's administrator, want it served (check the row's fixtures): %.300s", uri, res.Status, res.Body)
			}
			if r.OwnerSees && !strings.Contains(res.Body, Marker) {
				t.Errorf("GET %s: tenant A's administrator's answer lacks %q, so tenant B's lacking it proves nothing: %.300s", uri, Marker, res.Body)
			}
		})
	}

	// (b) Tenant B's administrator, with tenant A's ids.
	if r.Tenant != NotSent {
		run("other tenant", OtherTenant, func(t *testing.T) []string {
			res, uri := fx.send(t, fx.other, method, pattern, r)
			return otherTenantProblems(r, method, uri, res)
		})
	}

	// (c) A role with every grant but the route's permission (each in turn), or with none
	// of AnyOf.
	var lacks [][]Perm
	for _, p := range r.Perms {
		lacks = append(lacks, []Perm{p})
	}
	if len(r.AnyOf) > 0 {
		lacks = append(lacks, r.AnyOf)
	}
	for _, ps := range lacks {
		c := fx.lacking[lackKey(ps)]
		run("without "+lackKey(ps), MissingPerm, func(t *testing.T) []string {
			res, uri := fx.send(t, c, method, pattern, r)
			if res.Status != http.StatusForbidden {
				return []string{fmt.Sprintf("%s %s: %d for %s, want 403: %.300s", method, uri, res.Status, c.name, res.Body)}
			}
			return nil
		})
	}
	// A route for any signed-in user serves a role without grants.
	if r.Who == SignedIn && method == http.MethodGet {
		run("without any grant", MissingPerm, func(t *testing.T) []string {
			res, uri := fx.send(t, fx.nobody, method, pattern, r)
			if res.Status >= 400 {
				return []string{fmt.Sprintf("GET %s: %d for %s, want it served (or declare the route's permission): %.300s", uri, res.Status, fx.nobody.name, res.Body)}
			}
			return nil
		})
	}
}

func isAPI(uri string) bool { return uri == "/v1/api" || strings.HasPrefix(uri, "/v1/api/") }

func anonymousProblems(r Route, method, uri string, res *Response) []string {
	where := method + " " + uri
	loginPage := "/login"
	if strings.HasPrefix(uri, "/m/") {
		loginPage = "/m/login"
	}
	loc := res.Header.Get("Location")
	toLogin := res.Status == http.StatusSeeOther && (loc == loginPage || strings.HasPrefix(loc, loginPage+"?"))
	if r.Who == Public {
		if r.Refuses != 0 && res.Status == r.Refuses {
			return nil
		}
		if res.Status == http.StatusUnauthorized || res.Status >= 400 || toLogin {
			return []string{fmt.Sprintf("%s: %d (Location %q) for an anonymous caller, but the route is public: %.300s", where, res.Status, loc, res.Body)}
		}
		return nil
	}
	if isAPI(uri) {
		var env Envelope
		if res.Status != http.StatusUnauthorized || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") ||
			json.Unmarshal([]byte(res.Body), &env) != nil || env.Status != http.StatusUnauthorized || env.Message == "" {
			return []string{fmt.Sprintf("%s: %d %q for an anonymous caller, want 401 with the JSON envelope: %.300s", where, res.Status, res.Header.Get("Content-Type"), res.Body)}
		}
		return nil
	}
	want := loginPage
	if method == http.MethodGet && uri != "/" { // nothing to come back to from /
		want += "?next=" + url.QueryEscape(uri)
	}
	if res.Status != http.StatusSeeOther || loc != want {
		return []string{fmt.Sprintf("%s: %d (Location %q) for an anonymous caller, want 303 to %s: %.300s", where, res.Status, loc, want, res.Body)}
	}
	return nil
}

func otherTenantProblems(r Route, method, uri string, res *Response) []string {
	where := fmt.Sprintf("%s %s: %d for tenant B's administrator", method, uri, res.Status)
	var out []string
	switch r.Tenant {
	case NotFound:
		if res.Status != http.StatusNotFound {
			out = append(out, where+", want 404 for tenant A's record")
		}
	case Isolated:
		if res.Status >= 400 {
			out = append(out, where+", want it served (without tenant A's records)")
		}
	case Refused:
		if res.Status < 400 || res.Status >= 500 || res.Status == http.StatusUnauthorized {
			out = append(out, where+", want a 4xx refusal of tenant A's records named in the body")
		}
	case NoEffect:
		if res.Status >= 500 {
			out = append(out, where)
		}
	}
	if strings.Contains(res.Body, Marker) {
		out = append(out, fmt.Sprintf("%s, whose answer shows tenant A's data (%q)", where, Marker))
	}
	if res.Status < 400 {
		for _, path := range r.Empty {
			if !emptyAt(res.Body, path) {
				out = append(out, fmt.Sprintf("%s, whose %s is not empty (tenant B has none of its own)", where, path))
			}
		}
	}
	if len(out) > 0 {
		out = append(out, fmt.Sprintf("body: %.400s", res.Body))
	}
	return out
}

// emptyAt reports whether the JSON body's value at a dotted path is empty or zero; "csv"
// means a CSV body with no row after its header.
func emptyAt(body, path string) bool {
	if path == "csv" {
		lines := strings.Split(strings.TrimSpace(strings.TrimPrefix(body, "\ufeff")), "\n")
		return len(lines) <= 1
	}
	var v any
	if json.Unmarshal([]byte(body), &v) != nil {
		return false
	}
	for _, part := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		v = m[part]
	}
	switch x := v.(type) {
	case nil:
		return true
	case float64:
		return x == 0
	case string:
		return x == ""
	case bool:
		return !x
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

var fixtureRE = regexp.MustCompile(`\{([A-Za-z][A-Za-z0-9_.]*)\}`)

// fill replaces every {fixture} in s with its value for the caller.
func (fx *matrixFixtures) fill(t *testing.T, c *caller, s string) string {
	t.Helper()
	return fixtureRE.ReplaceAllStringFunc(s, func(m string) string {
		name := m[1 : len(m)-1]
		v, ok := fx.lookup(c, name)
		if !ok {
			t.Fatalf("route matrix: unknown fixture %s", m)
		}
		return v
	})
}

// send calls the route as c (nil: anonymous, a fresh client) and returns the answer and
// the URI called.
func (fx *matrixFixtures) send(t *testing.T, c *caller, method, pattern string, r Route) (*Response, string) {
	t.Helper()
	path := paramRE.ReplaceAllStringFunc(pattern, func(m string) string {
		name := strings.Trim(m, "{}")
		v, ok := fx.lookup(c, r.param(name))
		if !ok {
			t.Fatalf("route matrix: unknown fixture %q for %s", r.param(name), m)
		}
		return v
	})
	uri := path
	if r.Query != "" {
		uri += "?" + fx.fill(t, c, r.Query)
	}
	var body io.Reader
	ctype := ""
	switch {
	case r.JSON != "":
		body, ctype = strings.NewReader(fx.fill(t, c, r.JSON)), "application/json"
	case r.Form != "":
		body, ctype = strings.NewReader(fx.fill(t, c, r.Form)), "application/x-www-form-urlencoded"
	case r.Upload != nil:
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fields, err := url.ParseQuery(fx.fill(t, c, r.Upload.Fields))
		if err != nil {
			t.Fatal(err)
		}
		for k, vs := range fields {
			for _, v := range vs {
				_ = mw.WriteField(k, v)
			}
		}
		fw, err := mw.CreateFormFile(r.Upload.Field, r.Upload.Name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(fw, r.Upload.Data)
		_ = mw.Close()
		body, ctype = &buf, mw.FormDataContentType()
	}
	req, err := http.NewRequest(method, fx.e.Srv.URL+uri, body)
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	var client *Client
	switch {
	case c == nil:
		client = fx.e.Client()
	case isAPI(path):
		client = c.api
	default:
		client = c.page
	}
	return reportingTo(client, t).Send(req), uri
}

// reportingTo is the client with its failures reported to t (a parallel subtest's),
// sharing its cookies and token.
func reportingTo(c *Client, t *testing.T) *Client {
	env := *c.Env
	env.T = t
	cc := *c
	cc.Env = &env
	return &cc
}
