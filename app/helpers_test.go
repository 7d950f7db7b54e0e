package app_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"crm/app"
	"crm/app/assets"
	"crm/app/auth"
	"crm/app/files"
	"crm/app/i18n"
	"crm/app/importer"
	"crm/app/store"
	"crm/app/store/storetest"
	"crm/locales"
	"crm/static"
)

const testPassword = "Secret1!x"

// testEnv is one running server over a fresh database.
type testEnv struct {
	t        *testing.T
	db       *store.DB
	srv      *httptest.Server
	filesDir string
}

// newTestServer starts the real router over HTTP on db.
func newTestServer(t *testing.T, db *store.DB, mods ...func(*app.Deps)) *testEnv {
	t.Helper()
	bundle, err := i18n.Load(locales.FS)
	if err != nil {
		t.Fatal(err)
	}
	as, err := assets.Load(static.FS)
	if err != nil {
		t.Fatalf("%v (run `npx just build-assets`)", err)
	}
	filesDir := t.TempDir()
	fs, err := files.NewLocal(filesDir)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	imports := importer.NewRunner(db, log, 0)
	t.Cleanup(imports.Close)
	deps := app.Deps{Config: app.DefaultConfig(), DB: db, I18n: bundle, Assets: as, Files: fs, Log: log, Imports: imports}
	for _, m := range mods {
		m(&deps)
	}
	srv := httptest.NewServer(app.NewServer(deps))
	t.Cleanup(srv.Close)
	return &testEnv{t: t, db: db, srv: srv, filesDir: filesDir}
}

// eachServer runs fn once per database engine, each with its own server.
func eachServer(t *testing.T, fn func(t *testing.T, e *testEnv)) {
	t.Helper()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		fn(t, newTestServer(t, db))
	})
}

// tenantFixture is a tenant with its administrator.
type tenantFixture struct {
	Tenant *store.Tenant
	Admin  *store.User
}

func (e *testEnv) tenant(name string) tenantFixture {
	e.t.Helper()
	email := strings.ToLower(strings.ReplaceAll(name, " ", "")) + "-admin@example.test"
	tn, u, err := e.db.CreateTenant(context.Background(), store.NewTenant{Name: name, DefaultLocale: "en_US",
		AdminEmail: email, AdminPassword: testPassword})
	if err != nil {
		e.t.Fatal(err)
	}
	return tenantFixture{Tenant: tn, Admin: u}
}

// user adds a user to the tenant with a role made of the given grants.
func (e *testEnv) user(f tenantFixture, email string, grants map[auth.Feature]auth.Grant) *store.User {
	e.t.Helper()
	ctx := context.Background()
	s := e.db.Tenant(f.Tenant.ID, f.Admin.ID)
	roleName := "role-" + email
	if _, err := s.CreateRole(ctx, roleName, grants); err != nil {
		e.t.Fatal(err)
	}
	u, err := s.CreateUser(ctx, store.NewUser{Email: email, Password: testPassword, Role: roleName})
	if err != nil {
		e.t.Fatal(err)
	}
	return u
}

// client is a browser-like or API client of the test server.
type client struct {
	e      *testEnv
	http   *http.Client
	token  string
	header http.Header
}

func (e *testEnv) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{e: e, header: http.Header{}, http: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// apiClient signs in through the JSON API and carries the bearer token.
func (e *testEnv) apiClient(email string) *client {
	e.t.Helper()
	c := e.client()
	r := c.do("POST", "/v1/api/auth/login", map[string]string{"email": email, "password": testPassword})
	if r.status != http.StatusOK {
		e.t.Fatalf("api login %s: %d %s", email, r.status, r.body)
	}
	c.token = r.env().Data["token"].(string)
	return c
}

// browser signs in through the login form and keeps the session cookie.
func (e *testEnv) browser(email string) *client {
	e.t.Helper()
	c := e.client()
	r := c.form("/login", url.Values{"email": {email}, "password": {testPassword}})
	if r.status != http.StatusSeeOther {
		e.t.Fatalf("login %s: %d %s", email, r.status, r.body)
	}
	return c
}

type response struct {
	t      *testing.T
	status int
	header http.Header
	body   string
}

// envelope is the decoded JSON envelope with data as a map.
type envelope struct {
	Status  int               `json:"status"`
	Message string            `json:"message"`
	Data    map[string]any    `json:"data"`
	Errors  map[string]string `json:"errors"`
}

func (r *response) env() envelope {
	r.t.Helper()
	var e envelope
	if err := json.Unmarshal([]byte(r.body), &e); err != nil {
		r.t.Fatalf("not a JSON envelope (%d): %s", r.status, r.body)
	}
	if e.Status != r.status {
		r.t.Fatalf("envelope status %d != HTTP status %d", e.Status, r.status)
	}
	return e
}

// do sends a request; a non-string body is sent as JSON.
func (c *client) do(method, path string, body any, headers ...string) *response {
	c.e.t.Helper()
	var rd io.Reader
	ctype := ""
	switch b := body.(type) {
	case nil:
	case string:
		rd, ctype = strings.NewReader(b), "application/json"
	default:
		buf, _ := json.Marshal(b)
		rd, ctype = bytes.NewReader(buf), "application/json"
	}
	req, err := http.NewRequest(method, c.e.srv.URL+path, rd)
	if err != nil {
		c.e.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for k, v := range c.header {
		req.Header[k] = v
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return c.send(req)
}

// form posts a URL-encoded form like a browser.
func (c *client) form(path string, v url.Values, headers ...string) *response {
	c.e.t.Helper()
	req, err := http.NewRequest("POST", c.e.srv.URL+path, strings.NewReader(v.Encode()))
	if err != nil {
		c.e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return c.send(req)
}

func (c *client) get(path string, headers ...string) *response {
	c.e.t.Helper()
	return c.do("GET", path, nil, headers...)
}

func (c *client) send(req *http.Request) *response {
	c.e.t.Helper()
	res, err := c.http.Do(req)
	if err != nil {
		c.e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	// Every /v1/api answer must be one docs/openapi.yaml allows (checkAPIResponse, in
	// app/openapi_test.go): its status, content type, headers and body.
	if err := checkAPIResponse(req, res, b); err != nil {
		c.e.t.Errorf("%s %s answered %d, which docs/openapi.yaml does not allow:\n%v",
			req.Method, req.URL.RequestURI(), res.StatusCode, err)
	}
	return &response{t: c.e.t, status: res.StatusCode, header: res.Header, body: string(b)}
}

func mustJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("bad JSON: %v: %.300s", err, s)
	}
}

func base64Decode(s string) ([]byte, error) { return base64.StdEncoding.DecodeString(s) }
