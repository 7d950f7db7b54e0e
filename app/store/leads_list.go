package store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"crm/app/validate"
)

// Lead list limits.
const (
	DefaultLeadLimit = 20
	MaxLeadLimit     = 100
	// LeadCountCap is the most a filtered count counts: beyond it the total is reported as
	// LeadCountCap with TotalCapped set ("10,000+"), so no page pays for a full count.
	LeadCountCap = 10000
	// SearchCountCap is LeadCountCap for a search: a common word matches tens of thousands
	// of leads of a big tenant, and counting them costs more than the page ("1,000+").
	SearchCountCap = 1000
	// maxSearchLen bounds a search term, in characters.
	maxSearchLen = 200
	// minTrigramTerm is the shortest term (in letters and digits) the trigram indexes serve;
	// a shorter one is matched as a prefix of the name, company and email columns.
	minTrigramTerm = 3
)

// The sorts of the lead list. Text keys compare as lowercased bytes on both engines.
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

// ListLeads returns a page of the leads the scope may reach. Every statement starts from
// Scope.leads (or the counters under the same rule) and is served by an index led by
// tenant_id, so a page costs about the same at any depth and any tenant size:
//
//   - the page's ids come from one index range in the sort's order (id, name, company,
//     email, creation time), or, for a master's order (stage, status, source), from the
//     (tenant_id, master, id) index of each master in turn; the names are then read by id;
//   - a search first collects at most SearchCountCap+1 matching ids through the search
//     index (pg_trgm, FTS5 trigram; a short term through the prefix indexes): the count,
//     and the set the page is then read from when it is complete;
//   - otherwise the total comes from lead_counts when only stage and owner filter (exact, a
//     few rows), else from counting at most LeadCountCap+1 matches, or from a last page;
//   - won and lost always come from lead_counts.
func (s Scope) ListLeads(ctx context.Context, q LeadQuery) (*LeadPage, error) {
	srt, err := q.normalise()
	if err != nil {
		return nil, err
	}
	f, err := s.leadFilter(ctx, q)
	if err != nil {
		return nil, err
	}
	var cur *leadCursor
	if q.After != "" {
		if cur, err = decodeLeadCursor(q.After, srt); err != nil {
			return nil, err
		}
		q.Page = 1
	}
	page := &LeadPage{Page: q.Page, Limit: q.Limit}
	counted := false
	if f.none && !explaining(ctx) {
		f, counted = &leadFilter{d: f.d, ids: []int64{}}, true
	}
	if f.search != nil {
		all, err := s.searchMatches(ctx, f.apply(s.leads((*Lead)(nil))).Column("l.id"))
		if err != nil {
			return nil, err
		}
		counted = true
		if all == nil {
			page.Total, page.TotalCapped = SearchCountCap, true
		} else {
			page.Total, f = int64(len(all)), &leadFilter{d: f.d, ids: all}
		}
	}
	var hits []leadHit
	switch {
	case f.ids != nil && len(f.ids) == 0:
	case srt.group != "":
		hits, err = s.leadPageByGroup(ctx, f, srt, cur, q)
	default:
		hits, err = s.leadPageByKey(ctx, f, srt, cur, q)
	}
	if err != nil {
		return nil, err
	}
	if len(hits) > q.Limit {
		hits = hits[:q.Limit]
		last := hits[len(hits)-1]
		page.Next = leadCursor{Sort: srt.name, Desc: srt.desc, Key: last.Key, Group: last.Group, ID: last.ID}.encode()
	}
	if page.Rows, err = s.leadViewsByID(ctx, hits); err != nil {
		return nil, err
	}
	switch {
	case counted:
	case cur == nil && page.Next == "" && (len(hits) > 0 || q.Page == 1) && !explaining(ctx):
		// The last page, reached by offset: the count is known without counting.
		page.Total = int64((q.Page-1)*q.Limit + len(hits))
	case f.countable():
		// One read of the counters for the total, won and lost.
		page.Total, page.Won, page.Lost, err = s.fromCounters(ctx, f)
		return page, err
	default:
		if page.Total, page.TotalCapped, err = s.countLeads(ctx, f); err != nil {
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
// answer (f.countable), the filter's total, in one statement.
func (s Scope) fromCounters(ctx context.Context, f *leadFilter) (total, won, lost int64, err error) {
	var out struct {
		Total int64 `bun:"total"`
		Won   int64 `bun:"won"`
		Lost  int64 `bun:"lost"`
	}
	matches := bun.SafeQuery("1 = 1")
	if f != nil && len(f.q.StageIDs)+len(f.q.OwnerIDs) > 0 {
		stage, owner := bun.SafeQuery("1 = 1"), bun.SafeQuery("1 = 1")
		if len(f.q.StageIDs) > 0 {
			stage = bun.SafeQuery("lc.stage_id IN (?)", bun.In(f.q.StageIDs))
		}
		if len(f.q.OwnerIDs) > 0 {
			owner = bun.SafeQuery("lc.owner_id IN (?)", bun.In(f.q.OwnerIDs))
		}
		matches = bun.SafeQuery("? AND ?", stage, owner)
	}
	err = s.scanList(ctx, s.leadCounts().
		ColumnExpr("CAST(COALESCE(SUM(CASE WHEN ? THEN lc.n ELSE 0 END), 0) AS BIGINT) AS total", matches).
		ColumnExpr("CAST(COALESCE(SUM(CASE WHEN st.is_won THEN lc.n ELSE 0 END), 0) AS BIGINT) AS won").
		ColumnExpr("CAST(COALESCE(SUM(CASE WHEN st.is_lost THEN lc.n ELSE 0 END), 0) AS BIGINT) AS lost").
		Join("LEFT JOIN lead_masters AS st ON st.tenant_id = ? AND st.id = lc.stage_id", s.TenantID), &out)
	return out.Total, out.Won, out.Lost, err
}

// leadCount is one counter of lead_counts: how many leads of a tenant have this stage, owner
// and creator (0 for none). Triggers keep them; the store only reads them.
type leadCount struct {
	bun.BaseModel `bun:"table:lead_counts,alias:lc"`
	Owned

	StageID   int64 `bun:"stage_id,pk"`
	OwnerID   int64 `bun:"owner_id,pk"`
	CreatedBy int64 `bun:"created_by,pk"`
	N         int64 `bun:"n,notnull"`
}

// leadCounts starts a query on the lead counters this scope may reach, under the same rule
// as leads: the tenant's, and only the user's own when their role says "own".
func (s Scope) leadCounts() *bun.SelectQuery {
	q := s.Select((*leadCount)(nil))
	if s.ownLeadsOnly() {
		q = q.Where("(lc.owner_id = ? OR lc.created_by = ?)", s.UserID, s.UserID)
	}
	return q
}

// normalise applies the defaults and checks the sort, order, cursor and search.
func (q *LeadQuery) normalise() (leadSort, error) {
	if q.Page < 1 {
		q.Page = 1
	}
	if q.Limit < 1 || q.Limit > MaxLeadLimit {
		q.Limit = DefaultLeadLimit
	}
	if q.StageID > 0 {
		q.StageIDs = append(slices.Clip(q.StageIDs), q.StageID)
	}
	if q.StatusID > 0 {
		q.StatusIDs = append(slices.Clip(q.StatusIDs), q.StatusID)
	}
	q.Search = strings.TrimSpace(q.Search)
	errs := validate.Errors{}
	errs.Check(utf8.RuneCountInString(q.Search) <= maxSearchLen, "search", validate.KeyMaxLength)
	name := strings.ToLower(strings.TrimSpace(q.Sort))
	srt, ok := leadSorts[name]
	errs.Check(ok, "sort", validate.KeyInvalid)
	switch strings.ToLower(q.Order) {
	case "":
	case "asc":
		srt.desc = false
	case "desc":
		srt.desc = true
	default:
		errs.Add("order", validate.KeyInvalid)
	}
	if len(errs) > 0 {
		return srt, errs
	}
	return srt, nil
}

// leadSort is how one sort orders and pages the leads.
type leadSort struct {
	name string // canonical name, kept in the cursor
	desc bool
	// Key sorts: the key's SQL per dialect (as the index has it), "" for the id alone.
	key map[Dialect]string
	// text reads the key as text for the cursor, and param turns it back into a value.
	text, param map[Dialect]string
	// Group sorts: the master kind whose order ranks the leads, and the lead's column.
	group  MasterKind
	column string
}

func textKey(sqlite, postgres string) leadSort {
	return leadSort{key: map[Dialect]string{SQLite: sqlite, Postgres: postgres},
		text: map[Dialect]string{SQLite: sqlite, Postgres: postgres}, param: map[Dialect]string{SQLite: "?", Postgres: "?"}}
}

var leadSorts = func() map[string]leadSort {
	m := map[string]leadSort{
		"":           {name: SortID, desc: true},
		SortRecent:   {name: SortID, desc: true},
		SortID:       {name: SortID},
		SortCustomer: textKey("lower(l.customer_name)", `lower(l.customer_name) COLLATE "C"`),
		SortCompany:  textKey("lower(l.company_name)", `lower(l.company_name) COLLATE "C"`),
		SortEmail:    textKey("l.company_email", `l.company_email COLLATE "C"`),
		SortCreated: {key: map[Dialect]string{SQLite: "l.created_at", Postgres: "l.created_at"},
			text:  map[Dialect]string{SQLite: "CAST(l.created_at AS TEXT)", Postgres: "CAST(l.created_at AS text)"},
			param: map[Dialect]string{SQLite: "?", Postgres: "CAST(? AS timestamptz)"}},
		SortStage:  {group: KindStage, column: "l.lead_stage_id"},
		SortStatus: {group: KindStatus, column: "l.lead_status_id"},
		SortSource: {group: KindSource, column: "l.lead_source_id"},
	}
	for name, srt := range m {
		if srt.name == "" {
			srt.name = name
			m[name] = srt
		}
	}
	m[SortName] = m[SortCustomer]
	return m
}()

// leadCursor is the position after the last row of a page, handed out as an opaque string.
// Tampering with it can only move the start within the caller's own reachable leads.
type leadCursor struct {
	Sort  string `json:"s"`
	Desc  bool   `json:"d,omitempty"`
	Key   string `json:"k,omitempty"`
	Group int64  `json:"g,omitempty"`
	ID    int64  `json:"i"`
}

func (c leadCursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

var errBadCursor = validate.Errors{"after": validate.KeyInvalid}

// decodeLeadCursor reads a cursor; one made for another sort or order is refused.
func decodeLeadCursor(s string, srt leadSort) (*leadCursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, errBadCursor
	}
	c := &leadCursor{}
	if err := json.Unmarshal(b, c); err != nil || c.Sort != srt.name || c.Desc != srt.desc || c.ID <= 0 {
		return nil, errBadCursor
	}
	return c, nil
}

// leadHit is a lead found for a page, before its names are loaded.
type leadHit struct {
	ID    int64  `bun:"id"`
	Key   string `bun:"k"`
	Group int64  `bun:"-"`
}

// leadPageByKey finds a page of ids ordered by a key column (or the id alone) and the id,
// both in the same direction, so one index range scan serves any page after a cursor.
func (s Scope) leadPageByKey(ctx context.Context, f *leadFilter, srt leadSort, cur *leadCursor, q LeadQuery) ([]leadHit, error) {
	d := s.Dialect()
	dir, cmp := "ASC", ">"
	if srt.desc {
		dir, cmp = "DESC", "<"
	}
	if f.ids != nil && srt.key[d] == "" && !explaining(ctx) {
		return pageOfIDs(f.ids, srt.desc, cur, q), nil
	}
	sel := f.apply(s.leads((*Lead)(nil))).Column("l.id")
	if key := srt.key[d]; key != "" {
		sel = sel.ColumnExpr(srt.text[d] + " AS k")
		switch {
		case cur == nil:
		case d == Postgres: // a row comparison is an index condition on (key, id)
			sel = sel.Where("("+key+", l.id) "+cmp+" ("+srt.param[d]+", ?)", cur.Key, cur.ID)
		default: // SQLite seeks an index on the plain bound (not on a row value over an expression)
			sel = sel.Where(key+" "+cmp+"= ?", cur.Key).
				WhereGroup(" AND ", func(g *bun.SelectQuery) *bun.SelectQuery {
					return g.Where(key+" "+cmp+" ?", cur.Key).WhereOr("l.id "+cmp+" ?", cur.ID)
				})
		}
		sel = sel.OrderExpr(key + " " + dir + ", l.id " + dir)
	} else {
		id := f.idColumn()
		if cur != nil {
			sel = sel.Where(id+" "+cmp+" ?", cur.ID)
		}
		sel = sel.OrderExpr(id + " " + dir)
	}
	sel = sel.Limit(int64(q.Limit + 1))
	if cur == nil && q.Page > 1 {
		sel = sel.Offset(int64((q.Page - 1) * q.Limit))
	}
	var hits []leadHit
	err := s.scanList(ctx, sel, &hits)
	return hits, err
}

// searchMatches collects a search's matching ids in one pass of the search index, at most
// SearchCountCap+1 of them: that is the search's count, and when they are all there the
// page is read from them by id, without matching the term again. It returns nil when there
// are more than SearchCountCap (the count is then capped and the page matches the term).
func (s Scope) searchMatches(ctx context.Context, sel *bun.SelectQuery) ([]int64, error) {
	all := []int64{}
	if err := s.scanList(ctx, sel.Limit(SearchCountCap+1), &all); err != nil {
		return nil, err
	}
	if len(all) > SearchCountCap || explaining(ctx) {
		return nil, nil
	}
	return all, nil
}

// pageOfIDs pages a search's complete matches in id order without asking the database
// again (an IN list of a thousand ids costs PostgreSQL 15 ms to sort): the ids came from
// the scoped query, and a lead deleted since is dropped when the page's rows are read.
func pageOfIDs(ids []int64, desc bool, cur *leadCursor, q LeadQuery) []leadHit {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	if desc {
		slices.Reverse(sorted)
	}
	start := 0
	switch {
	case cur != nil:
		start = len(sorted)
		for i, id := range sorted {
			if (desc && id < cur.ID) || (!desc && id > cur.ID) {
				start = i
				break
			}
		}
	case q.Page > 1:
		start = min((q.Page-1)*q.Limit, len(sorted))
	}
	end := min(start+q.Limit+1, len(sorted))
	hits := make([]leadHit, 0, end-start)
	for _, id := range sorted[start:end] {
		hits = append(hits, leadHit{ID: id})
	}
	return hits
}

// leadPageByGroup pages a sort by a master's order (stage, status, source): the masters are
// few, so it walks them in order and reads each one's leads newest first through the
// (tenant_id, column, id) index, until the page is full.
func (s Scope) leadPageByGroup(ctx context.Context, f *leadFilter, srt leadSort, cur *leadCursor, q LeadQuery) ([]leadHit, error) {
	masters, err := s.Masters(ctx, srt.group)
	if err != nil {
		return nil, err
	}
	groups := make([]int64, 0, len(masters)+1)
	for _, m := range masters {
		groups = append(groups, m.ID)
	}
	if srt.desc {
		slices.Reverse(groups)
	}
	groups = append(groups, 0) // no master: last, both ways
	start := 0
	if cur != nil {
		if start = slices.Index(groups, cur.Group); start < 0 {
			return nil, errBadCursor
		}
	}
	need, skip := q.Limit+1, 0
	if cur == nil {
		skip = (q.Page - 1) * q.Limit
	}
	var hits []leadHit
	for i := start; i < len(groups) && need > 0; i++ {
		g := groups[i]
		if !f.allowsGroup(srt.group, g) {
			continue
		}
		inGroup := func() *bun.SelectQuery {
			sel := f.apply(s.leads((*Lead)(nil)))
			if g == 0 {
				sel = sel.Where(srt.column + " IS NULL")
			} else {
				sel = sel.Where(srt.column+" = ?", g)
			}
			if cur != nil && i == start {
				sel = sel.Where(f.idColumn()+" < ?", cur.ID)
			}
			return sel
		}
		var part []leadHit
		sel := inGroup().Column("l.id").OrderExpr(f.idColumn() + " DESC").Limit(int64(need)).Offset(int64(skip))
		if err := s.scanList(ctx, sel, &part); err != nil {
			return nil, err
		}
		if skip > 0 {
			if len(part) > 0 {
				skip = 0
			} else { // the whole group lies before the page: count it off
				n, err := s.countUpTo(ctx, inGroup(), skip)
				if err != nil {
					return nil, err
				}
				skip -= int(n)
			}
		}
		for j := range part {
			part[j].Group = g
		}
		hits = append(hits, part...)
		need -= len(part)
	}
	return hits, nil
}

// leadViewsByID loads the found leads with their names, in the order found: the rows by id,
// then the names of their masters and users and which have a logo, in one more statement.
// (leadViews' seven joins give the same; PostgreSQL takes ten times longer planning them
// than running them, and a list page is a new statement every time.)
func (s Scope) leadViewsByID(ctx context.Context, hits []leadHit) ([]LeadView, error) {
	ids := make([]int64, len(hits))
	at := make(map[int64]int, len(hits))
	for i, h := range hits {
		ids[i], at[h.ID] = h.ID, i
	}
	if len(ids) == 0 {
		if !explaining(ctx) {
			return []LeadView{}, nil
		}
		ids = []int64{0}
	}
	var rows []LeadView
	if err := s.scanList(ctx, s.leads(&rows).Where("l.id IN (?)", bun.In(ids))); err != nil {
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
	names := s.Select((*leadLogo)(nil)).ColumnExpr("'l' AS kind, ll.lead_id AS id, '' AS name, ? AS is_won, ? AS is_lost", false, false).
		Where("ll.lead_id IN (?)", bun.In(ids))
	if len(masters) > 0 || explaining(ctx) {
		names = names.UnionAll(s.Select((*Master)(nil)).ColumnExpr("'m', m.id, m.name, m.is_won, m.is_lost").
			Where("m.id IN (?)", bun.In(append(masters, 0))))
	}
	if len(users) > 0 || explaining(ctx) {
		names = names.UnionAll(s.Select((*User)(nil)).ColumnExpr("'u', u.id, u.name, ?, ?", false, false).
			Where("u.id IN (?)", bun.In(append(users, 0))))
	}
	var found []struct {
		Kind   string `bun:"kind"`
		ID     int64  `bun:"id"`
		Name   string `bun:"name"`
		IsWon  bool   `bun:"is_won"`
		IsLost bool   `bun:"is_lost"`
	}
	if err := s.scanList(ctx, names, &found); err != nil {
		return nil, err
	}
	type master struct {
		name      string
		won, lost bool
	}
	ms, us, logos := map[int64]master{}, map[int64]string{}, map[int64]bool{}
	for _, f := range found {
		switch f.Kind {
		case "m":
			ms[f.ID] = master{f.Name, f.IsWon, f.IsLost}
		case "u":
			us[f.ID] = f.Name
		case "l":
			logos[f.ID] = true
		}
	}
	name := func(id *int64) master {
		if id == nil {
			return master{}
		}
		return ms[*id]
	}
	user := func(id *int64) string {
		if id == nil {
			return ""
		}
		return us[*id]
	}
	out := make([]LeadView, len(hits))
	n := 0
	for _, r := range rows {
		i, ok := at[r.ID]
		if !ok {
			continue
		}
		stage := name(r.LeadStageID)
		r.LeadStageName, r.LeadStageIsWon, r.LeadStageIsLost = stage.name, stage.won, stage.lost
		r.LeadStatusName, r.LeadSourceName = name(r.LeadStatusID).name, name(r.LeadSourceID).name
		r.LeadTypeName, r.CompanyTypeName = name(r.LeadTypeID).name, name(r.CompanyTypeID).name
		r.CreatedUserName, r.OwnerName, r.HasLogo = user(r.CreatedBy), user(r.OwnerID), logos[r.ID]
		out[i] = r
		n++
	}
	if n != len(hits) { // a lead deleted between the two reads: drop its empty slot
		out = slices.DeleteFunc(out, func(v LeadView) bool { return v.ID == 0 })
	}
	return out, nil
}

// countLeads counts at most LeadCountCap+1 of the leads matching the filters, through the
// indexes (a filter the counters cannot answer).
func (s Scope) countLeads(ctx context.Context, f *leadFilter) (int64, bool, error) {
	n, err := s.countUpTo(ctx, f.apply(s.leads((*Lead)(nil))), LeadCountCap+1)
	if n > LeadCountCap {
		return LeadCountCap, true, err
	}
	return n, false, err
}

// countUpTo counts the rows of a filtered lead query (no columns, order or limit yet),
// stopping at limit.
func (s Scope) countUpTo(ctx context.Context, sel *bun.SelectQuery, limit int) (int64, error) {
	sub := sel.ColumnExpr("1 AS one").Limit(int64(limit))
	var n int64
	err := s.scanList(ctx, s.idb.NewSelect().TableExpr("(?) AS upto", sub).ColumnExpr("count(*)"), &n)
	return n, err
}

// leadFilter is a LeadQuery's filters with the search resolved, ready to add to a query.
type leadFilter struct {
	d      Dialect
	q      LeadQuery
	search *leadSearch
	// ownShare, on SQLite for an "own records" user, is the share of the tenant's leads the
	// user reaches, told to the planner (which only knows the average per user): a user
	// with few leads reads them through the owner and creator indexes, one with many scans
	// the list's order and stops at the page's end.
	ownShare string
	uid      int64
	// ids, when not nil, replaces every filter: the complete matches of a search.
	ids []int64
	// none: a filter names no id of this tenant, so nothing matches.
	none bool
}

// leadSearch is a search term and what it matches besides the lead's own text.
type leadSearch struct {
	term     string  // lowercased
	short    bool    // fewer than minTrigramTerm letters and digits: prefix matching
	id       int64   // the term read as a lead id, or 0
	stages   []int64 // stages whose name matches
	statuses []int64 // statuses whose name matches
}

func (s Scope) leadFilter(ctx context.Context, q LeadQuery) (*leadFilter, error) {
	f := &leadFilter{d: s.Dialect(), q: q}
	if s.ownLeadsOnly() && f.d == SQLite {
		var c struct {
			Mine int64 `bun:"mine"`
			All  int64 `bun:"total"`
		}
		// The tenant's counters, unscoped: only the ratio leaves this function, as a hint.
		err := s.scanList(ctx, s.Select((*leadCount)(nil)).
			ColumnExpr("CAST(COALESCE(SUM(CASE WHEN lc.owner_id = ? OR lc.created_by = ? THEN lc.n ELSE 0 END), 0) AS BIGINT) AS mine", s.UserID, s.UserID).
			ColumnExpr("CAST(COALESCE(SUM(lc.n), 0) AS BIGINT) AS total"), &c)
		if err != nil {
			return nil, err
		}
		share := 1.0
		if c.All > 0 {
			share = max(float64(c.Mine)/float64(c.All), 0.000001)
		}
		f.ownShare, f.uid = strconv.FormatFloat(share, 'f', 6, 64), s.UserID
	}
	if err := s.keepKnownIDs(ctx, f); err != nil {
		return nil, err
	}
	if q.Search == "" {
		return f, nil
	}
	term := strings.ToLower(q.Search)
	alnum := 0
	for _, r := range term {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			alnum++
		}
	}
	ls := &leadSearch{term: term, short: alnum < minTrigramTerm}
	if id, err := strconv.ParseInt(strings.TrimPrefix(term, "#"), 10, 64); err == nil && id > 0 {
		ls.id = id
	}
	// Stage and status names: a handful of rows, matched here so that the lead query gets
	// plain id lists its indexes can serve.
	var ms []Master
	if err := s.scanList(ctx, s.Select(&ms).Where("kind IN (?, ?)", KindStage, KindStatus)); err != nil {
		return nil, err
	}
	for _, m := range ms {
		name := strings.ToLower(m.Name)
		if ls.short && strings.HasPrefix(name, term) || !ls.short && strings.Contains(name, term) {
			if m.Kind == KindStage {
				ls.stages = append(ls.stages, m.ID)
			} else {
				ls.statuses = append(ls.statuses, m.ID)
			}
		}
	}
	f.search = ls
	return f, nil
}

// keepKnownIDs drops the filter ids that are not the tenant's masters of the right kind or
// its users. Such an id matches nothing, but the planner, whose statistics are the whole
// table's, may take another tenant's master for a common one and read a big tenant's leads
// in order looking for it. A filter left with no id matches nothing: f.none.
func (s Scope) keepKnownIDs(ctx context.Context, f *leadFilter) error {
	q := &f.q
	lists := []struct {
		kind MasterKind
		ids  *[]int64
	}{{KindStage, &q.StageIDs}, {KindStatus, &q.StatusIDs}, {KindSource, &q.SourceIDs}, {KindType, &q.TypeIDs}}
	var asked []int64
	for _, l := range lists {
		asked = append(asked, *l.ids...)
	}
	if len(asked) > 0 {
		var ms []Master
		if err := s.scanList(ctx, s.Select(&ms).Column("id", "kind").Where("id IN (?)", bun.In(asked)), &ms); err != nil {
			return err
		}
		for _, l := range lists {
			if len(*l.ids) == 0 {
				continue
			}
			*l.ids = slices.DeleteFunc(slices.Clone(*l.ids), func(id int64) bool {
				return !slices.ContainsFunc(ms, func(m Master) bool { return m.ID == id && m.Kind == l.kind })
			})
			f.none = f.none || len(*l.ids) == 0
		}
	}
	if len(q.OwnerIDs) > 0 {
		var known []int64
		if err := s.scanList(ctx, s.Select((*User)(nil)).Column("id").Where("id IN (?)", bun.In(q.OwnerIDs)), &known); err != nil {
			return err
		}
		q.OwnerIDs = slices.DeleteFunc(slices.Clone(q.OwnerIDs), func(id int64) bool { return !slices.Contains(known, id) })
		f.none = f.none || len(q.OwnerIDs) == 0
	}
	return nil
}

// prefixColumns are the columns a short term matches the start of, per dialect, each with
// an index led by tenant_id.
var prefixColumns = map[Dialect][]string{
	SQLite:   {"lower(l.customer_name)", "lower(l.company_name)", "l.company_email"},
	Postgres: {`lower(l.customer_name) COLLATE "C"`, `lower(l.company_name) COLLATE "C"`, `l.company_email COLLATE "C"`},
}

// maxRune sorts after every character, so [p, p+maxRune) holds exactly the keys starting with p.
const maxRune = "\U0010FFFF"

// apply adds the filters to a query on leads.
func (f *leadFilter) apply(sel *bun.SelectQuery) *bun.SelectQuery {
	if f.ids != nil {
		return sel.Where("l.id IN (?)", bun.In(f.ids))
	}
	q := f.q
	for _, c := range []struct {
		column string
		ids    []int64
	}{{"l.lead_stage_id", q.StageIDs}, {"l.lead_status_id", q.StatusIDs}, {"l.lead_source_id", q.SourceIDs},
		{"l.lead_type_id", q.TypeIDs}, {"l.owner_id", q.OwnerIDs}} {
		switch len(c.ids) {
		case 0:
		case 1:
			sel = sel.Where(c.column+" = ?", c.ids[0])
		default:
			sel = sel.Where(c.column+" IN (?)", bun.In(c.ids))
		}
	}
	d := f.d
	if f.ownShare != "" {
		sel = sel.Where("likelihood((l.owner_id = ? OR l.created_by = ?), "+f.ownShare+")", f.uid, f.uid)
	}
	if !q.CreatedFrom.IsZero() {
		sel = sel.Where("l.created_at >= ?", timeBound(d, q.CreatedFrom))
	}
	if !q.CreatedTo.IsZero() {
		sel = sel.Where("l.created_at < ?", timeBound(d, q.CreatedTo))
	}
	if f.ftsDriven() {
		return sel.Join("JOIN leads_fts ON leads_fts.rowid = l.id").Where("leads_fts MATCH ?", f.search.phrase())
	}
	if ls := f.search; ls != nil {
		sel = sel.WhereGroup(" AND ", func(g *bun.SelectQuery) *bun.SelectQuery {
			switch {
			case ls.short:
				for _, col := range prefixColumns[d] {
					g = g.WhereOr("("+col+" >= ? AND "+col+" < ?)", ls.term, ls.term+maxRune)
				}
			case d == Postgres:
				g = g.WhereOr("l.search_text LIKE ?", "%"+escapeLike(ls.term)+"%")
			default:
				g = g.WhereOr("l.id IN (SELECT rowid FROM leads_fts WHERE leads_fts MATCH ?)", ls.phrase())
			}
			if ls.id > 0 {
				g = g.WhereOr("l.id = ?", ls.id)
			}
			if len(ls.stages) > 0 {
				g = g.WhereOr("l.lead_stage_id IN (?)", bun.In(ls.stages))
			}
			if len(ls.statuses) > 0 {
				g = g.WhereOr("l.lead_status_id IN (?)", bun.In(ls.statuses))
			}
			return g
		})
	}
	return sel
}

// phrase is the term as an FTS5 phrase: a substring of at least three characters.
func (ls *leadSearch) phrase() string { return `"` + strings.ReplaceAll(ls.term, `"`, `""`) + `"` }

// ftsDriven reports whether the search is the trigram index alone (SQLite, a term of three
// letters or more that is no id and names no stage or status), the usual case. The query
// then joins the index and, in id order, reads it newest first (FTS5 keeps rowids in order):
// a page of a common word stops after its rows, where an IN (…) of the matches would
// collect all 25,000 leads of a common surname in a million first.
func (f *leadFilter) ftsDriven() bool {
	ls := f.search
	return f.d == SQLite && ls != nil && !ls.short && ls.id == 0 && len(ls.stages) == 0 && len(ls.statuses) == 0
}

// idColumn is the lead id to order and page by: the index's rowid when the search drives.
func (f *leadFilter) idColumn() string {
	if f.ftsDriven() {
		return "leads_fts.rowid"
	}
	return "l.id"
}

// allowsGroup reports whether leads of master id g (0: none) can pass the filters.
func (f *leadFilter) allowsGroup(kind MasterKind, g int64) bool {
	var ids []int64
	switch kind {
	case KindStage:
		ids = f.q.StageIDs
	case KindStatus:
		ids = f.q.StatusIDs
	case KindSource:
		ids = f.q.SourceIDs
	}
	return len(ids) == 0 || slices.Contains(ids, g)
}

// countable reports whether the counters can answer the count: no filter but stage and owner.
func (f *leadFilter) countable() bool {
	q := f.q
	return f.search == nil && len(q.StatusIDs) == 0 && len(q.SourceIDs) == 0 && len(q.TypeIDs) == 0 &&
		q.CreatedFrom.IsZero() && q.CreatedTo.IsZero()
}

// timeBound is a time as the dialect compares it with created_at: SQLite keeps times as
// text ("2006-01-02 15:04:05…" in UTC), so the bound is text of the same shape.
func timeBound(d Dialect, t time.Time) any {
	if d == SQLite {
		return t.UTC().Format("2006-01-02 15:04:05.999999")
	}
	return t.UTC()
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// explainKey marks a context whose list queries are explained instead of run.
type explainKey struct{}

type explainLog struct{ plans []string }

func explaining(ctx context.Context) bool {
	_, ok := ctx.Value(explainKey{}).(*explainLog)
	return ok
}

// scanList runs a query of the lead list, or, under ExplainListLeads, records its plan.
func (s Scope) scanList(ctx context.Context, sel *bun.SelectQuery, dest ...any) error {
	x, ok := ctx.Value(explainKey{}).(*explainLog)
	if !ok {
		return sel.Scan(ctx, dest...)
	}
	query := sel.String()
	prefix := "EXPLAIN QUERY PLAN "
	if s.Dialect() == Postgres {
		prefix = "EXPLAIN "
	}
	rows, err := s.idb.QueryContext(ctx, prefix+query)
	if err != nil {
		return fmt.Errorf("explain %s: %w", query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	var plan strings.Builder
	plan.WriteString(query + "\n")
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		fmt.Fprintf(&plan, "  %v\n", vals[len(vals)-1]) // the detail is the last column
	}
	x.plans = append(x.plans, plan.String())
	return rows.Err()
}

// ExplainListLeads returns the query plan of every statement ListLeads runs for q, each
// headed by its SQL, without running them: EXPLAIN on PostgreSQL, EXPLAIN QUERY PLAN on
// SQLite. The CI check and operators use it to see that each one is served by an index.
func (s Scope) ExplainListLeads(ctx context.Context, q LeadQuery) ([]string, error) {
	x := &explainLog{}
	_, err := s.ListLeads(context.WithValue(ctx, explainKey{}, x), q)
	return x.plans, err
}
