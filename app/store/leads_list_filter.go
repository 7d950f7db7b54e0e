package store

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bun"
)

// The lead list's filters and search, resolved into what the lists' paging (list.go) asks
// of a list: the leads a scope may reach, filtered.

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
	tenant   int64
	// none: a filter names no id of this tenant, so nothing matches.
	none bool
	// firstLead is the tenant's lowest lead id, as a subquery: where the FTS5 table drives a
	// search, its read starts there instead of at the first match of every older tenant.
	firstLead *bun.SelectQuery
}

// leadSearch is a search term and what it matches besides the lead's own text.
type leadSearch struct {
	searchTerm
	stages   []int64 // stages whose name matches
	statuses []int64 // statuses whose name matches
}

// leadText is how the leads' text is searched: the trigram indexes over l.search_text
// (leads_search_idx on PostgreSQL, leads_fts on SQLite) and, for a short term, the name,
// company and email indexes.
var leadText = textSearch{model: (*Lead)(nil), id: "l.id", text: "l.search_text", fts: LeadEntity.searchIndex(),
	prefix: []string{"lower(l.customer_name)", "lower(l.company_name)", "l.company_email"}}

// spec is the filtered leads as the lists' paging reads them.
func (f *leadFilter) spec(s Scope) listSpec {
	l := listSpec{from: func() *bun.SelectQuery { return s.leads((*Lead)(nil)) }, id: "l.id",
		where: f.filter, search: f.search != nil, none: f.none, allows: f.allowsGroup}
	if f.search != nil {
		l.match = func(sel *bun.SelectQuery, b *boundIDs) *bun.SelectQuery { return f.match(sel, false, b) }
		if ls := f.search; !ls.narrowed || len(ls.stages) > 0 || len(ls.statuses) > 0 {
			// (A stage's or status's name it matches may make a rare text a common search.)
			l.walk = func(sel *bun.SelectQuery) *bun.SelectQuery { return f.match(sel, true, nil) }
		}
	}
	if f.ftsDriven() {
		l.orderID, l.orderScale, l.driven = leadText.rowID(), searchRowidScale, true
		l.matches = func() *bun.SelectQuery { return leadText.matches(s.idb.NewSelect(), &f.search.searchTerm, f.firstLead) }
		l.check = func(sel *bun.SelectQuery) *bun.SelectQuery { return leadText.check(sel, &f.search.searchTerm) }
	}
	return l
}

// leadFilter checks and normalises a query's paging (as q.normalise), and resolves its
// filters and search.
func (s Scope) leadFilter(ctx context.Context, q LeadQuery) (*leadFilter, *listRequest, error) {
	r, err := q.normalise()
	if err != nil {
		return nil, nil, err
	}
	f := &leadFilter{d: s.Dialect(), q: q}
	if f.d == SQLite {
		f.firstLead = s.Select((*Lead)(nil)).ColumnExpr("MIN(l.id)")
	}
	if s.ownLeadsOnly() && f.d == SQLite {
		var c struct {
			Mine int64 `bun:"mine"`
			All  int64 `bun:"total"`
		}
		// The tenant's counters and the user's (lead_user_counts), unscoped: only the ratio
		// leaves this function, as a hint.
		err = s.scanList(ctx, s.Select((*leadUserCount)(nil)).Where("luc.user_id IN (0, ?)", s.UserID).
			ColumnExpr("CAST(COALESCE(SUM(CASE WHEN luc.user_id = ? THEN luc.n ELSE 0 END), 0) AS BIGINT) AS mine", s.UserID).
			ColumnExpr("CAST(COALESCE(SUM(CASE WHEN luc.user_id = 0 THEN luc.n ELSE 0 END), 0) AS BIGINT) AS total"), &c)
		if err != nil {
			return nil, nil, err
		}
		share := 1.0
		if c.All > 0 {
			share = max(float64(c.Mine)/float64(c.All), 0.000001)
		}
		f.ownShare, f.uid, f.tenant = strconv.FormatFloat(share, 'f', 6, 64), s.UserID, s.TenantID
	}
	if err := s.keepKnownIDs(ctx, f); err != nil {
		return nil, nil, err
	}
	st := parseSearch(q.Search)
	if st == nil {
		return f, r, nil
	}
	if err := s.narrowSearch(ctx, leadText, st); err != nil {
		return nil, nil, err
	}
	ls, term := &leadSearch{searchTerm: *st}, st.text
	// Stage and status names: a handful of rows, matched here so that the lead query gets
	// plain id lists its indexes can serve.
	var ms []Master
	if err := s.scanList(ctx, s.Select(&ms).Where("kind IN (?, ?)", KindStage, KindStatus)); err != nil {
		return nil, nil, err
	}
	for _, m := range ms {
		name := fold(m.Name)
		if ls.short && strings.HasPrefix(name, term) || !ls.short && strings.Contains(name, term) {
			if m.Kind == KindStage {
				ls.stages = append(ls.stages, m.ID)
			} else {
				ls.statuses = append(ls.statuses, m.ID)
			}
		}
	}
	f.search = ls
	return f, r, nil
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
		if err := s.scanKnown(ctx, s.Select(&ms).Column("id", "kind").Where("id IN (?)", bun.In(asked))); err != nil {
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
		var err error
		if q.OwnerIDs, err = s.knownUsers(ctx, q.OwnerIDs); err != nil {
			return err
		}
		f.none = f.none || len(q.OwnerIDs) == 0
	}
	return nil
}

// filter adds the filters but the search to a query on leads.
func (f *leadFilter) filter(sel *bun.SelectQuery) *bun.SelectQuery {
	q := f.q
	sel = whereIn(sel, "l.lead_stage_id", q.StageIDs)
	sel = whereIn(sel, "l.lead_status_id", q.StatusIDs)
	sel = whereIn(sel, "l.lead_source_id", q.SourceIDs)
	sel = whereIn(sel, "l.lead_type_id", q.TypeIDs)
	sel = whereIn(sel, "l.owner_id", q.OwnerIDs)
	if f.ownShare != "" && !f.ftsDriven() {
		// (Not when the FTS5 table drives: told that a tenth of the leads are the user's,
		// SQLite reads the whole tenant and looks each lead up in the FTS5 table — 5–20 s for
		// a common word at a million, against 20 ms newest first through the table.)
		sel = sel.Where("likelihood((l.owner_id = ? OR l.created_by = ?), "+f.ownShare+")", f.uid, f.uid)
		// And the tenant a small share of the table, whatever its statistics say: a tenant's
		// leads are not spread evenly over the ids, those of the tenants created since come
		// after them, and a scan of the table newest first (which the planner takes when the
		// tenant is most of the table) reads all of those before the first of the user's.
		// Told this, SQLite walks the tenant's index in id order (TestOwnListWalksItsTenantNotTheTable).
		sel = sel.Where("likelihood(l.tenant_id = ?, 0.05)", f.tenant)
	}
	return whereCreated(sel, f.d, "l.created_at", q.CreatedFrom, q.CreatedTo)
}

// match adds the search to a query on leads (or on rows of leads aliased l); walked: to rows
// read in id order and filtered; bound: its patterns sent apart (textSearch.where).
func (f *leadFilter) match(sel *bun.SelectQuery, walked bool, bound *boundIDs) *bun.SelectQuery {
	ls := f.search
	if f.ftsDriven() {
		return leadText.join(sel, &ls.searchTerm, f.firstLead)
	}
	return leadText.where(sel, f.d, &ls.searchTerm, walked, bound, func(g *bun.SelectQuery) *bun.SelectQuery {
		if len(ls.stages) > 0 {
			g = g.WhereOr("l.lead_stage_id IN (?)", bun.In(ls.stages))
		}
		if len(ls.statuses) > 0 {
			g = g.WhereOr("l.lead_status_id IN (?)", bun.In(ls.statuses))
		}
		return g
	})
}

// ftsDriven reports whether the search is the trigram index alone (SQLite, a term of three
// letters or more that is no id and names no stage or status), the usual case. The query
// then joins the index and, in id order, reads it newest first (FTS5 keeps rowids in order):
// a page of a common word stops after its rows, where an IN (…) of the matches would
// collect all 25,000 leads of a common surname in a million first.
func (f *leadFilter) ftsDriven() bool {
	ls := f.search
	return ls != nil && leadText.canDrive(f.d, &ls.searchTerm) && len(ls.stages) == 0 && len(ls.statuses) == 0
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

// countable reports whether the counters can answer the count: no filter but stage, status
// and owner.
func (f *leadFilter) countable() bool {
	q := f.q
	return f.search == nil && len(q.SourceIDs) == 0 && len(q.TypeIDs) == 0 &&
		q.CreatedFrom.IsZero() && q.CreatedTo.IsZero()
}
