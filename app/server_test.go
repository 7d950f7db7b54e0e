package app_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"crm/app/auth"
	"crm/app/store"
)

func TestPermissionRefusal(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		nobody := e.user(f, "nobody@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: true}})

		b := e.browser(nobody.Email)
		r := b.get("/home")
		if r.status != http.StatusForbidden || !strings.Contains(r.body, "You do not have permission to do this.") ||
			!strings.Contains(r.body, `data-testid="error-page"`) {
			t.Fatalf("home without dashboard permission: %d %s", r.status, r.body)
		}
		api := e.apiClient(nobody.Email)
		env := api.get("/v1/api/get-allow-feature").env()
		feats := env.Data["features"].([]any)
		if len(feats) != 1 || feats[0] != "leads" {
			t.Fatalf("allowed features: %v", feats)
		}
		admin := e.apiClient(f.Admin.Email)
		env = admin.get("/v1/api/get-allow-feature").env()
		if len(env.Data["features"].([]any)) != len(auth.Features) {
			t.Fatalf("administrator features: %v", env.Data["features"])
		}
	})
}

func TestTenantIsolationOnShellRoutes(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		a := e.tenant("Alpha")
		b := e.tenant("Beta")
		for _, email := range []string{"a1@alpha.test", "a2@alpha.test", "a3@alpha.test"} {
			e.user(a, email, map[auth.Feature]auth.Grant{auth.FeatureDashboard: {View: true}})
		}
		// Beta's admin sees Beta's one user and Beta's roles, never Alpha's.
		r := e.browser(b.Admin.Email).get("/home")
		if !strings.Contains(r.body, `data-testid="count-users"><span class="stat-value">1</span>`) ||
			strings.Contains(r.body, "Alpha") {
			t.Fatalf("beta home shows alpha data: %s", r.body)
		}
		r = e.browser(a.Admin.Email).get("/home")
		if !strings.Contains(r.body, `data-testid="count-users"><span class="stat-value">4</span>`) {
			t.Fatalf("alpha home: %s", r.body)
		}
		me := e.apiClient(b.Admin.Email).get("/v1/api/auth/me").env()
		if me.Data["tenant"].(map[string]any)["name"] != "Beta" {
			t.Fatalf("me: %v", me.Data)
		}
		// A tenant id in the request changes nothing: the tenant comes from the caller.
		r = e.apiClient(b.Admin.Email).get("/v1/api/auth/me?tenant_id=1", "X-Tenant-ID", "1")
		if r.env().Data["tenant"].(map[string]any)["name"] != "Beta" {
			t.Fatal("tenant taken from the request")
		}
		// Beta cannot change Alpha's user's language through the store either.
		if err := e.db.Tenant(b.Tenant.ID, b.Admin.ID).SetUserLocale(context.Background(), a.Admin.ID, "de_DE"); err != store.ErrNotFound {
			t.Fatalf("cross-tenant update: %v", err)
		}
	})
}

func TestJSONErrors(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		c := e.client()
		cases := []struct {
			body   string
			status int
			msg    string
		}{
			{``, 400, "The request body must not be empty."},
			{`{"email":`, 400, "The request body is not valid JSON (at end)."},
			{`{"email": 5}`, 400, `The field "email" has the wrong type.`},
			{`{"email":"a@b.c","password":"x","tenant":1}`, 400, `The field "tenant" is not allowed.`},
			{`{"email":"a@b.c","password":"x"} {}`, 400, "The request body must hold a single JSON object."},
			{`{"email":"` + strings.Repeat("a", 1<<20) + `"}`, 413, "The request is too large."},
		}
		for _, tc := range cases {
			r := c.do("POST", "/v1/api/auth/login", tc.body)
			if r.status != tc.status || r.env().Message != tc.msg {
				t.Errorf("body %.30q: %d %s", tc.body, r.status, r.body)
			}
		}
		r := c.get("/v1/api/nope")
		if r.status != 404 || r.env().Message != "Page not found" {
			t.Errorf("unknown API path: %d %s", r.status, r.body)
		}
		r = c.do("DELETE", "/v1/api/auth/login", nil)
		if r.status != 405 {
			t.Errorf("wrong verb: %d %s", r.status, r.body)
		}
	})
}

func TestPagesAndPlumbing(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.browser(f.Admin.Email)

		r := c.get("/nope")
		if r.status != 404 || !strings.Contains(r.body, `data-testid="error-page"`) || !strings.Contains(r.body, `data-testid="tenant-name"`) {
			t.Fatalf("404 page in the layout: %d", r.status)
		}
		r = c.get("/home", "HX-Request", "true", "HX-Target", "main")
		if r.status != 200 || strings.Contains(r.body, "<html") || !strings.Contains(r.body, "<title>") {
			t.Fatalf("htmx fragment: %s", r.body)
		}
		h := r.header
		if !strings.Contains(h.Get("Content-Security-Policy"), "script-src 'self'") ||
			!strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") ||
			h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") == "" {
			t.Fatalf("security headers: %v", h)
		}
		r = c.get("/home", "Accept-Encoding", "gzip")
		if r.header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("home not compressed: %v", r.header)
		}
		if r := c.get("/healthz"); r.status != 200 {
			t.Fatalf("healthz: %d", r.status)
		}
		if r := c.get("/readyz"); r.status != 200 {
			t.Fatalf("readyz: %d", r.status)
		}
		r = c.get("/metrics")
		if r.status != 200 || !strings.Contains(r.body, `crm_http_requests_total{method="GET",route="/home",status="200"}`) {
			t.Fatalf("metrics: %s", r.body)
		}
	})
}

func TestLanguageChoice(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme") // tenant default en_US in fixtures
		anon := e.client()
		if r := anon.get("/login", "Accept-Language", "de-DE,de;q=0.9"); !strings.Contains(r.body, `<html lang="de-DE">`) {
			t.Fatalf("Accept-Language not used before sign-in: %.200s", r.body)
		}
		if r := anon.get("/login", "Accept-Language", "ja"); !strings.Contains(r.body, `<html lang="en-US">`) {
			t.Fatal("fallback is not en_US")
		}
		c := e.browser(f.Admin.Email)
		// The tenant default wins over Accept-Language once signed in.
		if r := c.get("/home", "Accept-Language", "de"); !strings.Contains(r.body, `<html lang="en-US">`) {
			t.Fatal("tenant default not applied")
		}
		r := c.form("/language", url.Values{"locale": {"it_IT"}, "back": {"/home"}})
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/home" {
			t.Fatalf("switch: %d %q", r.status, r.header.Get("Location"))
		}
		if r := c.get("/home"); !strings.Contains(r.body, `<html lang="it-IT">`) || !strings.Contains(r.body, `<option value="it_IT" selected>`) {
			t.Fatal("user's choice not applied")
		}
		u, _ := e.db.Tenant(f.Tenant.ID, 0).User(context.Background(), f.Admin.ID)
		if u.Locale != "it_IT" {
			t.Fatalf("choice not saved on the user: %q", u.Locale)
		}
		if r := c.form("/language", url.Values{"locale": {"xx_XX"}}); r.status != 400 {
			t.Fatalf("unsupported locale: %d", r.status)
		}
	})
}

func TestDemoTenantDefaultsToFrench(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		if _, _, err := e.db.SeedDemo(context.Background()); err != nil {
			t.Fatal(err)
		}
		c := e.client()
		c.form("/login", url.Values{"email": {store.DemoAdminEmail}, "password": {store.DemoAdminPassword}})
		if r := c.get("/home", "Accept-Language", "en-US"); !strings.Contains(r.body, `<html lang="fr-FR">`) {
			t.Fatalf("demo tenant default locale: %.120s", r.body)
		}
	})
}
