package dashboard_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
	"crm/app/store/storetest"
)

// dashLeads adds leads to a tenant through the store, each created at a known instant, and
// returns the tenant's master ids by name.
type dashLead struct {
	at                    string // "2006-01-02 15:04:05", UTC
	stage, status, source string
	by                    *store.User // creator (and owner); the admin when nil
	owner                 *store.User // owner, when not the creator
}

func masterIDs(t *testing.T, e *apptest.Env, f apptest.Tenant) map[string]int64 {
	t.Helper()
	ids := map[string]int64{}
	for _, k := range []store.MasterKind{store.KindStage, store.KindStatus, store.KindSource} {
		ms, err := e.DB.System(f.Tenant.ID, f.Admin.ID).Masters(context.Background(), k)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			ids[m.Name] = m.ID
		}
	}
	return ids
}

func addDashLeads(t *testing.T, e *apptest.Env, f apptest.Tenant, leads []dashLead) {
	t.Helper()
	ids := masterIDs(t, e, f)
	for i, l := range leads {
		at, err := time.Parse("2006-01-02 15:04:05", l.at)
		if err != nil {
			t.Fatal(err)
		}
		by := f.Admin
		if l.by != nil {
			by = l.by
		}
		in := store.LeadInput{Contact: store.Contact{CustomerName: fmt.Sprintf("Lead %d", i), CompanyEmail: fmt.Sprintf("lead%d@%d.example.test", i, f.Tenant.ID)},
			CreatedAt: &at}
		for _, p := range []struct {
			dst  **int64
			name string
		}{{&in.LeadStageID, l.stage}, {&in.LeadStatusID, l.status}, {&in.LeadSourceID, l.source}} {
			id := ids[p.name]
			*p.dst = &id
		}
		if l.owner != nil {
			in.OwnerID = &l.owner.ID
		}
		if _, _, err := e.DB.System(f.Tenant.ID, by.ID).CreateLead(context.Background(), in, "", ""); err != nil {
			t.Fatal(err)
		}
	}
}

// dashFixture: tenant Acme with a sales user limited to their own leads, the leads below,
// and tenant Globex with leads on the same days that must never count for Acme.
//
// In March 2025, Acme has 6 leads: stages Leads 1, Deals 1, Won 2, Lost 2; statuses New
// lead 3, Attempt to contact 1, Converted 2; sources Website 3, Referral 2, Campaign 1; by
// day 1 March: 2, 10: 1, 15: 1, 20: 1, 31: 1. The sales user owns or created 3 of them
// (Won 2, Lost 1).
func dashFixture(t *testing.T, e *apptest.Env) (acme, globex apptest.Tenant, sales *store.User) {
	t.Helper()
	acme, globex = e.Tenant("Acme"), e.Tenant("Globex")
	sales = e.User(acme, "sales@acme.test", map[auth.Feature]auth.Grant{
		auth.FeatureDashboard: {View: auth.ScopeOwn, Export: auth.ScopeOwn},
		auth.FeatureLeads:     {View: auth.ScopeOwn, Create: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn},
	})
	addDashLeads(t, e, acme, []dashLead{
		{at: "2025-02-28 23:59:59", stage: "Leads", status: "New lead", source: "Website"}, // out
		{at: "2025-03-01 00:00:00", stage: "Leads", status: "New lead", source: "Website"},
		{at: "2025-03-01 08:30:00", stage: "Deals", status: "Attempt to contact", source: "Referral"},
		{at: "2025-03-10 09:00:00", stage: "Won", status: "Converted", source: "Referral", owner: sales},
		{at: "2025-03-15 09:00:00", stage: "Won", status: "Converted", source: "Campaign", by: sales},
		{at: "2025-03-20 09:00:00", stage: "Lost", status: "New lead", source: "Website", by: sales},
		{at: "2025-03-31 23:59:59", stage: "Lost", status: "New lead", source: "Website"},
		{at: "2025-04-01 00:00:00", stage: "Won", status: "Converted", source: "Website"}, // out
	})
	addDashLeads(t, e, globex, []dashLead{
		{at: "2025-03-01 10:00:00", stage: "Won", status: "Converted", source: "Website"},
		{at: "2025-03-10 10:00:00", stage: "Won", status: "Converted", source: "Website"},
	})
	return acme, globex, sales
}

const march2025 = "from=2025-03-01&to=2025-03-31"

// slices reads a breakdown of the JSON answer as name → count, in order.
func breakdown(t *testing.T, v any) (names []string, counts map[string]float64) {
	t.Helper()
	counts = map[string]float64{}
	for _, x := range v.([]any) {
		m := x.(map[string]any)
		names = append(names, m["name"].(string))
		counts[m["name"].(string)] = m["count"].(float64)
	}
	return names, counts
}

func TestDashboardLeadAPI(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme, globex, sales := dashFixture(t, e)
		admin := e.APIClient(acme.Admin.Email)

		r := admin.Get("/v1/api/lead/dashboard/lead?" + march2025)
		if r.Status != 200 {
			t.Fatalf("lead dashboard: %d %s", r.Status, r.Body)
		}
		d := r.Env().Data
		period := d["period"].(map[string]any)
		if period["from"] != "2025-03-01" || period["to"] != "2025-03-31" || period["preset"] != "custom" || period["days"] != 31.0 {
			t.Fatalf("period: %v", period)
		}
		if d["total"] != 6.0 || d["won"] != 2.0 || d["lost"] != 2.0 || d["open"] != 2.0 || d["conversion_rate"] != 50.0 {
			t.Fatalf("figures: %s", r.Body)
		}
		if _, ok := d["series"]; ok {
			t.Fatalf("series in dashboard/lead: %s", r.Body)
		}
		names, counts := breakdown(t, d["by_stage"])
		if !slices.Equal(names, []string{"Leads", "Deals", "Won", "Lost"}) ||
			counts["Leads"] != 1 || counts["Deals"] != 1 || counts["Won"] != 2 || counts["Lost"] != 2 {
			t.Fatalf("funnel: %v %v", names, counts)
		}
		if _, c := breakdown(t, d["by_status"]); c["New lead"] != 3 || c["Attempt to contact"] != 1 || c["Converted"] != 2 {
			t.Fatalf("by status: %v", c)
		}
		if _, c := breakdown(t, d["by_source"]); c["Website"] != 3 || c["Referral"] != 2 || c["Campaign"] != 1 {
			t.Fatalf("by source: %v", c)
		}

		// Over time: one point per day, the boundary instants on their own days.
		r = admin.Get("/v1/api/lead/dashboard/lead-overview?" + march2025)
		o := r.Env().Data
		series := o["series"].([]any)
		if r.Status != 200 || o["interval"] != "day" || o["total"] != 6.0 || len(series) != 31 {
			t.Fatalf("overview: %d %s", r.Status, r.Body)
		}
		want := map[int]float64{0: 2, 9: 1, 14: 1, 19: 1, 30: 1}
		for i, p := range series {
			p := p.(map[string]any)
			if p["count"] != want[i] || p["start"] != fmt.Sprintf("2025-03-%02d", i+1) || p["end"] != p["start"] {
				t.Fatalf("day %d: %v", i+1, p)
			}
		}
		// Wider periods step by week and by month.
		o = admin.Get("/v1/api/lead/dashboard/lead-overview?from=2025-02-01&to=2025-04-30").Env().Data
		if o["interval"] != "week" || o["total"] != 8.0 {
			t.Fatalf("weeks: %v", o)
		}
		o = admin.Get("/v1/api/lead/dashboard/lead-overview?from=2025-01-01&to=2025-12-31").Env().Data
		months := o["series"].([]any)
		if o["interval"] != "month" || len(months) != 12 || months[1].(map[string]any)["count"] != 1.0 ||
			months[2].(map[string]any)["count"] != 6.0 || months[3].(map[string]any)["count"] != 1.0 {
			t.Fatalf("months: %v", o)
		}

		// The sales user's role limits the dashboard to their own leads.
		own := e.APIClient(sales.Email).Get("/v1/api/lead/dashboard/lead?" + march2025).Env().Data
		if own["total"] != 3.0 || own["won"] != 2.0 || own["lost"] != 1.0 || own["conversion_rate"] != 66.7 {
			t.Fatalf("own figures: %v", own)
		}
		// Globex sees its two leads only.
		g := e.APIClient(globex.Admin.Email).Get("/v1/api/lead/dashboard/lead?" + march2025).Env().Data
		if g["total"] != 2.0 || g["won"] != 2.0 || g["conversion_rate"] != 100.0 {
			t.Fatalf("globex figures: %v", g)
		}
		// Presets answer too; the period is reported as resolved.
		for _, preset := range store.PeriodPresets[:5] {
			r := admin.Get("/v1/api/lead/dashboard/lead?period=" + preset)
			if r.Status != 200 || r.Env().Data["period"].(map[string]any)["preset"] != preset {
				t.Fatalf("preset %s: %d %s", preset, r.Status, r.Body)
			}
		}
		if all := admin.Get("/v1/api/lead/dashboard/lead?period=all").Env().Data; all["total"] != 8.0 ||
			all["period"].(map[string]any)["from"] != "2025-02-28" {
			t.Fatalf("all time: %v", all)
		}
	})
}

func TestDashboardPeriodErrors(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		for _, tc := range []struct {
			query string
			field string
			key   string
		}{
			{"period=decade", "period", "invalid"},
			{"from=2025-03-31&to=2025-03-01", "to", "invalid"},
			{"from=2025-02-30&to=2025-03-01", "from", "invalidDate"},
			{"period=custom&to=2025-03-01", "from", "required"},
			{"from=2000-01-01&to=2025-01-01", "to", "invalid"},
		} {
			for _, path := range []string{"/v1/api/lead/dashboard/lead", "/v1/api/lead/dashboard/lead-overview", "/v1/api/client/dashboard/client"} {
				r := c.Get(path + "?" + tc.query)
				if env := r.Env(); r.Status != 422 || env.Errors[tc.field] != tc.key {
					t.Errorf("%s?%s: %d %s", path, tc.query, r.Status, r.Body)
				}
			}
		}
		// The page shows the refused period in the form and the summary.
		b := e.Browser(f.Admin.Email)
		r := b.Get("/home?from=2025-03-31&to=2025-03-01")
		if r.Status != 422 || !strings.Contains(r.Body, `data-testid="error-summary"`) || !strings.Contains(r.Body, `href="#dash-to"`) ||
			!strings.Contains(r.Body, `data-testid="count-users"`) {
			t.Fatalf("refused period page: %d %s", r.Status, r.Body)
		}
		// htmx gets the summary in the results region, with 422 (the admin script swaps a 422
		// and shows its message, X-Error-Message, in a toast).
		r = b.Get("/home?from=2025-03-31&to=2025-03-01", "HX-Request", "true", "HX-Target", "dashboard-results")
		if r.Status != 422 || r.Header.Get("X-Error-Message") == "" || !strings.Contains(r.Body, `data-testid="dash-error"`) || strings.Contains(r.Body, "<html") {
			t.Fatalf("refused period fragment: %d %s", r.Status, r.Body)
		}
	})
}

func TestDashboardClientAPI(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme, globex := e.Tenant("Acme"), e.Tenant("Globex")
		admin := e.APIClient(acme.Admin.Email)
		own := e.User(acme, "own@acme.test", map[auth.Feature]auth.Grant{
			auth.FeatureDashboard: {View: auth.ScopeAll, Export: auth.ScopeAll},
			auth.FeatureClients:   {View: auth.ScopeOwn, Create: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn}})
		ownClient := e.APIClient(own.Email)
		ids := map[string]float64{}
		for _, c := range []struct {
			by   *apptest.Client
			name string
		}{{admin, "c1"}, {admin, "c2"}, {ownClient, "c3"}, {admin, "c4"}} {
			r := c.by.Do("POST", "/v1/api/client/create-customer-client", map[string]any{"customer_name": c.name, "company_email": c.name + "@x.test"})
			if r.Status != 201 {
				t.Fatalf("create client: %d %s", r.Status, r.Body)
			}
			ids[c.name] = r.Env().Data["id"].(float64)
		}
		e.APIClient(globex.Admin.Email).Do("POST", "/v1/api/client/create-customer-client", map[string]any{"customer_name": "g", "company_email": "g@x.test"})
		// Back-date them: c1 on 31 January, c2 and c3 on 1 February, c4 stays today.
		setCreated(t, e, acme, "clients", int64(ids["c1"]), "2025-01-31 23:59:59")
		setCreated(t, e, acme, "clients", int64(ids["c2"]), "2025-02-01 00:00:00")
		setCreated(t, e, acme, "clients", int64(ids["c3"]), "2025-02-01 12:00:00")

		r := admin.Get("/v1/api/client/dashboard/client?from=2025-02-01&to=2025-02-28")
		d := r.Env().Data
		series := d["series"].([]any)
		if r.Status != 200 || d["total"] != 2.0 || d["interval"] != "day" || len(series) != 28 || series[0].(map[string]any)["count"] != 2.0 {
			t.Fatalf("clients in February: %d %s", r.Status, r.Body)
		}
		if d := ownClient.Get("/v1/api/client/dashboard/client?from=2025-01-01&to=2025-02-28").Env().Data; d["total"] != 1.0 {
			t.Fatalf("own clients: %v", d)
		}
		if d := admin.Get("/v1/api/client/dashboard/client?period=7d").Env().Data; d["total"] != 1.0 {
			t.Fatalf("clients this week: %v", d)
		}
		if d := admin.Get("/v1/api/client/dashboard/client?period=all").Env().Data; d["total"] != 4.0 || d["interval"] != "month" {
			t.Fatalf("clients of all time: %v", d)
		}
		// That user has no view on leads: the lead dashboards are refused, and the home
		// page shows the clients part only.
		if r := ownClient.Get("/v1/api/lead/dashboard/lead"); r.Status != 403 {
			t.Fatalf("lead dashboard without leads: %d", r.Status)
		}
		page := e.Browser(own.Email).Get("/home?period=all")
		if page.Status != 200 || strings.Contains(page.Body, `data-testid="chart-stage"`) ||
			!strings.Contains(page.Body, `data-testid="chart-clients-time"`) || dashFigure(t, page.Body, "dash-clients") != "1" {
			t.Fatalf("clients-only home: %d %s", page.Status, page.Body)
		}
	})
}

// setCreated moves a row's creation instant, as an import of old data would.
func setCreated(t *testing.T, e *apptest.Env, f apptest.Tenant, table string, id int64, at string) {
	t.Helper()
	ts, err := time.Parse("2006-01-02 15:04:05", at)
	if err != nil {
		t.Fatal(err)
	}
	err = storetest.Owner(t, e.DB).RunInTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewUpdate().Table(table).Set("created_at = ?", ts).Where("tenant_id = ? AND id = ?", f.Tenant.ID, id).Exec(ctx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDashboardPermissions(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		leadsOnly := e.User(f, "leads@acme.test", map[auth.Feature]auth.Grant{
			auth.FeatureLeads: {View: auth.ScopeAll, Export: auth.ScopeAll}, auth.FeatureClients: {View: auth.ScopeAll, Export: auth.ScopeAll}})
		c := e.APIClient(leadsOnly.Email)
		for _, path := range []string{"/v1/api/lead/dashboard/lead", "/v1/api/lead/dashboard/lead-overview", "/v1/api/client/dashboard/client"} {
			if r := c.Get(path); r.Status != http.StatusForbidden || r.Env().Message != "You do not have permission to do this." {
				t.Errorf("%s without dashboard view: %d %s", path, r.Status, r.Body)
			}
			if r := e.Client().Get(path); r.Status != http.StatusUnauthorized {
				t.Errorf("%s signed out: %d", path, r.Status)
			}
		}
		if r := e.Browser(leadsOnly.Email).Get("/home"); r.Status != http.StatusForbidden {
			t.Errorf("home without dashboard view: %d", r.Status)
		}
		// A dashboard-only role sees no lead or client figures (nor the user count: that
		// needs the users view).
		dashOnly := e.User(f, "dash@acme.test", map[auth.Feature]auth.Grant{auth.FeatureDashboard: {View: auth.ScopeAll, Export: auth.ScopeAll}})
		r := e.Browser(dashOnly.Email).Get("/home")
		if r.Status != 200 || strings.Contains(r.Body, `data-testid="count-users"`) ||
			strings.Contains(r.Body, `data-testid="dash-total"`) || strings.Contains(r.Body, `data-testid="dash-clients"`) {
			t.Fatalf("dashboard-only home: %d %s", r.Status, r.Body)
		}
		dc := e.APIClient(dashOnly.Email)
		for _, path := range []string{"/v1/api/lead/dashboard/lead", "/v1/api/client/dashboard/client"} {
			if r := dc.Get(path); r.Status != http.StatusForbidden {
				t.Errorf("%s without the entity's view: %d", path, r.Status)
			}
		}
	})
}
