package app_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"crm/app"
	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
	"crm/app/store/storetest"
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
		// A JSON answer is never a document: a policy of nothing, and no page-only headers.
		for _, r := range []*apptest.Response{e.APIClient(f.Admin.Email).Get("/v1/api/lead/list-customer-lead?page=1"),
			e.Client().Get("/v1/api/lead/list-customer-lead?page=1")} {
			h := r.Header
			if !strings.HasPrefix(h.Get("Content-Type"), "application/json") ||
				h.Get("Content-Security-Policy") != "default-src 'none'; frame-ancestors 'none'" ||
				h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "DENY" ||
				h.Get("Referrer-Policy") != "" || h.Get("Permissions-Policy") != "" {
				t.Fatalf("JSON answer %d, security headers: %v", r.Status, h)
			}
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
		// Metrics are not public: without METRICS_TOKEN they are not served here at all.
		if r := c.Get("/metrics"); r.Status != http.StatusNotFound || strings.Contains(r.Body, "crm_http_requests_total") {
			t.Fatalf("metrics without a token: %d %.200s", r.Status, r.Body)
		}
	})
}

// With METRICS_TOKEN set, /metrics answers only a caller bearing it.
func TestMetricsNeedTheToken(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		const token = "s3cret-scraper-token"
		e := apptest.NewServer(t, db, func(d *app.Deps) { d.Config.MetricsToken = token })
		f := e.Tenant("Acme")
		c := e.Browser(f.Admin.Email)
		c.Get("/home")
		for _, auth := range []string{"", "Bearer wrong", "Bearer " + token + "x", token} {
			r := e.Client().Get("/metrics", "Authorization", auth)
			if r.Status != http.StatusUnauthorized || strings.Contains(r.Body, "crm_http") {
				t.Errorf("metrics with Authorization %q: %d", auth, r.Status)
			}
		}
		// A signed-in administrator is no scraper either.
		if r := c.Get("/metrics"); r.Status != http.StatusUnauthorized {
			t.Errorf("metrics for a signed-in admin: %d", r.Status)
		}
		r := e.Client().Get("/metrics", "Authorization", "Bearer "+token)
		if r.Status != 200 || !strings.Contains(r.Body, `crm_http_requests_total{method="GET",route="/home",status="200"}`) {
			t.Fatalf("metrics with the token: %d %.300s", r.Status, r.Body)
		}
	})
}

// An htmx request that fails names its message in X-Error-Message (percent-encoded), the
// text the admin script's error toast shows; the page itself is not swapped by htmx.
func TestHtmxErrorsNameTheirMessage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		e.User(f, "leads@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll, Export: auth.ScopeAll},
			auth.FeatureDashboard: {View: auth.ScopeAll, Export: auth.ScopeAll}})
		admin, leads := e.Browser(f.Admin.Email), e.Browser("leads@acme.test")
		hx := []string{"HX-Request", "true", "HX-Target", "main"}
		for _, c := range []struct {
			name   string
			r      *apptest.Response
			status int
			msg    string
		}{
			{"forbidden", leads.Get("/settings", hx...), 403, "You do not have permission to do this."},
			{"not found", admin.Get("/leads/999999", hx...), 404, "Page not found"},
			{"reversed range", admin.Get("/home?period=custom&from=2001-01-02&to=2001-01-01",
				"HX-Request", "true", "HX-Target", "dashboard-results"), 422, "Please correct the highlighted fields."},
		} {
			got, err := url.PathUnescape(c.r.Header.Get("X-Error-Message"))
			if c.r.Status != c.status || err != nil || got != c.msg {
				t.Errorf("%s: %d %q, want %d %q", c.name, c.r.Status, c.r.Header.Get("X-Error-Message"), c.status, c.msg)
			}
		}
		// Non-ASCII messages survive the header.
		admin.Form("/language", url.Values{"locale": {"fr_FR"}})
		r := admin.Get("/leads/999999", hx...)
		if got, _ := url.PathUnescape(r.Header.Get("X-Error-Message")); got == "" || got == "Page not found" {
			t.Errorf("French 404 message: %q", got)
		}
		// Not for a plain page or an API call: they show the error themselves.
		if r := admin.Get("/leads/999999"); r.Header.Get("X-Error-Message") != "" {
			t.Error("a full page also got X-Error-Message")
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
