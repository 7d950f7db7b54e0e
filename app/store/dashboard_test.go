package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/store/storetest"
	"crm/app/validate"
)

// dashFixture is a tenant with the spec's masters, its administrator and a sales user
// limited to their own leads.
type dashFixture struct {
	db      *store.DB
	tenant  *store.Tenant
	admin   *store.User
	sales   *store.User
	ids     map[string]int64 // master ids by name
	salesPx auth.Permissions
}

func newDashFixture(t *testing.T, db *store.DB, name string) *dashFixture {
	t.Helper()
	ctx := context.Background()
	tn, admin := newTenant(t, db, name, "admin@"+name+".test")
	s := db.System(tn.ID, admin.ID)
	grants := map[auth.Feature]auth.Grant{
		auth.FeatureLeads:     {View: auth.ScopeOwn, Create: auth.ScopeOwn, Update: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn},
		auth.FeatureClients:   {View: auth.ScopeOwn, Create: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn},
		auth.FeatureDashboard: {View: auth.ScopeAll, Export: auth.ScopeAll},
	}
	if _, err := s.CreateRole(ctx, "sales-own", grants); err != nil {
		t.Fatal(err)
	}
	sales, err := s.CreateUser(ctx, store.NewUser{Email: "sales@" + name + ".test", Password: "Secret1!x", Role: "sales-own"})
	if err != nil {
		t.Fatal(err)
	}
	f := &dashFixture{db: db, tenant: tn, admin: admin, sales: sales, ids: map[string]int64{}, salesPx: grants}
	for _, k := range []store.MasterKind{store.KindStage, store.KindStatus, store.KindSource} {
		ms, err := s.Masters(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			f.ids[m.Name] = m.ID
		}
	}
	return f
}

func (f *dashFixture) adminScope() store.Scope { return f.db.System(f.tenant.ID, f.admin.ID) }
func (f *dashFixture) salesScope() store.Scope {
	return f.db.System(f.tenant.ID, f.sales.ID).WithPermissions(f.salesPx)
}

func ptr(v int64) *int64 { return &v }

var leadSeq atomic.Int64

// lead creates a lead in scope s created at the given UTC instant.
func (f *dashFixture) lead(t *testing.T, s store.Scope, at, stage, status, source string, owner *int64) int64 {
	t.Helper()
	when, err := time.Parse("2006-01-02 15:04:05", at)
	if err != nil {
		t.Fatal(err)
	}
	n := leadSeq.Add(1)
	v, _, err := s.CreateLead(context.Background(), store.LeadInput{
		Contact: store.Contact{CustomerName: fmt.Sprintf("Lead %s %d", at, n), CompanyEmail: fmt.Sprintf("l%d-%d@example.test", when.Unix(), n),
			OwnerID: owner,
		},
		LeadStageID: ptr(f.ids[stage]), LeadStatusID: ptr(f.ids[status]), LeadSourceID: ptr(f.ids[source]), CreatedAt: &when,
	}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	return v.ID
}

// march is the custom period 1–31 March 2025.
func march(t *testing.T) store.Period {
	t.Helper()
	p, err := store.ParsePeriod("", "2025-03-01", "2025-03-31", time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func counts(sl []store.Slice) map[string]int64 {
	out := map[string]int64{}
	for _, x := range sl {
		out[x.Name] = x.Count
	}
	return out
}

func names(sl []store.Slice) []string {
	var out []string
	for _, x := range sl {
		out = append(out, x.Name)
	}
	return out
}

func wantCounts(t *testing.T, what string, got []store.Slice, want map[string]int64) {
	t.Helper()
	g := counts(got)
	for k, v := range want {
		if g[k] != v {
			t.Errorf("%s[%s] = %d, want %d (all: %v)", what, k, g[k], v, g)
		}
	}
	for k, v := range g {
		if _, ok := want[k]; !ok && v != 0 {
			t.Errorf("%s[%s] = %d, want 0", what, k, v)
		}
	}
}

// seedMarch adds the hand-counted leads of TestDashboardLeadFigures to tenant f, and noise
// to a second tenant.
func seedMarch(t *testing.T, f *dashFixture) {
	t.Helper()
	ctx := context.Background()
	a, s := f.adminScope(), f.salesScope()
	f.lead(t, a, "2025-02-28 23:59:59", "Leads", "New lead", "Website", nil)           // the day before: out
	f.lead(t, a, "2025-03-01 00:00:00", "Leads", "New lead", "Website", nil)           // first day: in
	moved := f.lead(t, a, "2025-03-01 12:00:00", "Leads", "New lead", "Referral", nil) // moved below
	f.lead(t, a, "2025-03-10 09:00:00", "Won", "Converted", "Referral", &f.sales.ID)   // owned by sales
	f.lead(t, s, "2025-03-15 09:00:00", "Won", "Converted", "Campaign", nil)           // created by sales
	handed := f.lead(t, s, "2025-03-20 09:00:00", "Lost", "Attempt to contact", "Website", nil)
	f.lead(t, a, "2025-03-31 23:59:59", "Lost", "New lead", "Website", nil)         // last day: in
	f.lead(t, a, "2025-04-01 00:00:00", "Deals", "New lead", "Website", nil)        // the day after: out
	gone := f.lead(t, a, "2025-03-05 10:00:00", "Won", "Converted", "Website", nil) // deleted below

	// Changes move the counters: a stage and a status change, an owner handed over (sales
	// created it, so it stays theirs), a deletion.
	if err := a.SetLeadField(ctx, moved, store.FieldStage, f.ids["Deals"]); err != nil {
		t.Fatal(err)
	}
	if err := a.SetLeadField(ctx, moved, store.FieldStatus, f.ids["Attempt to contact"]); err != nil {
		t.Fatal(err)
	}
	if err := a.SetLeadField(ctx, handed, store.FieldOwner, f.admin.ID); err != nil {
		t.Fatal(err)
	}
	if err := a.DeleteLead(ctx, gone); err != nil {
		t.Fatal(err)
	}
}

func TestDashboardLeadFigures(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newDashFixture(t, db, "acme")
		other := newDashFixture(t, db, "globex")
		seedMarch(t, f)
		for range 3 { // another tenant's leads, same days and masters' names: never counted
			other.lead(t, other.adminScope(), "2025-03-10 09:00:00", "Won", "Converted", "Referral", nil)
		}

		// The administrator sees every lead created in March.
		d, err := f.adminScope().Dashboard(ctx, march(t), store.DashboardLeads|store.DashboardClients)
		if err != nil {
			t.Fatal(err)
		}
		l := d.Leads
		if d.Interval != store.IntervalDay || len(l.Series) != 31 {
			t.Fatalf("interval %s with %d points", d.Interval, len(l.Series))
		}
		if l.Total != 6 || l.Won != 2 || l.Lost != 2 || l.Open != 2 || l.ConversionRate == nil || *l.ConversionRate != 50 {
			t.Fatalf("totals: %+v rate %v", l, l.ConversionRate)
		}
		if got := names(l.ByStage); fmt.Sprint(got) != "[Leads Deals Won Lost]" {
			t.Fatalf("funnel order: %v", got)
		}
		wantCounts(t, "stage", l.ByStage, map[string]int64{"Leads": 1, "Deals": 1, "Won": 2, "Lost": 2})
		wantCounts(t, "status", l.ByStatus, map[string]int64{"New lead": 2, "Attempt to contact": 2, "Converted": 2})
		wantCounts(t, "source", l.BySource, map[string]int64{"Website": 3, "Referral": 2, "Campaign": 1})
		perDay := map[int]int64{1: 2, 10: 1, 15: 1, 20: 1, 31: 1}
		for i, b := range l.Series {
			if b.Start.Day() != i+1 || b.Count != perDay[i+1] {
				t.Errorf("day %d: %s %d, want %d", i+1, b.Start.Format(store.DayLayout), b.Count, perDay[i+1])
			}
		}
		if d.Clients == nil || d.Clients.Total != 0 {
			t.Fatalf("clients: %+v", d.Clients)
		}

		// The sales user reaches the leads they own or created: the one given to them, the
		// one they created, and the one they created and handed over.
		d, err = f.salesScope().Dashboard(ctx, march(t), store.DashboardLeads)
		if err != nil {
			t.Fatal(err)
		}
		l = d.Leads
		if l.Total != 3 || l.Won != 2 || l.Lost != 1 || l.Open != 0 || *l.ConversionRate != 66.7 || d.Clients != nil {
			t.Fatalf("own totals: %+v rate %v", l, *l.ConversionRate)
		}
		wantCounts(t, "own stage", l.ByStage, map[string]int64{"Won": 2, "Lost": 1})
		wantCounts(t, "own source", l.BySource, map[string]int64{"Referral": 1, "Campaign": 1, "Website": 1})

		// A dashboard grant on "own" records narrows an "all" lead grant.
		s := f.db.System(f.tenant.ID, f.sales.ID).WithPermissions(auth.Permissions{
			auth.FeatureLeads:     {View: auth.ScopeAll, Export: auth.ScopeAll},
			auth.FeatureDashboard: {View: auth.ScopeOwn, Export: auth.ScopeOwn}})
		if d, err = s.Dashboard(ctx, march(t), store.DashboardLeads|store.DashboardClients); err != nil || d.Leads.Total != 3 {
			t.Fatalf("own dashboard grant: %+v %v", d, err)
		}
		if d.Clients != nil {
			t.Fatal("clients shown without a view on clients")
		}

		// The other tenant sees only its own three.
		d, err = other.adminScope().Dashboard(ctx, march(t), store.DashboardLeads)
		if err != nil || d.Leads.Total != 3 || d.Leads.Won != 3 || *d.Leads.ConversionRate != 100 {
			t.Fatalf("other tenant: %+v %v", d.Leads, err)
		}
	})
}

// TestDashboardMatchesLeadList checks the counters against the leads themselves: for each
// stage, status and source, the dashboard's count equals the lead list's total with the
// same filter and creation dates, for the administrator and for an "own" user.
func TestDashboardMatchesLeadList(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newDashFixture(t, db, "acme")
		seedMarch(t, f)
		p := march(t)
		for _, s := range []store.Scope{f.adminScope(), f.salesScope()} {
			d, err := s.Dashboard(ctx, p, store.DashboardLeads)
			if err != nil {
				t.Fatal(err)
			}
			list := func(q store.LeadQuery) int64 {
				q.CreatedFrom, q.CreatedTo, q.Limit = p.From, p.To.AddDate(0, 0, 1), 1
				page, err := s.ListLeads(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				return page.Total
			}
			if n := list(store.LeadQuery{}); n != d.Leads.Total {
				t.Errorf("total %d, list %d", d.Leads.Total, n)
			}
			for _, x := range d.Leads.ByStage {
				if n := list(store.LeadQuery{StageIDs: []int64{x.ID}}); n != x.Count {
					t.Errorf("stage %s: %d, list %d", x.Name, x.Count, n)
				}
			}
			for _, x := range d.Leads.ByStatus {
				if n := list(store.LeadQuery{StatusIDs: []int64{x.ID}}); n != x.Count {
					t.Errorf("status %s: %d, list %d", x.Name, x.Count, n)
				}
			}
			for _, x := range d.Leads.BySource {
				if n := list(store.LeadQuery{SourceIDs: []int64{x.ID}}); n != x.Count {
					t.Errorf("source %s: %d, list %d", x.Name, x.Count, n)
				}
			}
			// All time, the won and lost cards of the lead list agree with the dashboard.
			all, err := store.ParsePeriod(store.PeriodAll, "", "", time.Now())
			if err != nil {
				t.Fatal(err)
			}
			d, err = s.Dashboard(ctx, all, store.DashboardLeads)
			if err != nil {
				t.Fatal(err)
			}
			won, lost, err := s.WonLost(ctx)
			if err != nil || won != d.Leads.Won || lost != d.Leads.Lost {
				t.Errorf("all time won/lost %d/%d, list cards %d/%d (%v)", d.Leads.Won, d.Leads.Lost, won, lost, err)
			}
			if d.Period.From.Format(store.DayLayout) != "2025-02-28" && s.UserID == f.admin.ID {
				t.Errorf("all time starts %s", d.Period.From.Format(store.DayLayout))
			}
		}
	})
}

func TestDashboardClients(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newDashFixture(t, db, "acme")
		other := newDashFixture(t, db, "globex")
		a, s := f.adminScope(), f.salesScope()
		client := func(s store.Scope, name string) int64 {
			c, err := s.CreateClient(ctx, store.ClientInput{Contact: store.Contact{CustomerName: name, CompanyEmail: name + "@example.test"}})
			if err != nil {
				t.Fatal(err)
			}
			return c.ID
		}
		// Clients are created now; their creation day is then moved, which the counters follow.
		at := map[int64]string{
			client(a, "c1"): "2025-03-01 00:00:00", // Saturday: week of Monday 24 February
			client(a, "c2"): "2025-03-03 08:00:00", // Monday
			client(s, "c3"): "2025-03-09 23:59:59", // Sunday, same week; the sales user's
			client(a, "c4"): "2025-04-01 00:00:00", // out of March
		}
		client(other.adminScope(), "x1")
		err := storetest.Owner(t, db).RunInTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			for id, when := range at {
				ts, _ := time.Parse("2006-01-02 15:04:05", when)
				if _, err := tx.NewUpdate().Table("clients").Set("created_at = ?", ts).
					Where("tenant_id = ? AND id = ?", f.tenant.ID, id).Exec(ctx); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// A converted lead makes a client today.
		id := f.lead(t, a, "2025-03-02 10:00:00", "Deals", "New lead", "Website", nil)
		if _, err := a.ConvertLead(ctx, id); err != nil {
			t.Fatal(err)
		}

		d, err := a.Dashboard(ctx, march(t), store.DashboardClients)
		if err != nil {
			t.Fatal(err)
		}
		if d.Leads != nil || d.Clients.Total != 3 || d.Clients.Series[0].Count != 1 || d.Clients.Series[2].Count != 1 || d.Clients.Series[8].Count != 1 {
			t.Fatalf("admin clients in March: %+v", d.Clients)
		}
		// Week by week over 90 days ending 9 March (a Sunday): the last week holds c2 and c3.
		p, err := store.ParsePeriod(store.PeriodLast90, "", "", time.Date(2025, 3, 9, 18, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		d, err = a.Dashboard(ctx, p, store.DashboardClients)
		if err != nil {
			t.Fatal(err)
		}
		series := d.Clients.Series
		last := series[len(series)-1]
		if d.Interval != store.IntervalWeek || d.Clients.Total != 3 || last.Count != 2 ||
			last.Start.Format(store.DayLayout) != "2025-03-03" || last.End.Format(store.DayLayout) != "2025-03-09" ||
			series[len(series)-2].Count != 1 || series[0].Start != p.From {
			t.Fatalf("weeks: %s %+v", d.Interval, series)
		}
		// The sales user sees their one client; the converted lead's client is today's.
		d, err = s.Dashboard(ctx, march(t), store.DashboardClients)
		if err != nil || d.Clients.Total != 1 {
			t.Fatalf("own clients: %+v %v", d.Clients, err)
		}
		today, _ := store.ParsePeriod(store.PeriodLast7, "", "", time.Now())
		d, err = a.Dashboard(ctx, today, store.DashboardClients|store.DashboardLeads)
		if err != nil || d.Clients.Total != 1 || d.Leads.Total != 0 {
			t.Fatalf("clients this week: %+v %+v %v", d.Clients, d.Leads, err)
		}
		// Deleting a client takes it off.
		for id, when := range at {
			if when == "2025-03-03 08:00:00" {
				if err := a.DeleteClient(ctx, id); err != nil {
					t.Fatal(err)
				}
			}
		}
		if d, err = a.Dashboard(ctx, march(t), store.DashboardClients); err != nil || d.Clients.Total != 2 {
			t.Fatalf("after delete: %+v %v", d.Clients, err)
		}
	})
}

func TestDashboardIntervals(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newDashFixture(t, db, "acme")
		a := f.adminScope()
		for _, at := range []string{"2024-12-31 23:00:00", "2025-01-01 01:00:00", "2025-01-31 12:00:00", "2025-02-01 00:00:00",
			"2025-06-15 12:00:00", "2025-12-31 23:59:59", "2026-01-01 00:00:00"} {
			f.lead(t, a, at, "Leads", "New lead", "Website", nil)
		}
		// A year: 12 months, from January to December.
		p, err := store.ParsePeriod(store.PeriodYear, "", "", time.Date(2025, 12, 31, 12, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		d, err := a.Dashboard(ctx, p, store.DashboardLeads)
		if err != nil {
			t.Fatal(err)
		}
		got := []int64{}
		for _, b := range d.Leads.Series {
			got = append(got, b.Count)
		}
		if d.Interval != store.IntervalMonth || fmt.Sprint(got) != "[2 1 0 0 0 1 0 0 0 0 0 1]" || d.Leads.Total != 5 {
			t.Fatalf("months of 2025: %s %v total %d", d.Interval, got, d.Leads.Total)
		}
		// All time runs from the first lead's day to today, by month.
		p, _ = store.ParsePeriod(store.PeriodAll, "", "", time.Now())
		if d, err = a.Dashboard(ctx, p, store.DashboardLeads); err != nil {
			t.Fatal(err)
		}
		if d.Period.From.Format(store.DayLayout) != "2024-12-31" || d.Leads.Total != 7 || d.Leads.Series[0].Count != 1 ||
			d.Leads.Series[0].Start.Format(store.DayLayout) != "2024-12-31" {
			t.Fatalf("all time: %+v first %+v", d.Period, d.Leads.Series[0])
		}
		// An empty tenant's all time is today alone.
		empty := newDashFixture(t, db, "empty")
		if d, err = empty.adminScope().Dashboard(ctx, p, store.DashboardLeads|store.DashboardClients); err != nil ||
			d.Period.Days() != 1 || d.Leads.Total != 0 || d.Leads.ConversionRate != nil || len(d.Leads.Series) != 1 {
			t.Fatalf("empty all time: %+v %v", d, err)
		}
		b, _ := json.Marshal(d.Period)
		if want := fmt.Sprintf(`{"preset":"all","from":"%s","to":"%[1]s","days":1}`, time.Now().UTC().Format(store.DayLayout)); string(b) != want {
			t.Fatalf("period JSON %s, want %s", b, want)
		}
	})
}

func TestParsePeriod(t *testing.T) {
	t.Parallel()
	today := time.Date(2026, 11, 22, 23, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		preset, from, to string
		want             string // from..to interval, or the errors
	}{
		{"", "", "", "2026-10-24..2026-11-22 day"},
		{"7d", "", "", "2026-11-16..2026-11-22 day"},
		{"30D", "2020-01-01", "2020-01-02", "2026-10-24..2026-11-22 day"},
		{"90d", "", "", "2026-08-25..2026-11-22 week"},
		{"year", "", "", "2026-01-01..2026-11-22 month"},
		{"custom", "2026-11-01", "2026-11-30", "2026-11-01..2026-11-30 day"},
		{"", "01/11/2026", "01/12/2026", "2026-11-01..2026-12-01 day"},
		{"", "01/11/2026", "02/12/2026", "2026-11-01..2026-12-02 week"},
		{"custom", "2026-05-01", "2026-10-30", "2026-05-01..2026-10-30 week"},
		{"custom", "2026-05-01", "2026-10-31", "2026-05-01..2026-10-31 month"},
		{"custom", "2026-05-01", "2026-11-01", "2026-05-01..2026-11-01 month"},
		{"custom", "2026-11-02", "2026-11-01", "map[to:invalid]"},
		{"custom", "", "nope", "map[from:required to:invalidDate]"},
		{"custom", "2010-01-01", "2026-01-01", "map[to:invalid]"},
		{"decade", "", "", "map[period:invalid]"},
	} {
		p, err := store.ParsePeriod(tc.preset, tc.from, tc.to, today)
		got := ""
		var ve validate.Errors
		switch {
		case errors.As(err, &ve):
			got = fmt.Sprint(map[string]string(ve))
		case err != nil:
			got = err.Error()
		default:
			got = p.From.Format(store.DayLayout) + ".." + p.To.Format(store.DayLayout) + " " + p.Interval()
		}
		if got != tc.want {
			t.Errorf("%q %q %q: %s, want %s", tc.preset, tc.from, tc.to, got, tc.want)
		}
	}
}

// TestDashboardReadsOnlyCounters checks the plans: the dashboard reads the masters and the
// counters, never the leads or clients themselves, and on SQLite through the primary key.
func TestDashboardReadsOnlyCounters(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newDashFixture(t, db, "acme")
		for _, s := range []store.Scope{f.adminScope(), f.salesScope()} {
			for _, r := range [][3]string{{store.PeriodLast30}, {store.PeriodAll}, {"", "2024-02-17", "2026-06-03"}} {
				p, _ := store.ParsePeriod(r[0], r[1], r[2], time.Now())
				plans, err := s.ExplainDashboard(context.Background(), p, store.DashboardLeads|store.DashboardClients)
				if err != nil {
					t.Fatal(err)
				}
				if len(plans) < 3 {
					t.Fatalf("%d plans", len(plans))
				}
				// A series by month reads the whole months from the month counters, so a
				// long period costs ~36 rows a month, not 36 a day.
				if months := strings.Contains(strings.Join(plans, "\n"), "lead_month_counts"); months != (p.Interval() == store.IntervalMonth) {
					t.Errorf("%s: reads lead_month_counts: %v", p.Interval(), months)
				}
				for _, plan := range plans {
					sql, _, _ := strings.Cut(plan, "\n")
					if strings.Contains(sql, `"leads"`) || strings.Contains(sql, `"clients"`) {
						t.Errorf("reads the rows: %s", plan)
					}
					if db.Dialect == store.SQLite && (strings.Contains(sql, "day_counts") || strings.Contains(sql, "month_counts")) && !strings.Contains(plan, "PRIMARY KEY") {
						t.Errorf("not through the primary key: %s", plan)
					}
				}
			}
		}
	})
}

// TestDashboardLongPeriodsByMonth checks the periods read by month (whole months from
// lead_month_counts, a partial first and last month by day) against the lead list counting
// the leads themselves: the total, every stage, and every interval of the series, for the
// administrator and the "own" user, after creates, changes and deletes spread over years.
func TestDashboardLongPeriodsByMonth(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newDashFixture(t, db, "acme")
		seedMarch(t, f)
		a, sales := f.adminScope(), f.salesScope()
		stages := []string{"Leads", "Deals", "Won", "Lost"}
		start := time.Date(2024, 1, 3, 8, 0, 0, 0, time.UTC)
		var made []int64
		for i := 0; i < 60; i++ {
			at := start.Add(time.Duration(i) * 409 * time.Hour).Format("2006-01-02 15:04:05") // ~17 days apart
			s, owner := a, (*int64)(nil)
			switch i % 3 {
			case 1:
				s = sales
			case 2:
				owner = &f.sales.ID
			}
			made = append(made, f.lead(t, s, at, stages[i%4], "New lead", "Website", owner))
		}
		for i, id := range made {
			switch i % 7 {
			case 3:
				if err := a.SetLeadField(ctx, id, store.FieldStage, f.ids["Won"]); err != nil {
					t.Fatal(err)
				}
			case 5:
				if err := a.DeleteLead(ctx, id); err != nil {
					t.Fatal(err)
				}
			}
		}
		today := time.Now()
		var periods []store.Period
		for _, r := range [][3]string{{store.PeriodAll}, {store.PeriodYear}, {"", "2024-02-17", "2026-06-03"},
			{"", "2024-03-01", "2025-12-31"}, {"", "2025-01-31", "2025-09-01"}, {"", "2023-12-31", "2027-01-01"}} {
			p, err := store.ParsePeriod(r[0], r[1], r[2], today)
			if err != nil {
				t.Fatal(err)
			}
			periods = append(periods, p)
		}
		for _, s := range []store.Scope{a, sales} {
			for _, p := range periods {
				d, err := s.Dashboard(ctx, p, store.DashboardLeads)
				if err != nil {
					t.Fatal(err)
				}
				list := func(from, to time.Time, q store.LeadQuery) int64 {
					q.CreatedFrom, q.CreatedTo, q.Limit = from, to.AddDate(0, 0, 1), 1
					page, err := s.ListLeads(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					return page.Total
				}
				what := fmt.Sprintf("user %d, %s %s..%s (%s)", s.UserID, d.Period.Preset, d.Period.From.Format(store.DayLayout),
					d.Period.To.Format(store.DayLayout), d.Interval)
				if n := list(d.Period.From, d.Period.To, store.LeadQuery{}); n != d.Leads.Total || n == 0 && d.Leads.Total == 0 {
					t.Errorf("%s: total %d, list %d", what, d.Leads.Total, n)
				}
				for _, x := range d.Leads.ByStage {
					if n := list(d.Period.From, d.Period.To, store.LeadQuery{StageIDs: []int64{x.ID}}); n != x.Count {
						t.Errorf("%s: stage %s: %d, list %d", what, x.Name, x.Count, n)
					}
				}
				for _, b := range d.Leads.Series {
					if n := list(b.Start, b.End, store.LeadQuery{}); n != b.Count {
						t.Errorf("%s: %s..%s: %d, list %d", what, b.Start.Format(store.DayLayout), b.End.Format(store.DayLayout), b.Count, n)
					}
				}
			}
		}
	})
}
