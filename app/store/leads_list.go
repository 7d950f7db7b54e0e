package store

import (
	"context"
	"database/sql"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"crm/app/auth"
)

// Lead list limits.
const (
	DefaultLeadLimit = 20
	MaxLeadLimit     = 100
	// LeadCountCap is the most a filtered count counts: beyond it the total is reported as
	// LeadCountCap with TotalCapped set ("10,000+"), so no page pays for a full count.
	LeadCountCap = 10000
	// A search counts up to SearchCountCap instead ("100+"), as every list's does.
)

// The sorts of the lead list (the client list takes some of them: ClientSorts). Text keys
// compare as lowercased bytes on both engines.
const (
	SortRecent   = "recent"        // id, newest first (the default)
	SortID       = "id"            // id
	SortName     = "name"          // same as SortCustomer
	SortCustomer = "customer_name" // lowercased customer name, then id
	SortCompany  = "company_name"  // lowercased company name, then id
	SortEmail    = "company_email" // email (stored lowercased), then id
	SortStage    = "stage"         // stage order; newest first within a stage; no stage last
	SortStatus   = "status"        // status order, as stage
	SortSource   = "source"        // source order, as stage
	SortCreated  = "created_at"    // creation time, then id
)

// LeadSorts lists the sort names ListLeads accepts (SortName is an alias of SortCustomer).
var LeadSorts = []string{SortRecent, SortID, SortCustomer, SortCompany, SortEmail, SortStage, SortStatus, SortSource, SortCreated}

// LeadQuery selects a page of the leads a scope may reach.
//
// Paging is by keyset when After holds the Next of an earlier page (fast at any depth, the
// way the admin list pages), else by Page (offset paging, as the mobile list asks).
// Every list filter takes any number of ids; an empty list does not filter.
type LeadQuery struct {
	Page   int    // 1-based page for offset paging; ignored when After is set
	Limit  int    // rows per page, 1..MaxLeadLimit; DefaultLeadLimit otherwise
	Search string // case-insensitive over id, customer, company, email, phone, stage and status
	Sort   string // one of LeadSorts, or SortName; "" is SortRecent
	Order  string // "asc" or "desc"; "" is desc for SortRecent and asc for the others
	After  string // keyset cursor: LeadPage.Next of the previous page with the same sort

	StageID  int64 // one stage: kept for older callers, joins StageIDs
	StatusID int64 // one status: kept for older callers, joins StatusIDs

	StageIDs  []int64
	StatusIDs []int64
	SourceIDs []int64
	TypeIDs   []int64 // lead types
	OwnerIDs  []int64

	CreatedFrom time.Time // leads created at or after this instant; zero: no bound
	CreatedTo   time.Time // leads created before this instant; zero: no bound
}

// LeadPage is one page of leads with the total and the won and lost counts.
type LeadPage struct {
	Rows []LeadView
	// Total counts every lead that matches the filters: exact when it is cheap (from the
	// counters when only stage and owner filter, or when the count stays within
	// LeadCountCap, SearchCountCap for a search), else that cap with TotalCapped set.
	Total       int64
	TotalCapped bool
	// Won and Lost count every reachable lead in a won or a lost stage, whatever the filters.
	Won  int64
	Lost int64
	// Next is the After of the following page; "" on the last page.
	Next  string
	Page  int // the page served (1 when paging by keyset)
	Limit int // the page size served
}

// ListLeads returns a page of the leads the scope may reach, through the lists' paging
// (list.go). Every statement starts from Scope.leads (or the counters under the same rule)
// and is served by an index led by tenant_id, so a page costs about the same at any depth
// and any tenant size:
//
//   - the page's ids come from one index range in the sort's order (id, name, company,
//     email, creation time), or, for a master's order (stage, status, source), from the
//     (tenant_id, master, id) index of each master in turn; the names are then read by id;
//   - a search is counted first up to SearchCountCap (searchMatches): a common word by a
//     probe of its newest matches (which also serves the first pages newest first), a
//     rarer term by collecting at most 1,001 matching ids through the search index (pg_trgm,
//     FTS5 trigram; a short term through the prefix indexes), then the set the page is
//     read from when it is complete;
//   - otherwise the total comes from the counters when only stage, status and owner filter
//     (exact: fromCounters), else from counting at most LeadCountCap+1 matches, or from a
//     last page;
//   - won and lost always come from the counters.
func (s Scope) ListLeads(ctx context.Context, q LeadQuery) (*LeadPage, error) {
	f, r, err := s.leadFilter(ctx, q)
	if err != nil {
		return nil, err
	}
	found, err := s.findPage(ctx, f.spec(s), r)
	if err != nil {
		return nil, err
	}
	page := &LeadPage{Total: found.total, TotalCapped: found.capped, Next: found.next, Page: r.page, Limit: r.limit}
	if page.Rows, err = s.leadViewsByID(ctx, found.hits); err != nil {
		return nil, err
	}
	switch {
	case found.counted:
	case f.countable():
		// One read of the counters for the total, won and lost.
		page.Total, page.Won, page.Lost, err = s.fromCounters(ctx, f)
		return page, err
	default:
		if page.Total, page.TotalCapped, err = s.countCapped(ctx, f.spec(s).rows(), LeadCountCap); err != nil {
			return nil, err
		}
	}
	if page.Won, page.Lost, err = s.WonLost(ctx); err != nil {
		return nil, err
	}
	return page, nil
}

// WonLost counts the reachable leads in the won stages and in the lost stages, from the
// counters (a few rows per stage and user, whatever the number of leads).
func (s Scope) WonLost(ctx context.Context) (won, lost int64, err error) {
	_, won, lost, err = s.fromCounters(ctx, nil)
	return won, lost, err
}

// fromCounters reads won and lost from the counters and, for a filter the counters can
// answer (f.countable), the filter's total, in one statement: from the scope's dozen rows
// of lead_user_counts when userCounters says they answer, else from lead_counts (a row per
// stage, status, owner and creator) under the scope's rule.
func (s Scope) fromCounters(ctx context.Context, f *leadFilter) (total, won, lost int64, err error) {
	var out struct {
		Total int64 `bun:"total"`
		Won   int64 `bun:"won"`
		Lost  int64 `bun:"lost"`
	}
	counters, c := s.leadCounts(), "lc"
	if user, ok := s.userCounters(f); ok {
		counters, c = s.Select((*leadUserCount)(nil)).Where("luc.user_id = ?", user), "luc"
	}
	matches := bun.SafeQuery("1 = 1")
	if f != nil && len(f.q.StageIDs)+len(f.q.StatusIDs)+len(f.q.OwnerIDs) > 0 {
		stage, status, owner := bun.SafeQuery("1 = 1"), bun.SafeQuery("1 = 1"), bun.SafeQuery("1 = 1")
		if len(f.q.StageIDs) > 0 {
			stage = bun.SafeQuery(c+".stage_id IN (?)", bun.In(f.q.StageIDs))
		}
		if len(f.q.StatusIDs) > 0 {
			status = bun.SafeQuery(c+".status_id IN (?)", bun.In(f.q.StatusIDs))
		}
		if len(f.q.OwnerIDs) > 0 { // (lead_counts only: userCounters)
			owner = bun.SafeQuery("lc.owner_id IN (?)", bun.In(f.q.OwnerIDs))
		}
		matches = bun.SafeQuery("? AND ? AND ?", stage, status, owner)
	}
	// Summed by stage first: won and lost depend on the stage alone, so the stages are
	// joined once a stage rather than once a counter (1,200 counters for ten users: on
	// SQLite this statement was over a quarter of a list request's CPU, docs/PERFORMANCE.md).
	byStage := counters.ColumnExpr(c+".stage_id").
		ColumnExpr("SUM(CASE WHEN ? THEN "+c+".n ELSE 0 END) AS total", matches).
		ColumnExpr("SUM(" + c + ".n) AS n").Group(c + ".stage_id")
	err = s.scanList(ctx, s.idb.NewSelect().TableExpr("(?) AS bs", byStage).
		ColumnExpr("CAST(COALESCE(SUM(bs.total), 0) AS BIGINT) AS total").
		ColumnExpr("CAST(COALESCE(SUM(CASE WHEN st.is_won THEN bs.n ELSE 0 END), 0) AS BIGINT) AS won").
		ColumnExpr("CAST(COALESCE(SUM(CASE WHEN st.is_lost THEN bs.n ELSE 0 END), 0) AS BIGINT) AS lost").
		Join("LEFT JOIN lead_masters AS st ON st.tenant_id = ? AND st.id = bs.stage_id", s.TenantID), &out)
	return out.Total, out.Won, out.Lost, err
}

// leadCount is one counter of lead_counts: how many leads of a tenant have this stage,
// status, owner and creator (0 for none). Triggers keep them; the store only reads them.
type leadCount struct {
	bun.BaseModel `bun:"table:lead_counts,alias:lc"`
	Owned

	StageID   int64 `bun:"stage_id,pk"`
	StatusID  int64 `bun:"status_id,pk"`
	OwnerID   int64 `bun:"owner_id,pk"`
	CreatedBy int64 `bun:"created_by,pk"`
	N         int64 `bun:"n,notnull"`
}

// leadUserCount is one counter of lead_user_counts: how many leads of a tenant have this
// stage and status, all of them for user 0, else those the user owns or created. Kept with
// lead_counts, from the same moves (migration 20261129100000).
type leadUserCount struct {
	bun.BaseModel `bun:"table:lead_user_counts,alias:luc"`
	Owned

	UserID   int64 `bun:"user_id,pk"`
	StageID  int64 `bun:"stage_id,pk"`
	StatusID int64 `bun:"status_id,pk"`
	N        int64 `bun:"n,notnull"`
}

// userCounters is the user of lead_user_counts whose counters answer f for this scope, a
// dozen rows where lead_counts has a thousand: 0, the tenant's, for the "all" scope; the
// user's own for "own". ok is false for a team scope and an owner filter, which need the
// owner and the creator of lead_counts.
func (s Scope) userCounters(f *leadFilter) (user int64, ok bool) {
	if f != nil && len(f.q.OwnerIDs) > 0 {
		return 0, false
	}
	switch s.recordScope(auth.FeatureLeads) {
	case auth.ScopeAll:
		return 0, true
	case auth.ScopeOwn:
		return s.UserID, s.UserID != 0
	}
	return 0, false
}

// leadCounts starts a query on the lead counters this scope may reach, under the same rule
// as leads: the tenant's, and only the user's own when their role says "own".
func (s Scope) leadCounts() *bun.SelectQuery {
	q := s.Select((*leadCount)(nil))
	if cond, args := s.whose(auth.FeatureLeads, "lc.owner_id", "lc.created_by"); cond != "" {
		q = q.Where(cond, args...)
	}
	return q
}

// normalise applies the defaults and checks the sort, order, cursor and search.
func (q *LeadQuery) normalise() (*listRequest, error) {
	if q.StageID > 0 {
		q.StageIDs = append(slices.Clip(q.StageIDs), q.StageID)
	}
	if q.StatusID > 0 {
		q.StatusIDs = append(slices.Clip(q.StatusIDs), q.StatusID)
	}
	r, err := pageArgs{Page: q.Page, Limit: q.Limit, Search: q.Search, Sort: q.Sort, Order: q.Order, After: q.After}.
		request(leadSorts, DefaultLeadLimit, MaxLeadLimit)
	if err != nil {
		return nil, err
	}
	q.Page, q.Limit, q.Search = r.page, r.limit, r.search
	return r, nil
}

// leadSorts are the lead list's sorts; text keys compare as lowercased bytes on both
// engines, as their indexes hold them: (tenant_id, key, id) on SQLite, (tenant_id, key)
// deduplicated on PostgreSQL (migration 20261127000000: the tie on the id is an
// incremental sort of each run of equal keys).
var leadSorts = newListSorts(map[string]listSort{
	SortCustomer: textKey("lower(l.customer_name)"),
	SortCompany:  textKey("lower(l.company_name)"),
	SortEmail:    textKey("l.company_email"),
	SortCreated:  timeKey("l.created_at"),
	SortStage:    groupKey(KindStage, "l.lead_stage_id"),
	SortStatus:   groupKey(KindStatus, "l.lead_status_id"),
	SortSource:   groupKey(KindSource, "l.lead_source_id"),
}, map[string]string{SortName: SortCustomer})

// leadViewsByID loads the found leads with their names, in the order found: the rows by id,
// then the names of their masters and users and which have a logo, in one more statement.
// (leadViews' seven joins give the same; PostgreSQL takes ten times longer planning them
// than running them, and a list page is a new statement every time.)
func (s Scope) leadViewsByID(ctx context.Context, hits []listHit) ([]LeadView, error) {
	return readHits(ctx, hits, func(v *LeadView) int64 { return v.ID }, func(ids []int64) ([]LeadView, error) {
		return s.leadViewsIn(ctx, ids)
	})
}

// distinctIDs is ids sorted, each once: a page's leads share a few masters and users, and
// PostgreSQL estimates an IN list element by element while planning (a page of 20 leads
// named 100 masters, 20 of them distinct: the names' statement took 0.63 ms, 0.39 ms with
// each once; docs/PERFORMANCE.md "Seventh round").
func distinctIDs(ids []int64) []int64 {
	slices.Sort(ids)
	return slices.Compact(ids)
}

// leadViewsIn reads the leads of ids with their names, in no particular order. The ids
// travel apart from the text (boundIDs: arrays on PostgreSQL, JSON arrays on SQLite): its
// two statements are then the same texts for every page of every list, planned or
// compiled once a connection (plans.go) instead of at each page that is not page 1 asked
// again.
func (s Scope) leadViewsIn(ctx context.Context, ids []int64) ([]LeadView, error) {
	// Room for every row: a LeadView is large, and growing the slice from nothing copied
	// 33 KB a page (docs/PERFORMANCE.md, "Thirtieth round").
	rows := make([]LeadView, 0, len(ids))
	rowIDs := s.boundIDs()
	sel := rowIDs.in(selectLeadRows(s.leads((*Lead)(nil)), s.Dialect()), "l.id", ids) // before rowIDs.ctx, which reads what it adds
	if err := s.scanList(rowIDs.ctx(ctx), sel, leadRows{rows: &rows}); err != nil {
		return nil, err
	}
	var masters, users []int64
	for _, r := range rows {
		for _, id := range []*int64{r.LeadStageID, r.LeadStatusID, r.LeadSourceID, r.LeadTypeID, r.CompanyTypeID} {
			if id != nil {
				masters = append(masters, *id)
			}
		}
		for _, id := range []*int64{r.CreatedBy, r.OwnerID} {
			if id != nil {
				users = append(users, *id)
			}
		}
	}
	nameIDs := s.boundIDs()
	names := nameIDs.in(s.Select((*leadLogo)(nil)).ColumnExpr("'l' AS kind, ll.lead_id AS id, '' AS name, ? AS is_won, ? AS is_lost", false, false),
		"ll.lead_id", ids)
	if len(masters) > 0 || explaining(ctx) {
		names = names.UnionAll(nameIDs.in(s.Select((*Master)(nil)).ColumnExpr("'m', m.id, m.name, m.is_won, m.is_lost"),
			"m.id", distinctIDs(append(masters, 0))))
	}
	if len(users) > 0 || explaining(ctx) {
		names = names.UnionAll(nameIDs.in(s.Select((*User)(nil)).ColumnExpr("'u', u.id, u.name, ?, ?", false, false),
			"u.id", distinctIDs(append(users, 0))))
	}
	found := leadNames{masters: map[int64]leadMaster{}, users: map[int64]string{}, logos: map[int64]bool{}}
	if err := s.scanList(nameIDs.ctx(ctx), names, &found); err != nil {
		return nil, err
	}
	for i := range rows {
		r := &rows[i]
		stage := found.master(r.LeadStageID)
		r.LeadStageName, r.LeadStageIsWon, r.LeadStageIsLost = stage.name, stage.won, stage.lost
		r.LeadStatusName, r.LeadSourceName = found.master(r.LeadStatusID).name, found.master(r.LeadSourceID).name
		r.LeadTypeName, r.CompanyTypeName = found.master(r.LeadTypeID).name, found.master(r.CompanyTypeID).name
		r.CreatedUserName, r.OwnerName, r.HasLogo = found.user(r.CreatedBy), found.user(r.OwnerID), found.logos[r.ID]
	}
	return rows, nil
}

// leadNames reads the names statement of leadViewsIn into its maps by position, as
// leadRows reads the leads: through bun's reflection each row was a struct in a slice to
// grow, then copied into the maps.
type leadNames struct {
	masters map[int64]leadMaster
	users   map[int64]string
	logos   map[int64]bool
}

// leadMaster is a master's name and, for a stage, whether it is won or lost.
type leadMaster struct {
	name      string
	won, lost bool
}

// master is the master of id, the zero one for none.
func (m *leadNames) master(id *int64) leadMaster {
	if id == nil {
		return leadMaster{}
	}
	return m.masters[*id]
}

// user is the name of the user of id, "" for none.
func (m *leadNames) user(id *int64) string {
	if id == nil {
		return ""
	}
	return m.users[*id]
}

var _ bun.Model = (*leadNames)(nil)

func (m *leadNames) Value() any { return m }

func (m *leadNames) ScanRows(_ context.Context, rows *sql.Rows) (int, error) {
	n := 0
	var kind string
	var id int64
	var f leadMaster
	for rows.Next() {
		if err := rows.Scan(&kind, &id, &f.name, orZero[bool]{&f.won}, orZero[bool]{&f.lost}); err != nil {
			return n, err
		}
		switch kind {
		case "m":
			m.masters[id] = f
		case "u":
			m.users[id] = f.name
		case "l":
			m.logos[id] = true
		}
		n++
	}
	return n, rows.Err()
}

// ExplainListLeads returns the query plan of every statement ListLeads runs for q, each
// headed by its SQL, without running them: EXPLAIN on PostgreSQL, EXPLAIN QUERY PLAN on
// SQLite. The CI check and operators use it to see that each one is served by an index.
func (s Scope) ExplainListLeads(ctx context.Context, q LeadQuery) ([]string, error) {
	return explainPlans(ctx, func(ctx context.Context) error {
		_, err := s.ListLeads(ctx, q)
		return err
	})
}
