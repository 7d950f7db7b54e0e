package store

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"crm/app/auth"
	"crm/app/validate"
)

// The client list: the lead list's machinery (leads_list.go) over the clients — search
// through a trigram index, sorts served by indexes led by tenant_id, keyset paging both
// ways, counts that are exact while cheap and capped beyond — and its bulk actions.

// Client list limits: those of the lead list.
const (
	DefaultClientLimit = DefaultLeadLimit
	MaxClientLimit     = MaxLeadLimit
	// ClientCountCap is the most a filtered count counts ("10,000+"); a search stops at
	// SearchCountCap ("1,000+").
	ClientCountCap = LeadCountCap
)

// SortCompanyShort is the client list's older name of SortCompany ("company"), kept for the API.
const SortCompanyShort = "company"

// ClientSorts lists the sort names ListClients accepts, besides the aliases SortName
// (SortCustomer) and SortCompanyShort (SortCompany).
var ClientSorts = []string{SortRecent, SortID, SortCustomer, SortCompany, SortCreated}

// clientSorts are the client list's sorts; text keys compare as lowercased bytes on both
// engines, as the (tenant_id, key, id) indexes of sql/*/20261122000008_client_list hold them.
var clientSorts = func() map[string]leadSort {
	named := func(name string, s leadSort) leadSort { s.name = name; return s }
	m := map[string]leadSort{
		"":           {name: SortID, desc: true},
		SortRecent:   {name: SortID, desc: true},
		SortID:       {name: SortID},
		SortCustomer: named(SortCustomer, textKey("lower(c.customer_name)", `lower(c.customer_name) COLLATE "C"`)),
		SortCompany:  named(SortCompany, textKey("lower(c.company_name)", `lower(c.company_name) COLLATE "C"`)),
		SortCreated: {name: SortCreated, key: map[Dialect]string{SQLite: "c.created_at", Postgres: "c.created_at"},
			text:  map[Dialect]string{SQLite: "CAST(c.created_at AS TEXT)", Postgres: "CAST(c.created_at AS text)"},
			param: map[Dialect]string{SQLite: "?", Postgres: "CAST(? AS timestamptz)"}},
	}
	m[SortName] = m[SortCustomer]
	m[SortCompanyShort] = m[SortCompany]
	return m
}()

// clientPrefixColumns are the columns a short search term matches the start of, each with
// an index led by tenant_id.
var clientPrefixColumns = map[Dialect][]string{
	SQLite:   {"lower(c.customer_name)", "lower(c.company_name)", "c.company_email"},
	Postgres: {`lower(c.customer_name) COLLATE "C"`, `lower(c.company_name) COLLATE "C"`, `c.company_email COLLATE "C"`},
}

// ClientQuery selects a page of the clients a scope may reach.
//
// Paging is by keyset: After holds the Next of an earlier page, Before the Prev of a later
// one (with the same sort and order); without either, Page pages by offset (as the API
// always has). An empty filter does not filter.
type ClientQuery struct {
	Page   int    // 1-based page for offset paging; ignored when After or Before is set
	Limit  int    // rows per page, 1..MaxClientLimit; DefaultClientLimit otherwise
	Search string // case-insensitive over id, customer, company, email and phone
	Sort   string // one of ClientSorts, SortName or SortCompanyShort; "" is SortRecent
	Order  string // "asc" or "desc"; "" is desc for SortRecent and asc for the others
	After  string // keyset cursor: ClientPage.Next of the previous page
	Before string // keyset cursor: ClientPage.Prev of the following page

	OwnerIDs    []int64
	Converted   *bool     // true: clients linked to the lead they were converted from; false: the others
	CreatedFrom time.Time // created at or after this instant; zero: no bound
	CreatedTo   time.Time // created before this instant; zero: no bound
}

// ClientPage is one page of clients.
type ClientPage struct {
	Rows []ClientView
	// Total counts every client that matches: exact when it is cheap (from the per-day
	// counters when no filter but the creation days applies, or when the count stays within
	// ClientCountCap, SearchCountCap for a search), else that cap with TotalCapped set.
	Total       int64
	TotalCapped bool
	Next        string // the After of the following page; "" on the last page
	Prev        string // the Before of the previous page; "" on the first page
	Page        int    // the page served (1 when paging by keyset)
	Limit       int    // the page size served
}

// ListClients returns a page of the clients the scope may reach. Every statement starts
// from Scope.clients (or the counters under the same rule) and is served by an index led by
// tenant_id, as ListLeads's are: the page's ids come from one index range in the sort's
// order, read forwards after a cursor or backwards before one; a search first collects at
// most SearchCountCap+1 matching ids through the search index (pg_trgm, FTS5 trigram; a short
// term through the prefix indexes); the total comes from client_day_counts when only the
// creation days filter, else from counting at most ClientCountCap+1 matches, or from a last page.
func (s Scope) ListClients(ctx context.Context, q ClientQuery) (*ClientPage, error) {
	srt, err := q.normalise()
	if err != nil {
		return nil, err
	}
	f, err := s.clientFilter(ctx, q)
	if err != nil {
		return nil, err
	}
	var cur *leadCursor
	back := q.Before != ""
	if q.After != "" || back {
		if cur, err = decodeLeadCursor(q.After+q.Before, srt); err != nil {
			if back {
				return nil, validate.Errors{"before": validate.KeyInvalid}
			}
			return nil, err
		}
		q.Page = 1
	}
	page := &ClientPage{Page: q.Page, Limit: q.Limit}
	counted := false
	if f.none && !explaining(ctx) {
		f, counted = &clientFilter{d: f.d, ids: []int64{}}, true
	}
	if f.search != nil {
		all, err := s.searchMatches(ctx, f.apply(s.clients((*Client)(nil))).Column("c.id"))
		if err != nil {
			return nil, err
		}
		counted = true
		if all == nil {
			page.Total, page.TotalCapped = SearchCountCap, true
		} else {
			page.Total, f = int64(len(all)), &clientFilter{d: f.d, ids: all}
		}
	}
	var hits []leadHit
	if f.ids == nil || len(f.ids) > 0 {
		if hits, err = s.clientPageByKey(ctx, f, srt, cur, back, q); err != nil {
			return nil, err
		}
	}
	more := len(hits) > q.Limit
	if more {
		hits = hits[:q.Limit]
	}
	cursor := func(h leadHit) string {
		return leadCursor{Sort: srt.name, Desc: srt.desc, Key: h.Key, ID: h.ID}.encode()
	}
	switch {
	case back && !more && len(hits) < q.Limit:
		// Back at the start with less than a page: serve the first page instead.
		q.Before, cur, back = "", nil, false
		if hits, err = s.clientPageByKey(ctx, f, srt, nil, false, q); err != nil {
			return nil, err
		}
		if len(hits) > q.Limit {
			hits = hits[:q.Limit]
			page.Next = cursor(hits[len(hits)-1])
		}
	case back:
		slices.Reverse(hits) // read backwards from the cursor
		if len(hits) > 0 {
			page.Next = cursor(hits[len(hits)-1])
			if more {
				page.Prev = cursor(hits[0])
			}
		}
	default:
		if more {
			page.Next = cursor(hits[len(hits)-1])
		}
		if len(hits) > 0 && (cur != nil || q.Page > 1) {
			page.Prev = cursor(hits[0])
		}
	}
	if page.Rows, err = s.clientViewsByID(ctx, hits); err != nil {
		return nil, err
	}
	switch {
	case counted:
	case cur == nil && page.Next == "" && (len(hits) > 0 || q.Page == 1) && !explaining(ctx):
		// The last page, reached from the start: the count is known without counting.
		page.Total = int64((q.Page-1)*q.Limit + len(hits))
	default:
		if page.Total, page.TotalCapped, err = s.countClients(ctx, f); err != nil {
			return nil, err
		}
	}
	return page, nil
}

// normalise applies the defaults and checks the sort, order, cursors and search.
func (q *ClientQuery) normalise() (leadSort, error) {
	if q.Page < 1 {
		q.Page = 1
	}
	if q.Limit < 1 || q.Limit > MaxClientLimit {
		q.Limit = DefaultClientLimit
	}
	q.Search = strings.TrimSpace(q.Search)
	errs := validate.Errors{}
	errs.Check(utf8.RuneCountInString(q.Search) <= maxSearchLen, "search", validate.KeyMaxLength)
	srt, ok := clientSorts[strings.ToLower(strings.TrimSpace(q.Sort))]
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
	errs.Check(q.After == "" || q.Before == "", "before", validate.KeyInvalid)
	if len(errs) > 0 {
		return srt, errs
	}
	return srt, nil
}

// clientFilter is a ClientQuery's filters with the search resolved, ready to add to a query.
type clientFilter struct {
	d      Dialect
	q      ClientQuery
	search *searchTerm
	// ids, when not nil, replaces every filter: the complete matches of a search.
	ids []int64
	// none: an owner filter names no user of this tenant, so nothing matches.
	none bool
}

// searchTerm is a list search as the indexes serve it.
type searchTerm struct {
	term  string // lowercased
	short bool   // fewer than minTrigramTerm letters and digits: prefix matching
	id    int64  // the term read as an id ("42" or "#42"), or 0
}

// parseSearch reads a search term (already trimmed; "" is no search).
func parseSearch(raw string) *searchTerm {
	if raw == "" {
		return nil
	}
	st := &searchTerm{term: strings.ToLower(raw)}
	alnum := 0
	for _, r := range st.term {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			alnum++
		}
	}
	st.short = alnum < minTrigramTerm
	if id, err := strconv.ParseInt(strings.TrimPrefix(st.term, "#"), 10, 64); err == nil && id > 0 {
		st.id = id
	}
	return st
}

// phrase is the term as an FTS5 phrase: a substring of at least three characters.
func (st *searchTerm) phrase() string { return `"` + strings.ReplaceAll(st.term, `"`, `""`) + `"` }

func (s Scope) clientFilter(ctx context.Context, q ClientQuery) (*clientFilter, error) {
	f := &clientFilter{d: s.Dialect(), q: q, search: parseSearch(q.Search)}
	if len(q.OwnerIDs) > 0 {
		// An id that is no user of the tenant matches nothing: left out, so the planner never
		// looks for another tenant's user among this tenant's clients.
		var known []int64
		if err := s.scanList(ctx, s.Select((*User)(nil)).Column("id").Where("id IN (?)", bun.In(q.OwnerIDs)), &known); err != nil {
			return nil, err
		}
		f.q.OwnerIDs = slices.DeleteFunc(slices.Clone(q.OwnerIDs), func(id int64) bool { return !slices.Contains(known, id) })
		f.none = len(f.q.OwnerIDs) == 0
	}
	return f, nil
}

// apply adds the filters to a query on clients.
func (f *clientFilter) apply(sel *bun.SelectQuery) *bun.SelectQuery {
	if f.ids != nil {
		return sel.Where("c.id IN (?)", bun.In(f.ids))
	}
	q, d := f.q, f.d
	switch len(q.OwnerIDs) {
	case 0:
	case 1:
		sel = sel.Where("c.owner_id = ?", q.OwnerIDs[0])
	default:
		sel = sel.Where("c.owner_id IN (?)", bun.In(q.OwnerIDs))
	}
	if q.Converted != nil {
		if *q.Converted {
			sel = sel.Where("c.lead_id IS NOT NULL")
		} else {
			sel = sel.Where("c.lead_id IS NULL")
		}
	}
	if !q.CreatedFrom.IsZero() {
		sel = sel.Where("c.created_at >= ?", timeBound(d, q.CreatedFrom))
	}
	if !q.CreatedTo.IsZero() {
		sel = sel.Where("c.created_at < ?", timeBound(d, q.CreatedTo))
	}
	if st := f.search; st != nil {
		sel = sel.WhereGroup(" AND ", func(g *bun.SelectQuery) *bun.SelectQuery {
			switch {
			case st.short:
				for _, col := range clientPrefixColumns[d] {
					g = g.WhereOr("("+col+" >= ? AND "+col+" < ?)", st.term, st.term+maxRune)
				}
			case d == Postgres:
				g = g.WhereOr("c.search_text LIKE ?", "%"+escapeLike(st.term)+"%")
			default:
				g = g.WhereOr("c.id IN (SELECT rowid FROM clients_fts WHERE clients_fts MATCH ?)", st.phrase())
			}
			if st.id > 0 {
				g = g.WhereOr("c.id = ?", st.id)
			}
			return g
		})
	}
	return sel
}

// countable reports whether the per-day counters can answer the count: no filter but the
// creation days (whole UTC days).
func (f *clientFilter) countable() bool {
	q := f.q
	day := func(t time.Time) bool { return t.IsZero() || t.UTC().Truncate(24*time.Hour).Equal(t) }
	return f.search == nil && f.ids == nil && len(q.OwnerIDs) == 0 && q.Converted == nil && day(q.CreatedFrom) && day(q.CreatedTo)
}

// countClients counts the clients matching the filters: from client_day_counts when they
// can answer (exact, a row per day at most), else at most ClientCountCap+1 rows through
// the indexes.
func (s Scope) countClients(ctx context.Context, f *clientFilter) (int64, bool, error) {
	if f.countable() {
		sel := s.clientDays().ColumnExpr("CAST(COALESCE(SUM(cdc.n), 0) AS BIGINT)")
		if !f.q.CreatedFrom.IsZero() {
			sel = sel.Where("cdc.day >= ?", f.q.CreatedFrom.UTC().Format(DayLayout))
		}
		if !f.q.CreatedTo.IsZero() {
			sel = sel.Where("cdc.day < ?", f.q.CreatedTo.UTC().Format(DayLayout))
		}
		var n int64
		err := s.scanList(ctx, sel, &n)
		return n, false, err
	}
	n, err := s.countUpTo(ctx, f.apply(s.clients((*Client)(nil))), ClientCountCap+1)
	if n > ClientCountCap {
		return ClientCountCap, true, err
	}
	return n, false, err
}

// clientPageByKey finds a page of ids (and one more) ordered by the sort's key and the id,
// both in the same direction, so one index range scan serves any page: after the cursor,
// or, reading backwards, before it (the rows then come nearest the cursor first).
func (s Scope) clientPageByKey(ctx context.Context, f *clientFilter, srt leadSort, cur *leadCursor, back bool, q ClientQuery) ([]leadHit, error) {
	d := s.Dialect()
	dir, cmp := "ASC", ">"
	if srt.desc != back {
		dir, cmp = "DESC", "<"
	}
	sel := f.apply(s.clients((*Client)(nil))).Column("c.id")
	key := srt.key[d]
	if key != "" {
		sel = sel.ColumnExpr(srt.text[d] + " AS k")
	}
	if cur != nil {
		sel = keysetAfter(sel, d, key, srt.param[d], "c.id", cmp, cur)
	}
	if key != "" {
		sel = sel.OrderExpr(key + " " + dir + ", c.id " + dir)
	} else {
		sel = sel.OrderExpr("c.id " + dir)
	}
	sel = sel.Limit(int64(q.Limit + 1))
	if cur == nil && q.Page > 1 {
		sel = sel.Offset(int64((q.Page - 1) * q.Limit))
	}
	var hits []leadHit
	err := s.scanList(ctx, sel, &hits)
	return hits, err
}

// keysetAfter keeps the rows past a cursor in a (key, id) order (cmp ">" ascending, "<"
// descending), in the form each engine seeks an index on: a row comparison on PostgreSQL;
// on SQLite, which seeks on a plain bound but not on a row value over an expression, the
// key's bound and then the tie on the id. key "" orders by the id alone.
func keysetAfter(sel *bun.SelectQuery, d Dialect, key, param, id, cmp string, cur *leadCursor) *bun.SelectQuery {
	switch {
	case key == "":
		return sel.Where(id+" "+cmp+" ?", cur.ID)
	case d == Postgres:
		return sel.Where("("+key+", "+id+") "+cmp+" ("+param+", ?)", cur.Key, cur.ID)
	}
	return sel.Where(key+" "+cmp+"= ?", cur.Key).
		WhereGroup(" AND ", func(g *bun.SelectQuery) *bun.SelectQuery {
			return g.Where(key+" "+cmp+" ?", cur.Key).WhereOr(id+" "+cmp+" ?", cur.ID)
		})
}

// clientViewsByID loads the found clients with their names, in the order found.
func (s Scope) clientViewsByID(ctx context.Context, hits []leadHit) ([]ClientView, error) {
	ids := make([]int64, len(hits))
	at := make(map[int64]int, len(hits))
	for i, h := range hits {
		ids[i], at[h.ID] = h.ID, i
	}
	if len(ids) == 0 {
		if !explaining(ctx) {
			return []ClientView{}, nil
		}
		ids = []int64{0}
	}
	var rows []ClientView
	if err := s.scanList(ctx, s.clientViews(&rows).Where("c.id IN (?)", bun.In(ids))); err != nil {
		return nil, err
	}
	out := make([]ClientView, len(hits))
	n := 0
	for _, r := range rows {
		if i, ok := at[r.ID]; ok {
			out[i] = r
			n++
		}
	}
	if n != len(hits) { // a client deleted between the two reads: drop its empty slot
		out = slices.DeleteFunc(out, func(v ClientView) bool { return v.ID == 0 })
	}
	return out, nil
}

// ExplainListClients returns the query plan of every statement ListClients runs for q,
// each headed by its SQL, without running them (as ExplainListLeads).
func (s Scope) ExplainListClients(ctx context.Context, q ClientQuery) ([]string, error) {
	x := &explainLog{}
	_, err := s.ListClients(context.WithValue(ctx, explainKey{}, x), q)
	return x.plans, err
}

// --- Bulk actions --------------------------------------------------------------------

// BulkSetClientOwner gives the reachable clients among ids to owner in one transaction,
// each change recorded in the client's journey as an edit is; clients the scope cannot
// reach, and those the owner has already, are skipped. It returns how many changed. A user
// limited to their own clients can only give them to themselves.
func (s Scope) BulkSetClientOwner(ctx context.Context, ids []int64, owner int64) (int, error) {
	switch {
	case len(ids) == 0:
		return 0, validate.Errors{"ids": validate.KeyRequired}
	case len(ids) > MaxBulk:
		return 0, validate.Errors{"ids": validate.KeyMaxLength}
	case owner <= 0:
		return 0, validate.Errors{"owner_id": validate.KeyRequired}
	}
	changed := 0
	err := s.Tx(ctx, func(tx Scope) error {
		errs := validate.Errors{}
		if err := tx.checkOwner(ctx, auth.FeatureClients, &owner, errs); err != nil {
			return err
		}
		if len(errs) > 0 {
			return errs
		}
		var olds []Client
		if err := tx.clients(&olds).Where("c.id IN (?)", bun.In(ids)).OrderExpr("c.id").Scan(ctx); err != nil {
			return err
		}
		now := time.Now().UTC()
		for i := range olds {
			old := &olds[i]
			if old.OwnerID != nil && *old.OwnerID == owner {
				continue
			}
			next := *old
			next.OwnerID, next.UpdatedAt = &owner, now
			if _, err := tx.Update(&next).Column("owner_id", "updated_at").WherePK().Exec(ctx); err != nil {
				return err
			}
			if err := tx.Record(ctx, "client", old.ID, "update", old, &next); err != nil {
				return err
			}
			changed++
		}
		return nil
	})
	return changed, err
}

// DeleteClients deletes the reachable clients among ids, each recorded as DeleteClient
// does, in one transaction; it returns the ids it deleted (others are skipped), ErrNotFound
// when none could be.
func (s Scope) DeleteClients(ctx context.Context, ids []int64) ([]int64, error) {
	return s.deleteEach(ctx, ids, Scope.DeleteClient)
}
