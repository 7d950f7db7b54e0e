package store

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"time"

	"github.com/uptrace/bun"

	"crm/app/auth"
)

// The dashboards: how the pipeline is doing over a chosen period, for the caller's record
// scope. Every figure counts the leads (or clients) created in the period, by the UTC day of
// their created_at, and reads them from per-day counters (lead_day_counts,
// client_day_counts) that triggers keep in step with the rows in the same transaction (see
// sql/*/20261122000007_dashboard.tx.up.sql). Neither counter table grows with the number of
// leads beyond one row per day and combination, so the figures cost the same at a hundred
// leads and at a million.

// Dashboard parts a caller asks for.
const (
	DashboardLeads   = 1 << iota // LeadFigures
	DashboardClients             // ClientFigures
)

// Dashboard is the figures of one period for one caller.
type Dashboard struct {
	Period   Period
	Interval string
	// Leads is nil when not asked for, or when the caller's role has no view on leads.
	Leads *LeadFigures
	// Clients is nil when not asked for, or when the caller's role has no view on clients.
	Clients *ClientFigures
}

// LeadFigures describe the leads created in the period that the caller may reach.
type LeadFigures struct {
	Total int64 `json:"total"`
	// Won and Lost count the leads now in a stage flagged is_won or is_lost; Open the rest.
	Won  int64 `json:"won"`
	Lost int64 `json:"lost"`
	Open int64 `json:"open"`
	// ConversionRate is won ÷ (won + lost) × 100 over the leads created in the period: the
	// share of the decided leads that were won, in percent rounded to one decimal. It is nil
	// while none of them is won or lost.
	ConversionRate *float64 `json:"conversion_rate"`
	// ByStage is the funnel: every stage in stage order, with the leads now in it. ByStatus
	// and BySource likewise, in their display order. A "none" entry (ID 0) is added last
	// when leads have no stage, status or source.
	ByStage  []Slice `json:"by_stage"`
	ByStatus []Slice `json:"by_status"`
	BySource []Slice `json:"by_source"`
	// Series is the number of new leads per interval, every interval of the period present.
	Series []Bucket `json:"series"`
}

// ClientFigures describe the clients created in the period that the caller may reach.
type ClientFigures struct {
	Total  int64    `json:"total"`
	Series []Bucket `json:"series"`
}

// Slice is one bar of a breakdown: a stage, status or source and its count.
type Slice struct {
	ID     int64  `json:"id"`
	Name   string `json:"name"`
	Count  int64  `json:"count"`
	IsWon  bool   `json:"is_won,omitempty"`
	IsLost bool   `json:"is_lost,omitempty"`
}

// Bucket is one interval of a time series, its days clipped to the period.
type Bucket struct {
	Start time.Time
	End   time.Time
	Count int64
	key   string // the interval's first day, as the query groups by it
}

// MarshalJSON writes {"start": "2026-11-16", "end": "2026-11-22", "count": 4}.
func (b Bucket) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Start string `json:"start"`
		End   string `json:"end"`
		Count int64  `json:"count"`
	}{b.Start.Format(DayLayout), b.End.Format(DayLayout), b.Count})
}

// buckets lays out every interval of the period, empty.
func buckets(p Period, interval string) []Bucket {
	var out []Bucket
	start := p.From
	switch interval {
	case IntervalWeek:
		start = start.AddDate(0, 0, -((int(start.Weekday()) + 6) % 7)) // back to Monday
	case IntervalMonth:
		start = time.Date(start.Year(), start.Month(), 1, 0, 0, 0, 0, time.UTC)
	case IntervalYear:
		start = time.Date(start.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	}
	for s := start; !s.After(p.To); {
		var next time.Time
		switch interval {
		case IntervalDay:
			next = s.AddDate(0, 0, 1)
		case IntervalWeek:
			next = s.AddDate(0, 0, 7)
		case IntervalMonth:
			next = s.AddDate(0, 1, 0)
		default:
			next = s.AddDate(1, 0, 0)
		}
		b := Bucket{Start: s, End: next.AddDate(0, 0, -1), key: s.Format(DayLayout)}
		if b.Start.Before(p.From) {
			b.Start = p.From
		}
		if b.End.After(p.To) {
			b.End = p.To
		}
		out = append(out, b)
		s = next
	}
	return out
}

// bucketExpr is the SQL of the first day of a counter's interval, as YYYY-MM-DD text.
func bucketExpr(d Dialect, interval, col string) string {
	if d == Postgres {
		if interval == IntervalDay {
			return "to_char(" + col + ", 'YYYY-MM-DD')"
		}
		return "to_char(date_trunc('" + interval + "', " + col + "), 'YYYY-MM-DD')"
	}
	switch interval {
	case IntervalWeek: // %w is 0 on Sunday: step back to Monday
		return "date(" + col + ", '-' || ((CAST(strftime('%w', " + col + ") AS INTEGER) + 6) % 7) || ' days')"
	case IntervalMonth:
		return "substr(" + col + ", 1, 7) || '-01'"
	case IntervalYear:
		return "substr(" + col + ", 1, 4) || '-01-01'"
	default:
		return col
	}
}

// leadDayCount is one counter of lead_day_counts: the leads of a tenant created on a day with
// this stage, status and source (0 for none), under user_id 0 for all of them, else for the
// ones that user owns or created. Triggers keep them; the store only reads them.
type leadDayCount struct {
	bun.BaseModel `bun:"table:lead_day_counts,alias:ldc"`
	Owned

	UserID   int64  `bun:"user_id,pk"`
	Day      string `bun:"day,pk"`
	StageID  int64  `bun:"stage_id,pk"`
	StatusID int64  `bun:"status_id,pk"`
	SourceID int64  `bun:"source_id,pk"`
	N        int64  `bun:"n,notnull"`
}

// clientDayCount is one counter of client_day_counts, under the same rules.
type clientDayCount struct {
	bun.BaseModel `bun:"table:client_day_counts,alias:cdc"`
	Owned

	UserID int64  `bun:"user_id,pk"`
	Day    string `bun:"day,pk"`
	N      int64  `bun:"n,notnull"`
}

// forDashboard is the scope as the dashboard sees it: the dashboard grant's view scope caps
// what it counts of leads and clients (a dashboard limited to "own" records counts only the
// user's own leads and clients, whatever the lead grant says).
func (s Scope) forDashboard() Scope {
	if s.system || s.perms == nil { // nil: as narrow as it gets already
		return s
	}
	s.action = auth.View
	limit := s.perms.ScopeFor(auth.FeatureDashboard, auth.View)
	if !limit.Granted() {
		limit = auth.ScopeOwn
	}
	p := maps.Clone(s.perms)
	for _, f := range []auth.Feature{auth.FeatureLeads, auth.FeatureClients} {
		if g := p[f]; g.View.Rank() > limit.Rank() {
			p[f] = g.With(auth.View, limit)
		}
	}
	s.perms = p
	return s
}

// canView reports whether the scope's user may see the feature's records at all (the
// system scope may; a scope without permissions may not).
func (s Scope) canView(f auth.Feature) bool { return s.system || s.perms.Allows(f, auth.View) }

// dayExpr is the UTC day of a row's creation, as the day counters' triggers write it.
func (s Scope) dayExpr(col string) string {
	if s.Dialect() == Postgres {
		return "(" + col + " AT TIME ZONE 'UTC')::date"
	}
	return "date(" + col + ")"
}

// leadDays starts a query on the lead counters this scope may reach: the whole tenant's
// (user 0) or the user's own (their user_id) under an "own" scope. A lead is counted once
// for its owner and once more for a different creator, so the counters of several users
// cannot be summed: a team scope counts the team's rows themselves, in the counters' shape.
func (s Scope) leadDays() *bun.SelectQuery {
	switch s.recordScope(auth.FeatureLeads) {
	case auth.ScopeTeam:
		rows := s.leads((*Lead)(nil)).ColumnExpr("l.tenant_id, " + s.dayExpr("l.created_at") + " AS day").
			ColumnExpr("COALESCE(l.lead_stage_id, 0) AS stage_id, COALESCE(l.lead_status_id, 0) AS status_id").
			ColumnExpr("COALESCE(l.lead_source_id, 0) AS source_id, 1 AS n")
		return s.idb.NewSelect().TableExpr("(?) AS ldc", rows)
	case auth.ScopeOwn:
		return s.Select((*leadDayCount)(nil)).Where("ldc.user_id = ?", s.UserID)
	}
	return s.Select((*leadDayCount)(nil)).Where("ldc.user_id = 0")
}

// leadMonthCount is one counter of lead_month_counts: lead_day_counts summed by month (the
// first day of the month in month), kept by triggers on lead_day_counts.
type leadMonthCount struct {
	bun.BaseModel `bun:"table:lead_month_counts,alias:lmc"`
	Owned

	UserID   int64  `bun:"user_id,pk"`
	Month    string `bun:"month,pk"`
	StageID  int64  `bun:"stage_id,pk"`
	StatusID int64  `bun:"status_id,pk"`
	SourceID int64  `bun:"source_id,pk"`
	N        int64  `bun:"n,notnull"`
}

// leadCounters is the lead counters of the period this scope may reach, as rows of ldc.day,
// stage_id, status_id, source_id and n to group. A series by month or year reads the whole
// months of the period from lead_month_counts and only the days of a partial first and last
// month from lead_day_counts: about 36 rows a month instead of 36 a day (all time over two
// years: ~1,700 rows instead of 26,000+). A period of all time starts on the first day with
// a lead, so its first month is whole. A team scope counts its rows (leadDays).
func (s Scope) leadCounters(p Period, interval string) *bun.SelectQuery {
	days := func(from, to time.Time) *bun.SelectQuery {
		return inPeriod(s.leadDays(), "ldc.day", Period{From: from, To: to}).
			ColumnExpr("ldc.day, ldc.stage_id, ldc.status_id, ldc.source_id, ldc.n")
	}
	first := time.Date(p.From.Year(), p.From.Month(), 1, 0, 0, 0, 0, time.UTC)
	if first.Before(p.From) && p.Preset != PeriodAll {
		first = first.AddDate(0, 1, 0)
	}
	last := time.Date(p.To.Year(), p.To.Month(), 1, 0, 0, 0, 0, time.UTC) // the tail's first day
	if p.To.Equal(last.AddDate(0, 1, -1)) {
		last = last.AddDate(0, 1, 0) // the last month is whole
	}
	scope := s.recordScope(auth.FeatureLeads)
	if (interval != IntervalMonth && interval != IntervalYear) || scope == auth.ScopeTeam || !first.Before(last) {
		return s.idb.NewSelect().TableExpr("(?) AS ldc", days(p.From, p.To))
	}
	user := int64(0)
	if scope == auth.ScopeOwn {
		user = s.UserID
	}
	parts := s.Select((*leadMonthCount)(nil)).
		ColumnExpr("lmc.month AS day, lmc.stage_id, lmc.status_id, lmc.source_id, lmc.n").
		Where("lmc.user_id = ?", user).
		Where("lmc.month >= ?", first.Format(DayLayout)).Where("lmc.month < ?", last.Format(DayLayout))
	if p.From.Before(first) {
		parts = parts.UnionAll(days(p.From, first.AddDate(0, 0, -1)))
	}
	if !last.After(p.To) {
		parts = parts.UnionAll(days(last, p.To))
	}
	return s.idb.NewSelect().TableExpr("(?) AS ldc", parts)
}

// clientDays starts a query on the client counters this scope may reach (as leadDays).
func (s Scope) clientDays() *bun.SelectQuery {
	switch s.recordScope(auth.FeatureClients) {
	case auth.ScopeTeam:
		rows := s.clients((*Client)(nil)).ColumnExpr("c.tenant_id, " + s.dayExpr("c.created_at") + " AS day, 1 AS n")
		return s.idb.NewSelect().TableExpr("(?) AS cdc", rows)
	case auth.ScopeOwn:
		return s.Select((*clientDayCount)(nil)).Where("cdc.user_id = ?", s.UserID)
	}
	return s.Select((*clientDayCount)(nil)).Where("cdc.user_id = 0")
}

// Dashboard computes the parts asked for (DashboardLeads|DashboardClients) over the period,
// within the caller's record scope. A PeriodAll period starts on the first day that has a
// lead or client counted in reach (today when there is none).
func (s Scope) Dashboard(ctx context.Context, p Period, parts int) (*Dashboard, error) {
	s = s.forDashboard()
	leads := parts&DashboardLeads != 0 && s.canView(auth.FeatureLeads)
	clients := parts&DashboardClients != 0 && s.canView(auth.FeatureClients)
	if p.To.IsZero() {
		return nil, errors.New("dashboard: period without an end")
	}
	if p.From.IsZero() {
		p.From = p.To
		for _, q := range []struct {
			on    bool
			sel   func() *bun.SelectQuery
			alias string
		}{{leads, s.leadDays, "ldc"}, {clients, s.clientDays, "cdc"}} {
			if !q.on {
				continue
			}
			var first []string
			sel := q.sel().ColumnExpr(bucketExpr(s.Dialect(), IntervalDay, q.alias+".day") + " AS day").
				Where(q.alias + ".n <> 0").OrderExpr(q.alias + ".day").Limit(1)
			if err := s.scanList(ctx, sel, &first); err != nil {
				return nil, err
			}
			if len(first) == 1 {
				if t, ok := parseDay(first[0]); ok && t.Before(p.From) {
					p.From = t
				}
			}
		}
	}
	d := &Dashboard{Period: p, Interval: p.Interval()}
	var err error
	if leads {
		if d.Leads, err = s.leadFigures(ctx, p, d.Interval); err != nil {
			return nil, err
		}
	}
	if clients {
		if d.Clients, err = s.clientFigures(ctx, p, d.Interval); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// inPeriod limits a counter query to the period's days.
func inPeriod(sel *bun.SelectQuery, col string, p Period) *bun.SelectQuery {
	return sel.Where(col+" >= ?", p.From.Format(DayLayout)).Where(col+" <= ?", p.To.Format(DayLayout))
}

// leadFigures reads the lead counters of the period in one grouped query (interval × stage ×
// status × source: a few hundred rows at most) and adds them up every way the dashboard
// shows them.
func (s Scope) leadFigures(ctx context.Context, p Period, interval string) (*LeadFigures, error) {
	var masters []Master
	if err := s.scanList(ctx, s.Select(&masters).Where("kind IN (?)", bun.In([]MasterKind{KindStage, KindStatus, KindSource})).
		OrderExpr("sort_order, id")); err != nil {
		return nil, err
	}
	var rows []struct {
		Bucket   string `bun:"bucket"`
		StageID  int64  `bun:"stage_id"`
		StatusID int64  `bun:"status_id"`
		SourceID int64  `bun:"source_id"`
		N        int64  `bun:"n"`
	}
	sel := s.leadCounters(p, interval).
		ColumnExpr(bucketExpr(s.Dialect(), interval, "ldc.day") + " AS bucket").
		ColumnExpr("ldc.stage_id, ldc.status_id, ldc.source_id").
		ColumnExpr("CAST(SUM(ldc.n) AS BIGINT) AS n").
		GroupExpr("1, 2, 3, 4").
		Having("SUM(ldc.n) <> 0")
	if err := s.scanList(ctx, sel, &rows); err != nil {
		return nil, err
	}

	f := &LeadFigures{Series: buckets(p, interval)}
	at := make(map[string]int, len(f.Series))
	for i, b := range f.Series {
		at[b.key] = i
	}
	stage, status, source := map[int64]int64{}, map[int64]int64{}, map[int64]int64{}
	for _, r := range rows {
		f.Total += r.N
		stage[r.StageID] += r.N
		status[r.StatusID] += r.N
		source[r.SourceID] += r.N
		if i, ok := at[r.Bucket]; ok {
			f.Series[i].Count += r.N
		}
	}
	slices := func(kind MasterKind, counts map[int64]int64) []Slice {
		out := []Slice{}
		for _, m := range masters {
			if m.Kind != kind {
				continue
			}
			out = append(out, Slice{ID: m.ID, Name: m.Name, Count: counts[m.ID], IsWon: m.IsWon, IsLost: m.IsLost})
			delete(counts, m.ID)
		}
		var none int64 // no master, or one gone since (the masters in use cannot be deleted)
		for _, n := range counts {
			none += n
		}
		if none != 0 {
			out = append(out, Slice{Count: none})
		}
		return out
	}
	f.ByStage = slices(KindStage, stage)
	f.ByStatus = slices(KindStatus, status)
	f.BySource = slices(KindSource, source)
	for _, st := range f.ByStage {
		switch {
		case st.IsWon:
			f.Won += st.Count
		case st.IsLost:
			f.Lost += st.Count
		}
	}
	f.Open = f.Total - f.Won - f.Lost
	if decided := f.Won + f.Lost; decided > 0 {
		rate := math.Round(float64(f.Won)*1000/float64(decided)) / 10
		f.ConversionRate = &rate
	}
	return f, nil
}

// clientFigures reads the client counters of the period, grouped by interval.
func (s Scope) clientFigures(ctx context.Context, p Period, interval string) (*ClientFigures, error) {
	var rows []struct {
		Bucket string `bun:"bucket"`
		N      int64  `bun:"n"`
	}
	sel := inPeriod(s.clientDays(), "cdc.day", p).
		ColumnExpr(bucketExpr(s.Dialect(), interval, "cdc.day") + " AS bucket").
		ColumnExpr("CAST(SUM(cdc.n) AS BIGINT) AS n").
		GroupExpr("1")
	if err := s.scanList(ctx, sel, &rows); err != nil {
		return nil, err
	}
	f := &ClientFigures{Series: buckets(p, interval)}
	at := make(map[string]int, len(f.Series))
	for i, b := range f.Series {
		at[b.key] = i
	}
	for _, r := range rows {
		f.Total += r.N
		if i, ok := at[r.Bucket]; ok {
			f.Series[i].Count += r.N
		}
	}
	return f, nil
}

// ExplainDashboard returns the plan of every statement Dashboard runs for the period and
// parts, each headed by its SQL, without running them (as ExplainListLeads does for the
// lead list): each should be an index range scan of the counters, never a read of the leads.
func (s Scope) ExplainDashboard(ctx context.Context, p Period, parts int) ([]string, error) {
	return explainPlans(ctx, func(ctx context.Context) error {
		_, err := s.Dashboard(ctx, p, parts)
		return err
	})
}
