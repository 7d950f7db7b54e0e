package dashboard_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
	"crm/app/store/storetest"
)

// TestDashboardAtScale measures the dashboard at a million leads on PostgreSQL (the figure
// in docs/PERFORMANCE.md). It runs only when asked, being long:
//
//	CRM_DASHBOARD_SCALE=1000000 TEST_DATABASE_URL=postgres://… go test ./app/dashboard -run TestDashboardAtScale -v -timeout 60m
func TestDashboardAtScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CRM_DASHBOARD_SCALE"))
	if n <= 0 {
		t.Skip("set CRM_DASHBOARD_SCALE to the number of leads (and TEST_DATABASE_URL for PostgreSQL)")
	}
	dialects := storetest.Dialects()
	if os.Getenv("CRM_DASHBOARD_SCALE_SQLITE") == "" {
		dialects = slices.DeleteFunc(dialects, func(d store.Dialect) bool { return d == store.SQLite })
	}
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			url := storetest.URL(t, d)
			db, err := store.Open(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			if _, err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			e := apptest.NewServer(t, db)
			f := e.Tenant("Scale")
			sales := e.User(f, "sales@scale.test", map[auth.Feature]auth.Grant{
				auth.FeatureDashboard: {View: auth.ScopeOwn, Export: auth.ScopeOwn},
				auth.FeatureLeads:     {View: auth.ScopeOwn, Create: auth.ScopeOwn, Update: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn},
				auth.FeatureClients:   {View: auth.ScopeOwn, Export: auth.ScopeOwn}})
			for i := range 8 { // ten users in all own and create the leads
				e.User(f, fmt.Sprintf("rep%d@scale.test", i), map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeOwn, Export: auth.ScopeOwn}})
			}
			start := time.Now()
			progress := func(done int) {
				if done%100_000 == 0 || done == n {
					t.Logf("%s: %d leads seeded (%s)", d, done, time.Since(start).Round(time.Second))
				}
			}
			if err := e.DB.System(f.Tenant.ID, f.Admin.ID).SeedLeads(ctx, n, progress); err != nil {
				t.Fatal(err)
			}
			// One lead in ten became a client, on the day the lead was created.
			err = e.DB.RunInTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				_, err := tx.ExecContext(ctx, `INSERT INTO clients (tenant_id, lead_id, customer_name, company_email, owner_id, created_by, created_at, updated_at)
					SELECT tenant_id, id, customer_name, company_email, owner_id, created_by, created_at, created_at
					FROM leads WHERE tenant_id = ? AND id % 10 = 0`, f.Tenant.ID)
				if err == nil && d == store.SQLite {
					_, err = tx.ExecContext(ctx, "ANALYZE")
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if d == store.Postgres { // VACUUM cannot run in a transaction
				raw, err := sql.Open("pgx", url)
				if err != nil {
					t.Fatal(err)
				}
				_, err = raw.ExecContext(ctx, "VACUUM (ANALYZE) clients, lead_day_counts, client_day_counts")
				_ = raw.Close()
				if err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("%s: seeded %d leads and %d clients in %s", d, n, n/10, time.Since(start).Round(time.Second))

			var counters [2]int64
			err = e.DB.RunInTx(ctx, func(ctx context.Context, tx bun.Tx) error {
				return tx.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM lead_day_counts), (SELECT count(*) FROM client_day_counts)").
					Scan(&counters[0], &counters[1])
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d lead counters, %d client counters", d, counters[0], counters[1])
			for _, s := range []store.Scope{e.DB.System(f.Tenant.ID, f.Admin.ID), e.DB.System(f.Tenant.ID, sales.ID).WithPermissions(auth.Permissions{
				auth.FeatureDashboard: {View: auth.ScopeOwn, Export: auth.ScopeOwn}, auth.FeatureLeads: {View: auth.ScopeAll, Export: auth.ScopeAll}, auth.FeatureClients: {View: auth.ScopeAll, Export: auth.ScopeAll}})} {
				p, _ := store.ParsePeriod(store.PeriodAll, "", "", time.Now())
				plans, err := s.ExplainDashboard(ctx, p, store.DashboardLeads|store.DashboardClients)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: plans of the all-time dashboard for user %d:\n%s", d, s.UserID, strings.Join(plans, "\n"))
			}

			for _, who := range []struct {
				name  string
				email string
			}{{"admin (all)", f.Admin.Email}, {"sales (own)", sales.Email}} {
				b := e.Browser(who.email)
				for _, preset := range []string{"7d", "30d", "90d", "year", "all"} {
					path := "/home?period=" + preset
					b.Get(path) // warm the connection and the caches
					var times []time.Duration
					for range 15 {
						t0 := time.Now()
						r := b.Get(path)
						times = append(times, time.Since(t0))
						if r.Status != 200 {
							t.Fatalf("%s: %d", path, r.Status)
						}
					}
					slices.Sort(times)
					med, worst := times[len(times)/2], times[len(times)-1]
					t.Logf("%s %-11s %-5s median %6.1f ms, slowest %6.1f ms (15 requests, full page)", d, who.name, preset,
						float64(med.Microseconds())/1000, float64(worst.Microseconds())/1000)
					if med > 200*time.Millisecond {
						t.Errorf("%s %s: median %s over the 200 ms budget", who.name, preset, med)
					}
				}
			}
		})
	}
}
