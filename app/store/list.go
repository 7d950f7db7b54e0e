package store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"crm/app/validate"
)

// The machinery every list of the store pages with (ListLeads, ListClients): sorts served
// by an index led by tenant_id, keyset cursors both ways, offset pages, the search's
// complete matches as the page's source, and counts that are exact while cheap and capped
// beyond. A list brings only its table, filters and search (a listSpec) and its sorts (a
// listSorts table); the rest is here:
//
//	r, err := pageArgs{…the query's paging fields…}.request(sorts, defaultLimit, maxLimit)
//	found, err := s.findPage(ctx, spec, r)  // the page's ids, cursors, and the total when known
//	rows, err := readHits(ctx, found.hits, …) // the rows, in the page's order
//	if !found.counted { total, capped, err = s.countCapped(ctx, spec.rows(), countCap) }
//
// list_pages.go reads a page's ids, list_search.go has the search term, its indexes and the
// filter helpers, list_explain.go the plans.

// SearchCountCap is the most a list's search counts ("100+"): a common word matches tens of
// thousands of rows of a big tenant, and proving more than a hundred of them is all a walk
// newest first can afford (the probe, searchMatches); counting a thousand cost more than the
// page.
const SearchCountCap = 100

const (
	// searchCollect is the most matching ids a search collects through the search index when
	// its probe does not settle the count: up to it, the complete set is the page's source
	// (no walk in the sort's order for a rarer term), beyond it the page walks.
	searchCollect = 1000
	// searchWindow is how many of the newest filtered rows a probe reads at most on
	// PostgreSQL, whatever the estimate that sent it there said.
	searchWindow = 20000
)

// listSort is how one sort of a list orders and pages its rows: by a key and then the id,
// both in the sort's direction (one index range serves any page: (tenant_id, key, id), or
// on PostgreSQL for the leads' text keys (tenant_id, key), deduplicated, with each run of
// equal keys ordered by id in an incremental sort), by the id alone, or by a master's
// order (group sorts).
type listSort struct {
	name string // canonical name, kept in the cursor
	desc bool
	// Key sorts: the key's SQL per dialect (as the index has it), "" for the id alone.
	key map[Dialect]string
	// text reads the key as text for the cursor, and param turns it back into a value.
	text, param map[Dialect]string
	// Group sorts: the master kind whose order ranks the rows, and the row's column; the
	// rows without a master come last both ways, and rows within a master newest first.
	group  MasterKind
	column string
}

// collated is a text expression as the indexes hold it: compared as bytes on both engines
// (COLLATE "C" on PostgreSQL; SQLite's default collation already is).
func collated(d Dialect, expr string) string {
	if d == Postgres {
		return expr + ` COLLATE "C"`
	}
	return expr
}

// textKey sorts by a text expression, compared as bytes (lower(x) for a case-insensitive key).
func textKey(expr string) listSort {
	k := map[Dialect]string{SQLite: collated(SQLite, expr), Postgres: collated(Postgres, expr)}
	return listSort{key: k, text: k, param: map[Dialect]string{SQLite: "?", Postgres: "?"}}
}

// timeKey sorts by a timestamp column.
func timeKey(col string) listSort {
	return listSort{key: map[Dialect]string{SQLite: col, Postgres: col},
		text:  map[Dialect]string{SQLite: "CAST(" + col + " AS TEXT)", Postgres: "CAST(" + col + " AS text)"},
		param: map[Dialect]string{SQLite: "?", Postgres: "CAST(? AS timestamptz)"}}
}

// groupKey sorts by the order of a master kind, held in column.
func groupKey(kind MasterKind, column string) listSort { return listSort{group: kind, column: column} }

// listSorts is a list's sorts by the name a query gives ("" included).
type listSorts map[string]listSort

// newListSorts completes a list's own sorts (each named after its entry, ascending) with
// the ones every list has: "" and SortRecent (the id, newest first) and SortID (the id,
// oldest first); aliases name an entry under another name.
func newListSorts(own map[string]listSort, aliases map[string]string) listSorts {
	m := listSorts{"": {name: SortID, desc: true}, SortRecent: {name: SortID, desc: true}, SortID: {name: SortID}}
	for name, srt := range own {
		srt.name = name
		m[name] = srt
	}
	for alias, name := range aliases {
		m[alias] = m[name]
	}
	return m
}

// listCursor is the position after the last row of a page (or, as a Prev, before the first),
// handed out as an opaque string. Tampering with it can only move the start within the
// caller's own reachable rows.
type listCursor struct {
	Sort  string `json:"s"`
	Desc  bool   `json:"d,omitempty"`
	Key   string `json:"k,omitempty"`
	Group int64  `json:"g,omitempty"`
	ID    int64  `json:"i"`
}

func (c listCursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// cursorError is the refusal of a cursor given as field ("after" or "before").
func cursorError(field string) error { return validate.Errors{field: validate.KeyInvalid} }

// decodeCursor reads a cursor given as field; one made for another sort or order is refused.
func decodeCursor(s string, srt listSort, field string) (*listCursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, cursorError(field)
	}
	c := &listCursor{}
	if err := json.Unmarshal(b, c); err != nil || c.Sort != srt.name || c.Desc != srt.desc || c.ID <= 0 {
		return nil, cursorError(field)
	}
	return c, nil
}

// pageArgs are a list query's paging, sort and search fields as the caller gave them.
type pageArgs struct {
	Page          int    // 1-based offset page; ignored with a cursor
	Limit         int    // rows per page
	Search        string // the search term, "" for none
	Sort, Order   string // a name of the list's sorts; "asc", "desc" or "" (the sort's own)
	After, Before string // cursors: the Next of an earlier page, the Prev of a later one
}

// listRequest is a list query's paging, checked and normalised by pageArgs.request.
type listRequest struct {
	page, limit int
	search      string // trimmed
	srt         listSort
	cur         *listCursor // the After or Before cursor, nil for none
	back        bool        // reading backwards from a Before cursor
}

// MaxPage is the last page an offset can reach: a page number from a query string is
// capped here so that (page-1)*limit cannot overflow.
const MaxPage = 1_000_000

// request applies the defaults (page 1; the limit def unless within 1..maxLimit), trims the
// search and checks its length, resolves the sort and order, and reads the cursor. Errors
// on the arguments come first, all together; a bad cursor is refused after, on its own.
// Group sorts page forwards only: a Before cursor on one is refused.
func (a pageArgs) request(sorts listSorts, def, maxLimit int) (*listRequest, error) {
	r := &listRequest{page: min(max(a.Page, 1), MaxPage), limit: a.Limit, search: strings.TrimSpace(a.Search)}
	if r.limit < 1 || r.limit > maxLimit {
		r.limit = def
	}
	errs := validate.Errors{}
	errs.Check(utf8.RuneCountInString(r.search) <= maxSearchLen, "search", validate.KeyMaxLength)
	srt, ok := sorts[strings.ToLower(strings.TrimSpace(a.Sort))]
	errs.Check(ok, "sort", validate.KeyInvalid)
	switch strings.ToLower(a.Order) {
	case "":
	case "asc":
		srt.desc = false
	case "desc":
		srt.desc = true
	default:
		errs.Add("order", validate.KeyInvalid)
	}
	errs.Check(a.After == "" || a.Before == "", "before", validate.KeyInvalid)
	errs.Check(a.Before == "" || srt.group == "", "before", validate.KeyInvalid)
	if len(errs) > 0 {
		return nil, errs
	}
	r.srt = srt
	var err error
	switch {
	case a.After != "":
		r.cur, err = decodeCursor(a.After, srt, "after")
	case a.Before != "":
		r.cur, err = decodeCursor(a.Before, srt, "before")
		r.back = true
	}
	if err != nil {
		return nil, err
	}
	if r.cur != nil {
		r.page = 1
	}
	return r, nil
}

// listSpec is what a list gives the generic paging: the rows a scope may reach, with the
// list's filters and search resolved.
type listSpec struct {
	from func() *bun.SelectQuery // the rows the scope may reach, e.g. s.leads((*Lead)(nil))
	id   string                  // the table's id column, e.g. "l.id"
	// where adds the filters to a query from from, and the search too unless match is set;
	// nil: none.
	where func(*bun.SelectQuery) *bun.SelectQuery
	// match, when set, adds the search alone (where then holds the other filters), to a query
	// whose rows carry the table's alias: a probe (searchMatches) reads the filtered rows
	// newest first and matches them itself. With b, the values it can send apart from the
	// text are added to b (a narrowed term's patterns, on PostgreSQL: the statement that
	// collects a search's matches); with nil they are written in.
	match func(sel *bun.SelectQuery, b *boundIDs) *bun.SelectQuery
	// walk is match for rows read in id order and filtered (the probe), where no index
	// serves the search; set with match, except for a term the tenant's sample already says
	// is rare (searchTerm.narrowed), which never walks.
	walk func(*bun.SelectQuery) *bun.SelectQuery
	// search: the query holds a search term, so its count comes first (searchMatches): a
	// probe of the newest matches, or the matches collected through the search index.
	search bool
	// driven: the rows in idOrder come from the search index itself (SQLite's FTS5 join), so
	// a probe newest first reads only matches, and one that stops short found them all.
	driven bool
	// matches, set with driven, reads the search index alone: the ids it matches from the
	// tenant's first row on, forwards (a superset of the list's matches: other tenants'
	// rows and the filters are not sifted out, nor, for a narrowed term, the rows that hold
	// only its chosen trigrams: check does that).
	matches func() *bun.SelectQuery
	// check, set with matches, keeps the rows of a query on the table that hold the term.
	check func(*bun.SelectQuery) *bun.SelectQuery
	// none: a filter names nothing of the tenant's, so nothing matches.
	none bool
	// orderID is the id column an order by the id alone reads, when not id: the search
	// index's rowid when the search drives the query, which is the id times orderScale.
	orderID    string
	orderScale int64
	// allows, for a group sort, reports whether rows of master g (0: none) can pass the
	// filters, so the walk skips the others; nil: all can.
	allows func(kind MasterKind, g int64) bool
	// ids, when not nil, is the complete set of matching ids (a search's): it replaces
	// every filter.
	ids []int64
}

// rows starts a query on the matching rows.
func (l listSpec) rows() *bun.SelectQuery {
	if l.ids != nil {
		return l.from().Where(l.id+" IN (?)", bun.In(l.ids))
	}
	sel := l.filtered()
	if l.match != nil {
		sel = l.match(sel, nil)
	}
	return sel
}

// filtered starts a query on the rows the filters keep, the search left out.
func (l listSpec) filtered() *bun.SelectQuery {
	if l.where != nil {
		return l.where(l.from())
	}
	return l.from()
}

// only is the spec with the filters replaced by a complete set of matching ids.
func (l listSpec) only(ids []int64) listSpec {
	return listSpec{from: l.from, id: l.id, ids: ids}
}

// idOrder is the id column an order by the id alone reads.
func (l listSpec) idOrder() string {
	if l.orderID != "" {
		return l.orderID
	}
	return l.id
}

// orderBound is id as the id order's column holds it: a cursor's id is compared with that.
func (l listSpec) orderBound(id int64) int64 {
	if l.orderScale > 0 {
		return id * l.orderScale
	}
	return id
}

// listHit is a row found for a page, before the row itself is read.
type listHit struct {
	ID    int64  `bun:"id"`
	Key   string `bun:"k"`
	Group int64  `bun:"-"`
}

// foundPage is a page as findPage finds it: its hits in order, the cursors of the pages
// around it, and the total when it is known without counting.
type foundPage struct {
	hits       []listHit
	next, prev string // "" on the last page, the first page
	total      int64
	capped     bool
	counted    bool // total is known: a search's count, an empty filter's, or the last page's
}

// findPage finds a page of a list, by the request's cursor or offset page:
//
//   - a filter that matches nothing reads nothing;
//   - a search is counted first (searchMatches): up to SearchCountCap ("100+" beyond), from
//     a probe of the newest matches, which then serves the first pages newest first too, or
//     from the matches collected through the search index, which, when complete, are the
//     set the page is cut from;
//   - the page's ids (and one more, to know there is a next page) come from one index range
//     in the sort's order (forwards after a cursor, backwards before one), or, for a group
//     sort, from the (tenant_id, column, id) index of each master in turn;
//   - a Before that reaches the start with less than a page serves the first page instead;
//   - the last page reached from the start tells the total.
func (s Scope) findPage(ctx context.Context, l listSpec, r *listRequest) (*foundPage, error) {
	p := &foundPage{}
	var newest []int64 // a search's first matches newest first, when its probe found them
	switch {
	case l.none && !explaining(ctx):
		l, p.counted = l.only([]int64{}), true
	case l.search:
		m, err := s.searchMatches(ctx, l)
		if err != nil {
			return nil, err
		}
		p.counted, p.total, p.capped, newest = true, m.total, m.capped, m.newest
		if m.all != nil {
			l = l.only(m.all)
		}
	}
	cur, back := r.cur, r.back
	hits, ok := pageOfNewest(newest, r, cur, back)
	if !ok {
		var err error
		if hits, err = s.pageHits(ctx, l, r, cur, back); err != nil {
			return nil, err
		}
	}
	more := len(hits) > r.limit
	if more {
		hits = hits[:r.limit]
	}
	cursor := func(h listHit) string {
		return listCursor{Sort: r.srt.name, Desc: r.srt.desc, Key: h.Key, Group: h.Group, ID: h.ID}.encode()
	}
	switch {
	case back && !more && len(hits) < r.limit:
		// Back at the start with less than a page: serve the first page instead.
		cur, back = nil, false
		var err error
		if hits, err = s.pageHits(ctx, l, r, nil, false); err != nil {
			return nil, err
		}
		if len(hits) > r.limit {
			hits = hits[:r.limit]
			p.next = cursor(hits[len(hits)-1])
		}
	case back:
		slices.Reverse(hits) // read backwards from the cursor
		if len(hits) > 0 {
			p.next = cursor(hits[len(hits)-1])
			if more {
				p.prev = cursor(hits[0])
			}
		}
	default:
		if more {
			p.next = cursor(hits[len(hits)-1])
		}
		if len(hits) > 0 && (cur != nil || r.page > 1) {
			p.prev = cursor(hits[0])
		}
	}
	if !p.counted && cur == nil && p.next == "" && (len(hits) > 0 || r.page == 1) && !explaining(ctx) {
		// The last page, reached from the start: the count is known without counting.
		p.total, p.counted = int64((r.page-1)*r.limit+len(hits)), true
	}
	p.hits = hits
	return p, nil
}

// searchFound is a search's count as searchMatches settles it.
type searchFound struct {
	total  int64
	capped bool    // more than SearchCountCap match: total is SearchCountCap ("100+")
	all    []int64 // every match, when collected (at most searchCollect); nil otherwise
	newest []int64 // the first SearchCountCap+1 matches newest first, when the probe found them
}

// searchMatches counts a search up to SearchCountCap without reading every match of a
// common word:
//
//   - the probe reads the filtered rows newest first and stops at the SearchCountCap+1-th
//     match: on SQLite the FTS5 table drives it (matches only, so a probe that stops short
//     found them all); on PostgreSQL it walks the newest searchWindow filtered rows in id
//     order (a LIMIT keeps the planner from the trigram index, whose bitmap of a common
//     word's 50,000 matches costs more than the whole request), and runs only when the
//     planner expects SearchCountCap+1 matches twice over in that window — a rarer term
//     is cheaper through the trigram index;
//   - otherwise the matches are collected through the search index, at most
//     searchCollect+1: the count, and the complete set when they are all there (the page is
//     then cut from them by id, without matching the term again).
func (s Scope) searchMatches(ctx context.Context, l listSpec) (*searchFound, error) {
	ids, probed, complete, err := s.searchProbe(ctx, l)
	switch {
	case err != nil:
		return nil, err
	case len(ids) > SearchCountCap, probed && explaining(ctx):
		// (Explained, the probe stands for a count it settles: its plan is the one checked.)
		return &searchFound{total: SearchCountCap, capped: true, newest: ids}, nil
	case complete:
		return &searchFound{total: int64(len(ids)), all: ids}, nil
	}
	all := []int64{}
	collect, cctx := l.rows(), ctx
	if l.match != nil && l.ids == nil {
		// One text for every rare term (textSearch.where), planned once a connection.
		b := s.boundIDs()
		collect = l.match(l.filtered(), b)
		cctx = b.ctx(ctx)
	}
	if err := s.scanList(cctx, collect.Column(l.id).Limit(searchCollect+1), &all); err != nil {
		return nil, err
	}
	if explaining(ctx) {
		return &searchFound{total: SearchCountCap, capped: true}, nil
	}
	f := &searchFound{}
	f.total, f.capped = capAt(int64(len(all)), SearchCountCap)
	if len(all) <= searchCollect {
		f.all = all
	}
	return f, nil
}

// searchProbe reads a search's first SearchCountCap+1 matches newest first, when that is
// cheap (searchMatches): probed reports that it did, complete that they are every match.
// Explained, the planner's estimate is asked all the same, so the plans are those that run.
func (s Scope) searchProbe(ctx context.Context, l listSpec) (ids []int64, probed, complete bool, err error) {
	switch {
	case l.driven:
		// FTS5 reads a doclist backwards at about twice the cost of forwards (each page is
		// walked forwards first to find its entries' offsets): a rare term's few matches cost
		// 6 ms forwards against 12 ms newest first at a million leads. So the search index
		// alone is read forwards first, at most SearchCountCap+1 of its matches: fewer are
		// every match, which the filters then sift by id; more, a common word, whose newest
		// are then read backwards with the filters, stopping as soon as there are enough.
		// (Explained, both statements are: the plans are those that may run.)
		var first []int64
		if err = s.scanList(ctx, l.matches().Limit(SearchCountCap+1), &first); err != nil {
			return nil, false, false, err
		}
		if len(first) <= SearchCountCap && !explaining(ctx) {
			ids = []int64{}
			if len(first) > 0 {
				err = s.scanList(ctx, l.check(l.filtered()).Column(l.id).Where(l.id+" IN (?)", bun.In(first)).OrderExpr(l.id+" DESC"), &ids)
			}
			return ids, true, true, err
		}
		sel := l.rows().Column(l.id).OrderExpr(l.idOrder() + " DESC").Limit(SearchCountCap + 1)
		err = s.scanList(ctx, sel, &ids)
		return ids, true, len(ids) <= SearchCountCap, err
	case s.Dialect() != Postgres || l.walk == nil:
		// (No walk: a term whose rarest trigrams are in under 1 % of the sampled texts
		// cannot match the tenth of the window a walk needs, so the planner is not asked
		// whether to walk it. That EXPLAIN tried the term's LIKE on each of search_text's
		// 1,000 histogram entries, about 1 ms at each new term; docs/PERFORMANCE.md
		// "Thirty-seventh round".)
		return nil, false, false, nil
	}
	alias, _, _ := strings.Cut(l.id, ".")
	window := l.filtered().OrderExpr(l.id + " DESC").Limit(searchWindow)
	probe := l.walk(s.idb.NewSelect().TableExpr("(?) AS ?", window, bun.Ident(alias))).
		Column(l.id).OrderExpr(l.id + " DESC").Limit(SearchCountCap + 1)
	if expected, err := s.estimateRows(ctx, probe); err != nil || expected < 2*(SearchCountCap+1) {
		return nil, false, false, err
	}
	err = s.scanList(ctx, probe, &ids)
	return ids, true, false, err
}

// estimateRows is the planner's estimate of the rows a query's first step that is no limit
// or sort returns (PostgreSQL, EXPLAIN without running it), or the same asked less than
// estimateTTL ago (estimates.go). Explained, the planner is always asked.
func (s Scope) estimateRows(ctx context.Context, sel *bun.SelectQuery) (float64, error) {
	query, now := sel.String(), time.Now()
	if rows, ok := s.db.estimates.get(query, now); ok && !explaining(ctx) {
		return rows, nil
	}
	var out []byte
	if err := s.idb.QueryRowContext(ctx, "EXPLAIN (FORMAT JSON) "+query).Scan(&out); err != nil {
		return 0, err
	}
	type node struct {
		Type  string  `json:"Node Type"`
		Rows  float64 `json:"Plan Rows"`
		Plans []node  `json:"Plans"`
	}
	var plans []struct {
		Plan node `json:"Plan"`
	}
	if err := json.Unmarshal(out, &plans); err != nil || len(plans) == 0 {
		return 0, fmt.Errorf("estimate: %w", err)
	}
	n := plans[0].Plan
	for (n.Type == "Limit" || n.Type == "Sort" || n.Type == "Incremental Sort") && len(n.Plans) > 0 {
		n = n.Plans[0]
	}
	s.db.estimates.put(query, n.Rows, now)
	return n.Rows, nil
}

// pageOfNewest cuts a page from a search's first matches newest first (searchFound.newest),
// when the page is sorted newest first and lies within them with one more after it; ok
// false otherwise.
func pageOfNewest(newest []int64, r *listRequest, cur *listCursor, back bool) (hits []listHit, ok bool) {
	if newest == nil || back || r.srt.key != nil || r.srt.group != "" || !r.srt.desc {
		return nil, false
	}
	start := (r.page - 1) * r.limit
	if cur != nil {
		start = len(newest)
		for i, id := range newest {
			if id < cur.ID {
				start = i
				break
			}
		}
	}
	if start+r.limit+1 > len(newest) {
		return nil, false
	}
	for _, id := range newest[start : start+r.limit+1] {
		hits = append(hits, listHit{ID: id})
	}
	return hits, true
}

// readHits reads the rows of a page's hits by their ids with read, and returns them in the
// hits' order; a row deleted between the two reads is left out. With no hits it reads
// nothing (under ExplainList*, read is asked for id 0, so its statements are explained).
func readHits[V any](ctx context.Context, hits []listHit, id func(*V) int64, read func(ids []int64) ([]V, error)) ([]V, error) {
	ids := make([]int64, len(hits))
	at := make(map[int64]int, len(hits))
	for i, h := range hits {
		ids[i], at[h.ID] = h.ID, i
	}
	if len(ids) == 0 {
		if !explaining(ctx) {
			return []V{}, nil
		}
		ids = []int64{0}
	}
	rows, err := read(ids)
	if err != nil {
		return nil, err
	}
	out := make([]V, len(hits))
	found := make([]bool, len(hits))
	n := 0
	for j := range rows {
		if i, ok := at[id(&rows[j])]; ok && !found[i] {
			out[i], found[i] = rows[j], true
			n++
		}
	}
	if n != len(hits) { // drop the empty slots
		kept := out[:0]
		for i := range out {
			if found[i] {
				kept = append(kept, out[i])
			}
		}
		out = kept
	}
	return out, nil
}

// capAt is a count as a list shows it: n, or most and true beyond it ("10,000+").
func capAt(n int64, most int) (int64, bool) {
	if n > int64(most) {
		return int64(most), true
	}
	return n, false
}

// countCapped counts the rows of a filtered query (no columns, order or limit yet) up to
// most+1, through the indexes: the total is then exact up to most, else most with capped
// set (LeadCountCap, ClientCountCap: "10,000+").
func (s Scope) countCapped(ctx context.Context, sel *bun.SelectQuery, most int) (total int64, capped bool, err error) {
	n, err := s.countUpTo(ctx, sel, most+1)
	total, capped = capAt(n, most)
	return total, capped, err
}

// countUpTo counts the rows of a filtered query (no columns, order or limit yet), stopping
// at limit.
func (s Scope) countUpTo(ctx context.Context, sel *bun.SelectQuery, limit int) (int64, error) {
	sub := sel.ColumnExpr("1 AS one").Limit(int64(limit))
	var n int64
	err := s.scanList(ctx, s.idb.NewSelect().TableExpr("(?) AS upto", sub).ColumnExpr("count(*)"), &n)
	return n, err
}
