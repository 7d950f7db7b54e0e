package store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
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

// SearchCountCap is the most a list's search counts: a common word matches tens of
// thousands of rows of a big tenant, and counting them costs more than the page ("1,000+").
const SearchCountCap = 1000

// listSort is how one sort of a list orders and pages its rows: by a key and then the id,
// both in the sort's direction (one index range, (tenant_id, key, id), serves any page), by
// the id alone, or by a master's order (group sorts).
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
	// where adds the filters and the search to a query from from; nil: none.
	where func(*bun.SelectQuery) *bun.SelectQuery
	// search: where holds a search term, so its matches are collected first (at most
	// SearchCountCap+1, through the search index) for the count and, when complete, the page.
	search bool
	// none: a filter names nothing of the tenant's, so nothing matches.
	none bool
	// orderID is the id column an order by the id alone reads, when not id: the search
	// index's rowid when the search drives the query.
	orderID string
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
	if l.where == nil {
		return l.from()
	}
	return l.where(l.from())
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
//   - a search first collects at most SearchCountCap+1 matching ids through the search
//     index: the count ("1,000+" beyond), and, when complete, the set the page is cut from;
//   - the page's ids (and one more, to know there is a next page) come from one index range
//     in the sort's order (forwards after a cursor, backwards before one), or, for a group
//     sort, from the (tenant_id, column, id) index of each master in turn;
//   - a Before that reaches the start with less than a page serves the first page instead;
//   - the last page reached from the start tells the total.
func (s Scope) findPage(ctx context.Context, l listSpec, r *listRequest) (*foundPage, error) {
	p := &foundPage{}
	switch {
	case l.none && !explaining(ctx):
		l, p.counted = l.only([]int64{}), true
	case l.search:
		all, err := s.searchMatches(ctx, l.rows().Column(l.id))
		if err != nil {
			return nil, err
		}
		p.counted = true
		if all == nil {
			p.total, p.capped = SearchCountCap, true
		} else {
			p.total, l = int64(len(all)), l.only(all)
		}
	}
	cur, back := r.cur, r.back
	hits, err := s.pageHits(ctx, l, r, cur, back)
	if err != nil {
		return nil, err
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

// searchMatches collects a search's matching ids in one pass of the search index, at most
// SearchCountCap+1 of them: that is the search's count, and when they are all there the
// page is read from them by id, without matching the term again. It returns nil when there
// are more than SearchCountCap (the count is then capped and the page matches the term).
func (s Scope) searchMatches(ctx context.Context, sel *bun.SelectQuery) ([]int64, error) {
	all := []int64{}
	if err := s.scanList(ctx, sel.Limit(SearchCountCap+1), &all); err != nil {
		return nil, err
	}
	if _, capped := capAt(int64(len(all)), SearchCountCap); capped || explaining(ctx) {
		return nil, nil
	}
	return all, nil
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
