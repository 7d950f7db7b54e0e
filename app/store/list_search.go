package store

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// A list's search and filters, as the indexes serve them: the term matched as a substring
// through the trigram indexes (PostgreSQL pg_trgm on search_text, SQLite an FTS5 trigram
// table over it), a short term as the start of the prefix columns, a number as an id.

const (
	// maxSearchLen bounds a search term, in characters.
	maxSearchLen = 200
	// minTrigramTerm is the shortest term (in letters and digits) the trigram indexes serve;
	// a shorter one is matched as a prefix of the prefix columns.
	minTrigramTerm = 3
)

// maxRune sorts after every character, so [p, p+maxRune) holds exactly the keys starting with p.
const maxRune = "\U0010FFFF"

// searchTerm is a list search as the indexes serve it.
type searchTerm struct {
	term  string // lowercased, for the prefix columns (lowercased, not folded)
	text  string // folded (fold), for search_text (written folded)
	short bool   // fewer than minTrigramTerm letters and digits: prefix matching
	id    int64  // the term read as an id ("42" or "#42"), or 0
	// fts is what SQLite's FTS5 index is asked ("": the phrase) and narrowed says it is a
	// few of the term's trigrams, which rows may hold without the term (narrowSearch).
	fts      string
	narrowed bool
	// likes are the trigrams PostgreSQL's trigram index is asked for instead of the term's
	// words, each a LIKE '%abc%': the term's rarest (narrowed), or the rarest of each of
	// its words (chooseWordTrigrams), which may still be a common search and walk.
	likes []string
}

// parseSearch reads a search term (already trimmed; "" is no search).
func parseSearch(raw string) *searchTerm {
	if raw == "" {
		return nil
	}
	st := &searchTerm{term: strings.ToLower(raw), text: fold(raw)}
	alnum := 0
	for _, r := range st.term {
		if isWordRune(r) {
			alnum++
		}
	}
	st.short = alnum < minTrigramTerm
	if id, err := strconv.ParseInt(strings.TrimPrefix(st.term, "#"), 10, 64); err == nil && id > 0 {
		st.id = id
	}
	return st
}

// wordsPattern is the LIKE pattern the trigram index is asked for a term of several words
// (PostgreSQL), or "" when that is the term itself. pg_trgm splits text into words at every
// character that is no letter or digit and pads each word, so the pattern of "mateo.silva7276"
// holds "eo " and " si": trigrams of every word that ends in "eo" or starts with "si", among
// the longest posting lists of the index, each read for every search. Between two words of
// three letters or digits or more, the separator becomes "%" (as does one before the first
// or after the last such word), leaving the words' inner trigrams; that matches a superset
// of the rows, which the caller checks against the whole term. A word of one or two
// characters keeps its separators: its padded trigrams are all it gives the index
// (measured in docs/PERFORMANCE.md, "Fourth round (2026-11-26): separators in a search term").
func (st *searchTerm) wordsPattern() string {
	// The term as alternating runs: words and the separators between them.
	type run struct {
		text string
		word bool
		n    int // runes
	}
	var runs []run
	for _, r := range st.text {
		w := isWordRune(r)
		if len(runs) == 0 || runs[len(runs)-1].word != w {
			runs = append(runs, run{word: w})
		}
		last := &runs[len(runs)-1]
		last.text += string(r)
		last.n++
	}
	long := func(i int) bool { return i < 0 || i >= len(runs) || runs[i].word && runs[i].n >= minTrigramTerm }
	var b strings.Builder
	b.WriteString("%")
	loosened := false
	for i, r := range runs {
		switch {
		case r.word:
			b.WriteString(r.text)
		case long(i-1) && long(i+1):
			// A separator between long words (or the term's edge and a long word): dropped.
			if i > 0 && i < len(runs)-1 {
				b.WriteString("%")
			}
			loosened = true
		default:
			b.WriteString(escapeLike(r.text))
		}
	}
	b.WriteString("%")
	if !loosened || len(runs) == 1 { // (one run: separators alone, no word)
		return ""
	}
	return b.String()
}

// ftsQuery is what the FTS5 index is asked: the term as a phrase (a substring of at least
// three characters), or the trigrams it was narrowed to.
func (st *searchTerm) ftsQuery() string {
	if st.fts != "" {
		return st.fts
	}
	return ftsString(st.text)
}

// searchRowidScale is what SQLite's search indexes multiply a record's id by to make its
// rowid there (the triggers of migration 20261128600000 write id × 2), so the index keeps
// the records in id order with a gap between neighbours. The gap is for FTS5's tombstones:
// a delete from a contentless index marks the rowid in a hash kept with its segment, at
// slot (rowid / pages) % slots with linear probing, so the consecutive ids an import
// creates and then updates or undoes filled runs of neighbouring slots, and every lookup
// that landed in a run walked it. A merge looks up every entry it copies: after 100,000
// consecutive leads changed at a million, the tidy's steps took 24 s, searches 4–6 times
// longer until then; with the ids doubled, 6 s (docs/PERFORMANCE.md, "Twenty-third round").
// The index grew by 3 %.
const searchRowidScale = 2

// textSearch is how a list's table is searched, each part through an index led by tenant_id.
type textSearch struct {
	model  any      // the table's model, for its tenant's rows (Scope.Select): (*Lead)(nil)
	id     string   // the id column: "l.id"
	text   string   // the lowercased search text column (PostgreSQL's trigram index): "l.search_text"
	fts    string   // SQLite's FTS5 trigram table over it, rowid the id × searchRowidScale: "leads_fts"
	prefix []string // the text expressions a short term matches the start of, compared as bytes
}

// where keeps the rows the term matches: the text (a short term: the start of a prefix
// column) or the id; or, with more (which adds its own WhereOr), what that matches too.
//
// On PostgreSQL a term of several words is asked of the trigram index as its words alone
// (wordsPattern), or as the rarest trigram of each word when the tenant's sample says that
// reads far less of the index (chooseWordTrigrams), and each row it returns is then checked
// against the whole term; walked says the rows are read in id order and filtered instead (a
// probe), where the term as it is costs least and gives the planner its best estimate.
//
// With bound, the trigrams a term is asked as (likes) go apart from the text
// (boundIDs.arg), so that the statement is one text whatever the term, planned once a
// connection: written in, each new term's probe spent 2.6–5.4 ms planning, the planner
// trying each pattern on every entry of search_text's 1,000-entry histogram
// (docs/PERFORMANCE.md, "Thirty-seventh round").
func (ts textSearch) where(sel *bun.SelectQuery, d Dialect, st *searchTerm, walked bool, bound *boundIDs, more func(*bun.SelectQuery) *bun.SelectQuery) *bun.SelectQuery {
	return sel.WhereGroup(" AND ", func(g *bun.SelectQuery) *bun.SelectQuery {
		switch {
		case st.short:
			for _, expr := range ts.prefix {
				col := collated(d, expr)
				g = g.WhereOr("("+col+" >= ? AND "+col+" < ?)", st.term, st.term+maxRune)
			}
		case d == Postgres && len(st.likes) > 0 && !walked:
			// The index is asked for the rarest trigrams (of the term, or of each of its
			// words), each row then for the whole term.
			var args []any
			cond := ""
			for _, t := range st.likes {
				cond += ts.text + " LIKE " + bound.arg("%"+t+"%", &args) + " AND "
			}
			g = g.WhereOr("("+cond+"strpos("+ts.text+", "+bound.arg(st.text, &args)+") > 0)", args...)
		case d == Postgres:
			if loose := st.wordsPattern(); loose != "" && !walked {
				// The index is asked for the words, each row then for the whole term.
				g = g.WhereOr("("+ts.text+" LIKE ? AND strpos("+ts.text+", ?) > 0)", loose, st.text)
			} else {
				g = g.WhereOr(ts.text+" LIKE ?", "%"+escapeLike(st.text)+"%")
			}
		default:
			in := ts.id + " IN (SELECT " + idOfRowid("rowid") + " FROM " + ts.fts + " WHERE " + ts.fts + " MATCH ?)"
			if st.narrowed {
				g = g.WhereOr("("+in+" AND "+ts.holds()+")", st.ftsQuery(), st.text)
			} else {
				g = g.WhereOr(in, st.ftsQuery())
			}
		}
		if st.id > 0 {
			g = g.WhereOr(ts.id+" = ?", st.id)
		}
		if more != nil {
			g = more(g)
		}
		return g
	})
}

// canDrive reports whether the FTS5 table alone can serve the term (SQLite, a term of three
// letters or more that is no id), so the query may be driven by it (join).
func (ts textSearch) canDrive(d Dialect, st *searchTerm) bool {
	return d == SQLite && st != nil && !st.short && st.id == 0
}

// join drives the query by the FTS5 table: the rows the term matches, in the table's rowid
// order (FTS5 keeps rowids in order), so a page of a common word in id order stops after its
// rows; ordered and paged then by rowID. The read starts at first, the tenant's lowest id (a
// subquery), not at the first match of every older tenant.
func (ts textSearch) join(sel *bun.SelectQuery, st *searchTerm, first *bun.SelectQuery) *bun.SelectQuery {
	sel = sel.Join("JOIN "+ts.fts+" ON "+ts.id+" = "+idOfRowid(ts.rowID())).Where(ts.fts+" MATCH ?", st.ftsQuery()).
		Where(ts.rowID()+" >= "+rowidOfID("(?)"), first)
	return ts.check(sel, st)
}

// check keeps the rows that hold a narrowed term whole (each candidate the FTS5 index gave
// for a few of its trigrams); a phrase needs no check.
func (ts textSearch) check(sel *bun.SelectQuery, st *searchTerm) *bun.SelectQuery {
	if !st.narrowed {
		return sel
	}
	return sel.Where(ts.holds(), st.text)
}

// holds is the condition that a row's search text holds the term (its value).
func (ts textSearch) holds() string { return "instr(" + ts.text + ", ?) > 0" }

// matches reads the FTS5 table alone, forwards from first as join does: the ids the term
// matches, every tenant's and unfiltered, and for a narrowed term unchecked
// (listSpec.matches).
func (ts textSearch) matches(sel *bun.SelectQuery, st *searchTerm, first *bun.SelectQuery) *bun.SelectQuery {
	return sel.TableExpr(ts.fts).ColumnExpr(idOfRowid("rowid")).Where(ts.fts+" MATCH ?", st.ftsQuery()).
		Where("rowid >= "+rowidOfID("(?)"), first).OrderExpr("rowid ASC")
}

// rowID is the FTS5 table's rowid column, the one to order by when join drives (in the
// records' id order); compare it with an id times searchRowidScale.
func (ts textSearch) rowID() string { return ts.fts + ".rowid" }

// idOfRowid is the record id of an FTS5 rowid expression; rowidOfID the rowid of an id's.
func idOfRowid(rowid string) string { return rowid + " / " + strconv.Itoa(searchRowidScale) }
func rowidOfID(id string) string    { return strconv.Itoa(searchRowidScale) + " * " + id }

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// whereIn keeps the rows whose column is one of ids (= for one); no ids: no filter.
func whereIn(sel *bun.SelectQuery, column string, ids []int64) *bun.SelectQuery {
	switch len(ids) {
	case 0:
		return sel
	case 1:
		return sel.Where(column+" = ?", ids[0])
	}
	return sel.Where(column+" IN (?)", bun.In(ids))
}

// whereCreated keeps the rows created in [from, to) (a zero bound does not bound).
func whereCreated(sel *bun.SelectQuery, d Dialect, column string, from, to time.Time) *bun.SelectQuery {
	if !from.IsZero() {
		sel = sel.Where(column+" >= ?", timeBound(d, from))
	}
	if !to.IsZero() {
		sel = sel.Where(column+" < ?", timeBound(d, to))
	}
	return sel
}

// timeBound is a time as the dialect compares it with created_at: SQLite keeps times as
// text ("2006-01-02 15:04:05…" in UTC), so the bound is text of the same shape.
func timeBound(d Dialect, t time.Time) any {
	if d == SQLite {
		return t.UTC().Format("2006-01-02 15:04:05.999999")
	}
	return t.UTC()
}

// knownUsers keeps the ids that are users of the tenant. A filter on another id matches
// nothing, but the planner, whose statistics are the whole table's, may take another
// tenant's user for a common one and read a big tenant's rows in order looking for it.
func (s Scope) knownUsers(ctx context.Context, ids []int64) ([]int64, error) {
	var known []int64
	if err := s.scanKnown(ctx, s.Select((*User)(nil)).Column("id").Where("id IN (?)", bun.In(ids)), &known); err != nil {
		return nil, err
	}
	return slices.DeleteFunc(slices.Clone(ids), func(id int64) bool { return !slices.Contains(known, id) }), nil
}

// scanKnown runs a lookup of the ids a filter names (a few masters or users) through
// scanList, and runs it for real too under explainPlans: the plans explained are then those
// of the filters as they run, not of a filter emptied for want of its ids.
func (s Scope) scanKnown(ctx context.Context, sel *bun.SelectQuery, dest ...any) error {
	if explaining(ctx) {
		if err := sel.Scan(ctx, dest...); err != nil {
			return err
		}
	}
	return s.scanList(ctx, sel, dest...)
}
