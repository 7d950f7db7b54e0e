package app_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
)

func TestPermissionRefusal(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		nobody := e.User(f, "nobody@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll, Export: auth.ScopeAll}})

		b := e.Browser(nobody.Email)
		r := b.Get("/home")
		if r.Status != http.StatusForbidden || !strings.Contains(r.Body, "You do not have permission to do this.") ||
			!strings.Contains(r.Body, `data-testid="error-page"`) {
			t.Fatalf("home without dashboard permission: %d %s", r.Status, r.Body)
		}
		api := e.APIClient(nobody.Email)
		env := api.Get("/v1/api/get-allow-feature").Env()
		feats := env.Data["features"].([]any)
		if len(feats) != 1 || feats[0] != "leads" {
			t.Fatalf("allowed features: %v", feats)
		}
		admin := e.APIClient(f.Admin.Email)
		env = admin.Get("/v1/api/get-allow-feature").Env()
		if len(env.Data["features"].([]any)) != len(auth.Features) {
			t.Fatalf("administrator features: %v", env.Data["features"])
		}
	})
}

func TestTenantIsolationOnShellRoutes(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		a := e.Tenant("Alpha")
		b := e.Tenant("Beta")
		for _, email := range []string{"a1@alpha.test", "a2@alpha.test", "a3@alpha.test"} {
			e.User(a, email, map[auth.Feature]auth.Grant{auth.FeatureDashboard: {View: auth.ScopeAll, Export:

			// Beta's admin sees Beta's one user and Beta's roles, never Alpha's.
			auth.ScopeAll}})
		}

		r := e.Browser(b.Admin.Email).Get("/home")
		if !strings.Contains(r.Body, `data-testid="count-users"><span class="stat-value">1</span>`) ||
			strings.Contains(r.Body, "Alpha") {
			t.Fatalf("beta home shows alpha data: %s", r.Body)
		}
		r = e.Browser(a.Admin.Email).Get("/home")
		if !strings.Contains(r.Body, `data-testid="count-users"><span class="stat-value">4</span>`) {
			t.Fatalf("alpha home: %s", r.Body)
		}
		me := e.APIClient(b.Admin.Email).Get("/v1/api/auth/me").Env()
		if me.Data["tenant"].(map[string]any)["name"] != "Beta" {
			t.Fatalf("me: %v", me.Data)
		}
		// A tenant id in the request changes nothing: the tenant comes from the caller.
		r = e.APIClient(b.Admin.Email).Get("/v1/api/auth/me?tenant_id=1", "X-Tenant-ID", "1")
		if r.Env().Data["tenant"].(map[string]any)["name"] != "Beta" {
			t.Fatal("tenant taken from the request")
		}
		// Beta cannot change Alpha's user's language through the store either.
		if err := e.DB.System(b.Tenant.ID, b.Admin.ID).SetUserLocale(context.Background(), a.Admin.ID, "de_DE"); err != store.ErrNotFound {
			t.Fatalf("cross-tenant update: %v", err)
		}
	})
}

func TestJSONErrors(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		c := e.Client()
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
			r := c.Do("POST", "/v1/api/auth/login", tc.body)
			if r.Status != tc.status || r.Env().Message != tc.msg {
				t.Errorf("body %.30q: %d %s", tc.body, r.Status, r.Body)
			}
		}
		r := c.Get("/v1/api/nope")
		if r.Status != 404 || r.Env().Message != "Page not found" {
			t.Errorf("unknown API path: %d %s", r.Status, r.Body)
		}
		r = c.Do("DELETE", "/v1/api/auth/login", nil)
		if r.Status != 405 {
			t.Errorf("wrong verb: %d %s", r.Status, r.Body)
		}
	})
}

func TestPagesAndPlumbing(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.Browser(f.Admin.Email)

		r := c.Get("/nope")
		if r.Status != 404 || !strings.Contains(r.Body, `data-testid="error-page"`) || !strings.Contains(r.Body, `data-testid="tenant-name"`) {
			t.Fatalf("404 page in the layout: %d", r.Status)
		}
		r = c.Get("/home", "HX-Request", "true", "HX-Target", "main")
		if r.Status != 200 || strings.Contains(r.Body, "<html") || !strings.Contains(r.Body, "<title>") {
			t.Fatalf("htmx fragment: %s", r.Body)
		}
		h := r.Header
		if !strings.Contains(h.Get("Content-Security-Policy"), "script-src 'self'") ||
			!strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") ||
			h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") == "" {
			t.Fatalf("security headers: %v", h)
		}
		r = c.Get("/home", "Accept-Encoding", "gzip")
		if r.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("home not compressed: %v", r.Header)
		}
		if r := c.Get("/healthz"); r.Status != 200 {
			t.Fatalf("healthz: %d", r.Status)
		}
		if r := c.Get("/readyz"); r.Status != 200 {
			t.Fatalf("readyz: %d", r.Status)
		}
		r = c.Get("/metrics")
		if r.Status != 200 || !strings.Contains(r.Body, `crm_http_requests_total{method="GET",route="/home",status="200"}`) {
			t.Fatalf("metrics: %s", r.Body)
		}
	})
}

func TestLanguageChoice(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme") // tenant default en_US in fixtures
		anon := e.Client()
		if r := anon.Get("/login", "Accept-Language", "de-DE,de;q=0.9"); !strings.Contains(r.Body, `<html lang="de-DE">`) {
			t.Fatalf("Accept-Language not used before sign-in: %.200s", r.Body)
		}
		if r := anon.Get("/login", "Accept-Language", "ja"); !strings.Contains(r.Body, `<html lang="en-US">`) {
			t.Fatal("fallback is not en_US")
		}
		c := e.Browser(f.Admin.Email)
		// The tenant default wins over Accept-Language once signed in.
		if r := c.Get("/home", "Accept-Language", "de"); !strings.Contains(r.Body, `<html lang="en-US">`) {
			t.Fatal("tenant default not applied")
		}
		r := c.Form("/language", url.Values{"locale": {"it_IT"}, "back": {"/home"}})
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/home" {
			t.Fatalf("switch: %d %q", r.Status, r.Header.Get("Location"))
		}
		if r := c.Get("/home"); !strings.Contains(r.Body, `<html lang="it-IT">`) || !strings.Contains(r.Body, `<option value="it_IT" selected>`) {
			t.Fatal("user's choice not applied")
		}
		u, _ := e.DB.System(f.Tenant.ID, 0).User(context.Background(), f.Admin.ID)
		if u.Locale != "it_IT" {
			t.Fatalf("choice not saved on the user: %q", u.Locale)
		}
		if r := c.Form("/language", url.Values{"locale": {"xx_XX"}}); r.Status != 400 {
			t.Fatalf("unsupported locale: %d", r.Status)
		}
	})
}

func TestDemoTenantDefaultsToFrench(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		if _, _, err := e.DB.SeedDemo(context.Background()); err != nil {
			t.Fatal(err)
		}
		c := e.Client()
		c.Form("/login", url.Values{"email": {store.DemoAdminEmail}, "password": {store.DemoAdminPassword}})
		if r := c.Get("/home", "Accept-Language", "en-US"); !strings.Contains(r.Body, `<html lang="fr-FR">`) {
			t.Fatalf("demo tenant default locale: %.120s", r.Body)
		}
	})
}
