package store_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"crm/app/store"
	"crm/app/store/storetest"
)

// TestRowLevelSecurityCost measures what the second wall costs the lead list on PostgreSQL:
// the same calls on the same data, alternately with row-level security (the server's role,
// app.tenant_id set per statement) and without it (the owner, a superuser the policies do
// not bind, on pgx's plain connections that set nothing). Each call is what a request
// does against the database for the list: one statement outside any tenant (the caller's
// session and tenant lookups are such) and then ListLeads. It prints p50 and p99 of each;
// docs/PERFORMANCE.md has the figures.
//
//	CRM_RLS_COST_LEADS=200000 TEST_DATABASE_URL=… go test ./app/store -run RowLevelSecurityCost -v
func TestRowLevelSecurityCost(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CRM_RLS_COST_LEADS"))
	if n <= 0 || os.Getenv("TEST_DATABASE_URL") == "" {
		t.Skip("set CRM_RLS_COST_LEADS (leads in the measured tenant) and TEST_DATABASE_URL")
	}
	rounds := 400
	if v, err := strconv.Atoi(os.Getenv("CRM_RLS_COST_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	ctx := context.Background()
	on := storetest.Open(t, store.Postgres)
	owner := storetest.Owner(t, on)
	tenant := func(name string, leads int) (*store.Tenant, *store.User) {
		tn, admin, err := on.CreateTenant(ctx, store.NewTenant{Name: name, AdminEmail: "boss@" + name + ".test", AdminPassword: "Secret1!x"})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		// Seeded as the owner, whose VACUUM (ANALYZE) leaves the tables as autovacuum would.
		progress := func(done int) {
			if done%100_000 == 0 {
				t.Logf("%s: %d leads seeded (%s)", name, done, time.Since(start).Round(time.Second))
			}
		}
		if err := owner.System(tn.ID, admin.ID).SeedLeads(ctx, leads, progress); err != nil {
			t.Fatal(err)
		}
		t.Logf("seeded %d leads into %s in %s", leads, name, time.Since(start).Round(time.Second))
		return tn, admin
	}
	tenant("other", max(n/10, 1))
	big, admin := tenant("big", n)
	off, err := store.OpenWithoutTenantSetting(ctx, storetest.OwnerURL(on))
	if err != nil {
		t.Fatal(err)
	}
	defer off.Close()

	first, err := on.System(big.ID, admin.ID).ListLeads(ctx, store.LeadQuery{})
	if err != nil || len(first.Rows) < 4 {
		t.Fatalf("first page: %v", err)
	}
	email := first.Rows[3].CompanyEmail
	cases := []struct {
		name string
		q    store.LeadQuery
	}{
		{"page 1 (20 most recent)", store.LeadQuery{}},
		{"search, selective (an email's local part)", store.LeadQuery{Search: email[:strings.IndexByte(email, '@')]}},
		{"search, a name", store.LeadQuery{Search: "giulia rossi"}},
		{"search, short (2 letters)", store.LeadQuery{Search: "jo"}},
		{"keyset, by customer name", store.LeadQuery{Sort: store.SortCustomer, After: ""}},
	}
	call := func(db *store.DB, q store.LeadQuery) time.Duration {
		start := time.Now()
		if _, err := db.TenantByID(ctx, big.ID); err != nil {
			t.Fatal(err)
		}
		p, err := db.System(big.ID, admin.ID).ListLeads(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Rows) == 0 {
			t.Fatalf("%+v: no rows", q)
		}
		return time.Since(start)
	}
	// A cursor halfway down the name sort, as a user paging on would send.
	mid := store.LeadQuery{Sort: store.SortCustomer, Limit: store.MaxLeadLimit, Page: n / 2 / store.MaxLeadLimit}
	midPage, err := on.System(big.ID, admin.ID).ListLeads(ctx, mid)
	if err != nil {
		t.Fatal(err)
	}
	cases[4].q.After = midPage.Next
	cases[4].name = "keyset, halfway down the customer name sort"

	pct := func(ds []time.Duration, p float64) time.Duration {
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[min(len(s)-1, int(float64(len(s))*p))]
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
	var report strings.Builder
	fmt.Fprintf(&report, "| Call (tenant of %d leads beside one of %d) | p50 off | p50 on | p99 off | p99 on | p99 change |\n|---|---:|---:|---:|---:|---:|\n", n, max(n/10, 1))
	for _, c := range cases {
		for range 20 { // warm both pools and caches
			call(on, c.q)
			call(off, c.q)
		}
		var withRLS, without []time.Duration
		for i := range rounds {
			if i%2 == 0 {
				withRLS = append(withRLS, call(on, c.q))
				without = append(without, call(off, c.q))
			} else {
				without = append(without, call(off, c.q))
				withRLS = append(withRLS, call(on, c.q))
			}
		}
		p99off, p99on := pct(without, 0.99), pct(withRLS, 0.99)
		fmt.Fprintf(&report, "| %s | %s | %s | %s | %s | %+.1f %% |\n", c.name, ms(pct(without, 0.5)), ms(pct(withRLS, 0.5)),
			ms(p99off), ms(p99on), 100*(float64(p99on)/float64(p99off)-1))
	}
	t.Logf("%d rounds per call, alternating:\n%s", rounds, report.String())
}
