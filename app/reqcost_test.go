package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"crm/app"
	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/leads"
	"crm/app/store"
	"crm/app/store/storetest"
	"crm/app/web"
)

var serverTimingRE = regexp.MustCompile(`^db;dur=[0-9.]+;desc="([0-9]+) statements(, [0-9]+ tenant switches)?", app;dur=[0-9.]+$`)

// timedStatements is the statement count of a Server-Timing header, or fails the test.
func timedStatements(t *testing.T, r *apptest.Response) int64 {
	t.Helper()
	h := r.Header.Get("Server-Timing")
	m := serverTimingRE.FindStringSubmatch(h)
	if m == nil {
		t.Fatalf("Server-Timing %q (status %d)", h, r.Status)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return n
}

func withServerTiming(d *app.Deps) { d.Config.ServerTiming = true }

// TestServerTimingCountsStatements: with Server-Timing on, a request through the real
// router reports the statements it ran. Lead list page 1 by API token, once the caller is
// cached, runs exactly the statements of the store's list call alone (counted by the same
// hook); its first call also reads the token and the caller. Pages and htmx fragments get
// the header too.
func TestServerTimingCountsStatements(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := apptest.NewServer(t, db, withServerTiming)
		f := e.Tenant("Timing")
		for i := range 5 {
			apptest.AddLead(t, e, f, 0, fmt.Sprintf("Lead %d", i))
		}
		e.User(f, "seller@timing.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll}})
		c := e.APIClient("seller@timing.test")
		const path = "/v1/api/lead/list-customer-lead?page=1&limit=20"

		first := timedStatements(t, c.Get(path).WantStatus(http.StatusOK))

		u, tn, perms, err := db.Caller(context.Background(), f.Tenant.ID, userID(t, e, f, "seller@timing.test"))
		if err != nil {
			t.Fatal(err)
		}
		q, _, errs := leads.Query(url.Values{"page": {"1"}, "limit": {"20"}})
		if errs.Err() != nil {
			t.Fatal(errs.Err())
		}
		q.Page = 1
		ctx, st := store.WithQueryStats(context.Background())
		if _, err := db.Tenant(tn.ID, u.ID).WithPermissions(perms).ListLeads(ctx, q); err != nil {
			t.Fatal(err)
		}
		// Another test's write to a caller table ends every cached caller (the cache is per
		// process), and the parallel tests of this package write them all the time: the
		// fewest statements of the requests until one finds the caller cached, or of 200.
		warm := int64(1 << 30)
		for i := 0; i < 200 && warm > st.Statements(); i++ {
			warm = min(warm, timedStatements(t, c.Get(path).WantStatus(http.StatusOK)))
		}
		if st.Statements() == 0 || warm != st.Statements() {
			t.Errorf("list page 1 through the router: %d statements, the store's list call alone: %d", warm, st.Statements())
		}
		if first < warm+2 { // the token and the caller, read on first use
			t.Errorf("first request %d statements, later ones %d: the token and the caller are not read first", first, warm)
		}

		// Pages and htmx fragments carry it too, and so do refusals.
		b := e.Browser(f.Admin.Email)
		timedStatements(t, b.Get("/leads").WantStatus(http.StatusOK))
		timedStatements(t, b.Get("/leads", "HX-Request", "true").WantStatus(http.StatusOK))
		timedStatements(t, e.Client().Get("/v1/api/lead/list-customer-lead").WantStatus(http.StatusUnauthorized))
	})
}

func userID(t *testing.T, e *apptest.Env, f apptest.Tenant, email string) int64 {
	t.Helper()
	rows, _, err := e.Scope(f).ListUsers(context.Background(), store.UserFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Email == email {
			return r.ID
		}
	}
	t.Fatalf("no user %s", email)
	return 0
}

// TestServerTimingOffByDefault: production answers say nothing of the server's time.
func TestServerTimingOffByDefault(t *testing.T) {
	t.Parallel()
	e := apptest.NewServer(t, storetest.Open(t, store.SQLite))
	f := e.Tenant("Quiet")
	c := e.APIClient(f.Admin.Email)
	for _, r := range []*apptest.Response{c.Get("/v1/api/lead/list-customer-lead?page=1&limit=20"), e.Browser(f.Admin.Email).Get("/leads"), e.Client().Get("/login")} {
		if h := r.Header.Get("Server-Timing"); h != "" {
			t.Errorf("Server-Timing %q without --server-timing", h)
		}
	}
}

// TestSQLMetricsByRoute: /metrics has the statements and SQL seconds per request,
// labelled by route pattern.
func TestSQLMetricsByRoute(t *testing.T) {
	t.Parallel()
	m := web.NewMetrics()
	e := apptest.NewServer(t, storetest.Open(t, store.SQLite), func(d *app.Deps) { d.Metrics = m })
	f := e.Tenant("Metered")
	id := apptest.AddLead(t, e, f, 0, "Metered lead")
	c := e.APIClient(f.Admin.Email)
	c.Get("/v1/api/lead/list-customer-lead?page=1&limit=20").WantStatus(http.StatusOK)
	c.Get(fmt.Sprintf("/v1/api/lead/view-customer-lead/%d", id)).WantStatus(http.StatusOK)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`crm_http_request_sql_statements_count{method="GET",route="/v1/api/lead/list-customer-lead"} 1`,
		`crm_http_request_sql_seconds_count{method="GET",route="/v1/api/lead/list-customer-lead"} 1`,
		`crm_http_request_sql_statements_count{method="GET",route="/v1/api/lead/view-customer-lead/{id}"} 1`,
		`crm_http_request_sql_seconds_bucket{method="GET",route="/v1/api/lead/view-customer-lead/{id}",le="+Inf"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// No request runs no statement: the list's sum is above zero.
	if !regexp.MustCompile(`crm_http_request_sql_statements_sum\{method="GET",route="/v1/api/lead/list-customer-lead"\} [1-9]`).MatchString(body) {
		t.Errorf("list statements sum is zero:\n%s", body)
	}
}

// TestCachedCallerSeesChanges: the cached caller and token never outlive a change made on
// this instance: a deactivated user, a revoked token, a permission taken away, a role
// requiring two-factor take effect on the very next request.
func TestCachedCallerSeesChanges(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		f := e.Tenant("Cached")
		s := e.Scope(f)
		const list = "/v1/api/lead/list-customer-lead?page=1&limit=20"
		grants := map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll}}

		// Deactivated.
		u := e.User(f, "gone@cached.test", grants)
		c := e.APIClient(u.Email)
		c.Get(list).WantStatus(http.StatusOK)
		c.Get(list).WantStatus(http.StatusOK)
		if _, err := s.SetUserActive(ctx, u.ID, false); err != nil {
			t.Fatal(err)
		}
		c.Get(list).WantStatus(http.StatusUnauthorized)

		// Token revoked (the user stays).
		u2 := e.User(f, "revoked@cached.test", grants)
		c2 := e.APIClient(u2.Email)
		c2.Get(list).WantStatus(http.StatusOK)
		if err := e.DB.System(f.Tenant.ID, u2.ID).RevokeToken(ctx, c2.Token); err != nil {
			t.Fatal(err)
		}
		c2.Get(list).WantStatus(http.StatusUnauthorized)

		// A named token deleted through the API.
		c3 := e.APIClient(f.Admin.Email)
		r := c3.Do("POST", "/v1/api/create-api-token", map[string]any{"name": "script", "expires_in_days": 30}).WantStatus(http.StatusCreated)
		named := &apptest.Client{Env: e, HTTP: c3.HTTP, Token: r.Env().Data["token"].(string), Header: http.Header{}}
		named.Get(list).WantStatus(http.StatusOK)
		c3.Do("DELETE", fmt.Sprintf("/v1/api/delete-api-token/%d", int64(r.Env().Data["id"].(float64))), nil).WantStatus(http.StatusOK)
		named.Get(list).WantStatus(http.StatusUnauthorized)

		// Permission taken away, then given back.
		u4 := e.User(f, "narrowed@cached.test", grants)
		c4 := e.APIClient(u4.Email)
		c4.Get(list).WantStatus(http.StatusOK)
		role, err := s.Role(ctx, u4.RoleID)
		if err != nil {
			t.Fatal(err)
		}
		if role, err = s.SetRolePermissions(ctx, role.ID, role.Version, map[auth.Feature]auth.Grant{}); err != nil {
			t.Fatal(err)
		}
		c4.Get(list).WantStatus(http.StatusForbidden)
		if role, err = s.SetRolePermissions(ctx, role.ID, role.Version, grants); err != nil {
			t.Fatal(err)
		}
		c4.Get(list).WantStatus(http.StatusOK)

		// The role now requires two-factor sign-in: the API refuses until the user enrols.
		if _, err := s.SetRoleTwoFactor(ctx, role.ID, true); err != nil {
			t.Fatal(err)
		}
		c4.Get(list).WantStatus(http.StatusForbidden)

		// A change made around the store (the schema owner's connection, on PostgreSQL
		// another handle): seen on the next request too, the generation is the process's.
		u5 := e.User(f, "outside@cached.test", grants)
		c5 := e.APIClient(u5.Email)
		c5.Get(list).WantStatus(http.StatusOK)
		if _, err := storetest.Owner(t, e.DB).System(f.Tenant.ID, 0).Update((*store.User)(nil)).
			Set("active = ?", false).Where("id = ?", u5.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		c5.Get(list).WantStatus(http.StatusUnauthorized)
	})
}
