package dashboard_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"crm/app/apptest"
	"crm/app/auth"
)

// dashFigure reads a key figure's value from the home page.
func dashFigure(t *testing.T, body, testID string) string {
	t.Helper()
	m := regexp.MustCompile(`data-testid="` + testID + `"><span class="stat-value">([^<]*)</span>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("figure %s not on the page", testID)
	}
	return m[1]
}

func TestDashboardHomePage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme, _, sales := dashFixture(t, e)
		b := e.Browser(acme.Admin.Email)

		// Without a period: the last 30 days, with the picker on it.
		r := b.Get("/home")
		if r.Status != 200 || !strings.Contains(r.Body, `<option value="30d" selected>`) || !strings.Contains(r.Body, `data-testid="count-users"`) ||
			dashFigure(t, r.Body, "dash-total") != "0" || dashFigure(t, r.Body, "dash-rate") != "–" {
			t.Fatalf("default home: %d %s", r.Status, r.Body)
		}

		r = b.Get("/home?period=custom&" + march2025)
		body := r.Body
		if r.Status != 200 {
			t.Fatalf("home for March: %d %s", r.Status, body)
		}
		for id, want := range map[string]string{"dash-total": "6", "dash-open": "2", "dash-won": "2", "dash-lost": "2", "dash-rate": "50.0%", "dash-clients": "0"} {
			if got := dashFigure(t, body, id); got != want {
				t.Errorf("%s = %q, want %q", id, got, want)
			}
		}
		// Each chart is an SVG image named by its title and description, with its figures in
		// a table for screen readers.
		for _, id := range []string{"chart-stage", "chart-source", "chart-status", "chart-leads-time", "chart-clients-time"} {
			for _, want := range []string{`data-testid="` + id + `"`, `aria-labelledby="` + id + `-t ` + id + `-d"`, `<title id="` + id + `-t">`,
				`<desc id="` + id + `-d">`} {
				if !strings.Contains(body, want) {
					t.Errorf("%s: %s missing", id, want)
				}
			}
		}
		for _, row := range []string{`<tr><th scope="row">Won</th><td>2</td></tr>`, `<tr><th scope="row">Website</th><td>3</td></tr>`,
			`<tr><th scope="row">01/03/2025</th><td>2</td></tr>`, `<tr><th scope="row">31/03/2025</th><td>1</td></tr>`} {
			if !strings.Contains(body, row) {
				t.Errorf("table row %s missing", row)
			}
		}
		if !strings.Contains(body, `Showing 01/03/2025 to 31/03/2025.`) || !strings.Contains(body, `<option value="custom" selected>`) ||
			!strings.Contains(body, `value="2025-03-01"`) || strings.Contains(body, "<script>") || strings.Contains(body, "style=") {
			t.Fatalf("period, picker or inline code: %s", body)
		}

		// htmx swaps the results only, and refreshes the dates of the picker out of band.
		r = b.Get("/home?period=90d", "HX-Request", "true", "HX-Target", "dashboard-results")
		today := time.Now().UTC()
		if r.Status != 200 || strings.Contains(r.Body, "<html") || strings.Contains(r.Body, `data-testid="count-users"`) ||
			!strings.Contains(r.Body, `id="dash-dates" class="dash-dates" hx-swap-oob="true"`) ||
			!strings.Contains(r.Body, `value="`+today.Format("2006-01-02")+`"`) || !strings.Contains(r.Body, "One bar per week") ||
			!strings.Contains(strings.Join(r.Header.Values("Vary"), ","), "HX-Target") {
			t.Fatalf("fragment: %d %v %s", r.Status, r.Header, r.Body)
		}

		// The sales user's figures are their own.
		s := e.Browser(sales.Email).Get("/home?" + march2025)
		if s.Status != 200 || dashFigure(t, s.Body, "dash-total") != "3" || dashFigure(t, s.Body, "dash-rate") != "66.7%" ||
			strings.Contains(s.Body, `data-testid="dash-clients"`) {
			t.Fatalf("own home: %d %s", s.Status, s.Body)
		}
	})
}

// The home page's user and role counts are about the Users and Roles areas: a role that
// may see the dashboard but not those areas does not get them.
func TestHomeCountsNeedUsersOrRolesView(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		dash := auth.Grant{View: auth.ScopeAll, Export: auth.ScopeAll}
		e.User(f, "dash@example.test", map[auth.Feature]auth.Grant{auth.FeatureDashboard: dash})
		e.User(f, "users@example.test", map[auth.Feature]auth.Grant{auth.FeatureDashboard: dash, auth.FeatureUsers: {View: auth.ScopeAll, Export: auth.ScopeAll}})
		e.User(f, "roles@example.test", map[auth.Feature]auth.Grant{auth.FeatureDashboard: dash, auth.FeatureRoles: {View: auth.ScopeAll, Export: auth.ScopeAll}})
		for _, c := range []struct {
			email        string
			users, roles bool
		}{
			{f.Admin.Email, true, true},
			{"dash@example.test", false, false},
			{"users@example.test", true, false},
			{"roles@example.test", false, true},
		} {
			r := e.Browser(c.email).Get("/home")
			if r.Status != 200 {
				t.Fatalf("%s: /home = %d", c.email, r.Status)
			}
			if got := strings.Contains(r.Body, `data-testid="count-users"`); got != c.users {
				t.Errorf("%s: user count shown = %v, want %v", c.email, got, c.users)
			}
			if got := strings.Contains(r.Body, `data-testid="count-roles"`); got != c.roles {
				t.Errorf("%s: role count shown = %v, want %v", c.email, got, c.roles)
			}
		}
		if r := e.Browser("users@example.test").Get("/home"); dashFigure(t, r.Body, "count-users") != "4" {
			t.Errorf("user count = %s, want 4", dashFigure(t, r.Body, "count-users"))
		}
	})
}
