package store

import (
	"context"
	"slices"
	"strings"

	"github.com/uptrace/bun"
)

// Reading a page's ids for the lists' paging (list.go): by a sort's key or the id through
// one index range, by a master's order through each master's index range, or from a
// search's complete matches in Go.

// pageHits reads a page's hits and one more, in reading order (nearest the cursor first).
func (s Scope) pageHits(ctx context.Context, l listSpec, r *listRequest, cur *listCursor, back bool) ([]listHit, error) {
	switch {
	case l.ids != nil && len(l.ids) == 0:
		return nil, nil
	case r.srt.group != "":
		return s.pageByGroup(ctx, l, r, cur)
	}
	return s.pageByKey(ctx, l, r, cur, back)
}

// pageByKey finds a page of ids ordered by the sort's key and the id, both in the same
// direction, so one index range scan serves any page: after the cursor, or, reading
// backwards, before it (the rows then come nearest the cursor first).
func (s Scope) pageByKey(ctx context.Context, l listSpec, r *listRequest, cur *listCursor, back bool) ([]listHit, error) {
	d := s.Dialect()
	desc := r.srt.desc != back
	dir, cmp := "ASC", ">"
	if desc {
		dir, cmp = "DESC", "<"
	}
	key := r.srt.key[d]
	if l.ids != nil && key == "" && !explaining(ctx) {
		return pageOfIDs(l.ids, desc, cur, r.page, r.limit), nil
	}
	sel := l.rows().Column(l.id)
	id := l.id
	if key != "" {
		sel = sel.ColumnExpr(r.srt.text[d] + " AS k")
	} else {
		id = l.idOrder()
	}
	var bound *boundIDs
	if cur != nil {
		after := *cur
		if key == "" {
			after.ID = l.orderBound(cur.ID)
		}
		if d == Postgres {
			// The cursor goes apart from the text, so every next page of a list is one text,
			// planned once a connection rather than at each page (docs/PERFORMANCE.md,
			// "Thirty-seventh round").
			bound = s.boundIDs()
		}
		sel = keysetAfter(sel, d, key, r.srt.param[d], id, cmp, &after, bound)
	}
	if key != "" {
		sel = sel.OrderExpr(key + " " + dir + ", " + id + " " + dir)
	} else {
		sel = sel.OrderExpr(id + " " + dir)
	}
	sel = sel.Limit(int64(r.limit + 1))
	if cur == nil && r.page > 1 {
		sel = sel.Offset(int64((r.page - 1) * r.limit))
	}
	hits := make([]listHit, 0, r.limit+1) // the page and one more, without growing
	err := s.scanList(bound.ctx(ctx), sel, &hits)
	return hits, err
}

// keysetAfter keeps the rows past a cursor in a (key, id) order (cmp ">" ascending, "<"
// descending), in the form each engine seeks an index on: a row comparison on PostgreSQL;
// on SQLite, which seeks on a plain bound but not on a row value over an expression, the
// key's bound and then the tie on the id. key "" orders by the id alone. With bound
// (PostgreSQL), the cursor's key and id are sent apart from the text (boundIDs.arg).
func keysetAfter(sel *bun.SelectQuery, d Dialect, key, param, id, cmp string, cur *listCursor, bound *boundIDs) *bun.SelectQuery {
	var args []any
	switch {
	case key == "":
		return sel.Where(id+" "+cmp+" "+bound.arg(cur.ID, &args), args...)
	case d == Postgres:
		k := strings.Replace(param, "?", bound.arg(cur.Key, &args), 1)
		return sel.Where("("+key+", "+id+") "+cmp+" ("+k+", "+bound.arg(cur.ID, &args)+")", args...)
	}
	return sel.Where(key+" "+cmp+"= ?", cur.Key).
		WhereGroup(" AND ", func(g *bun.SelectQuery) *bun.SelectQuery {
			return g.Where(key+" "+cmp+" ?", cur.Key).WhereOr(id+" "+cmp+" ?", cur.ID)
		})
}

// pageOfIDs pages a complete set of matching ids in id order (desc: newest first) without
// asking the database again (an IN list of a thousand ids costs PostgreSQL 15 ms to sort):
// the ids came from the scoped query, and a row deleted since is dropped when the page's
// rows are read. It returns the page and one more, past cur when given, else from the
// offset page.
func pageOfIDs(ids []int64, desc bool, cur *listCursor, page, limit int) []listHit {
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
	case page > 1:
		start = min((page-1)*limit, len(sorted))
	}
	end := min(start+limit+1, len(sorted))
	hits := make([]listHit, 0, end-start)
	for _, id := range sorted[start:end] {
		hits = append(hits, listHit{ID: id})
	}
	return hits
}

// pageByGroup pages a sort by a master's order (stage, status, source): the masters are
// few, so it walks them in order and reads each one's rows newest first through the
// (tenant_id, column, id) index, until the page is full.
func (s Scope) pageByGroup(ctx context.Context, l listSpec, r *listRequest, cur *listCursor) ([]listHit, error) {
	srt := r.srt
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
			return nil, cursorError("after")
		}
	}
	need, skip := r.limit+1, 0
	if cur == nil {
		skip = (r.page - 1) * r.limit
	}
	id := l.idOrder()
	var hits []listHit
	for i := start; i < len(groups) && need > 0; i++ {
		g := groups[i]
		if l.allows != nil && !l.allows(srt.group, g) {
			continue
		}
		inGroup := func() *bun.SelectQuery {
			sel := l.rows()
			if g == 0 {
				sel = sel.Where(srt.column + " IS NULL")
			} else {
				sel = sel.Where(srt.column+" = ?", g)
			}
			if cur != nil && i == start {
				sel = sel.Where(id+" < ?", l.orderBound(cur.ID))
			}
			return sel
		}
		var part []listHit
		sel := inGroup().Column(l.id).OrderExpr(id + " DESC").Limit(int64(need)).Offset(int64(skip))
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
