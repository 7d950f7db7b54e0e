package store_test

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"crm/app/store"
	"crm/app/store/storetest"
)

// The statements a list request sends, read through a query hook (recorder, hooks_test.go).

// statements are the recorded statements that start with prefix ("" for all).
func (r *recorder) statements(prefix string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, q := range r.stmts {
		if strings.HasPrefix(q, prefix) {
			out = append(out, q)
		}
	}
	return out
}

var (
	inList  = regexp.MustCompile(`\b([mu])\.id IN \(([^)]*)\)`)
	anyList = regexp.MustCompile(`\b([mu])\.id = ANY\(\$([0-9]+)\)`) // PostgreSQL: the ids sent apart
)

// A page's names come in one statement that asks for each master and user once, however
// many of the page's leads share them: PostgreSQL estimates an IN list element by element
// while planning (distinctIDs). The names still reach every lead of the page.
func TestLeadPageAsksEachNameOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tn, admin := newTenant(t, db, "Names", "names@example.test")
		s := db.System(tn.ID, admin.ID)
		if err := s.SeedLeads(ctx, 60, nil); err != nil {
			t.Fatal(err)
		}
		rec := &recorder{}
		db.AddQueryHook(rec)
		page, err := s.ListLeads(ctx, store.LeadQuery{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Rows {
			if r.LeadStageName == "" || r.OwnerName == "" {
				t.Fatalf("lead %d without its stage or owner name: %+v", r.ID, r)
			}
		}
		all := rec.statements("")
		lists := 0
		once := func(kind string, ids []string) {
			lists++
			if sorted := slices.Compact(slices.Sorted(slices.Values(ids))); len(sorted) != len(ids) {
				t.Errorf("%s.id in %v: an id more than once", kind, ids)
			}
		}
		rec.mu.Lock()
		for k, q := range rec.stmts {
			for _, m := range inList.FindAllStringSubmatch(q, -1) {
				once(m[1], strings.Split(m[2], ", "))
			}
			for _, m := range anyList.FindAllStringSubmatch(q, -1) {
				n, _ := strconv.Atoi(m[2])
				if n < 1 || n > len(rec.args[k]) {
					t.Fatalf("%s.id = ANY($%d) without its value: %s", m[1], n, q)
				}
				once(m[1], strings.Fields(strings.Trim(fmt.Sprint(rec.args[k][n-1]), "[]")))
			}
		}
		rec.mu.Unlock()
		if lists != 2 {
			t.Errorf("%d lists of masters or users among the page's statements:\n%s", lists, strings.Join(all, "\n"))
		}
	})
}

// A search's probe estimate is asked of PostgreSQL's planner once: the same search again
// (its next page, another look) takes it from the cache and finds the same page; another
// term, or a plan being explained, asks again.
func TestSearchEstimateAskedOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		if db.Dialect != store.Postgres {
			return // SQLite's searches go through FTS5 and ask no estimate
		}
		ctx := context.Background()
		tn, admin := newTenant(t, db, "Estimates", "estimates@example.test")
		s := db.System(tn.ID, admin.ID)
		if err := s.SeedLeads(ctx, 300, nil); err != nil {
			t.Fatal(err)
		}
		rec := &recorder{}
		db.AddQueryHook(rec)
		asked := func() int { return len(rec.statements("EXPLAIN (FORMAT JSON)")) }
		search := func(term string) []int64 {
			t.Helper()
			p, err := s.ListLeads(ctx, store.LeadQuery{Search: term})
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, r := range p.Rows {
				ids = append(ids, r.ID)
			}
			return ids
		}
		first := search("software")
		if n := asked(); n != 1 {
			t.Fatalf("first search: %d estimates asked, want 1", n)
		}
		if again := search("software"); !slices.Equal(again, first) || len(first) == 0 {
			t.Errorf("the same search again: %v, first %v", again, first)
		}
		if n := asked(); n != 1 {
			t.Errorf("the same search again: %d estimates asked in all, want 1", n)
		}
		search("cloud")
		if n := asked(); n != 2 {
			t.Errorf("another term: %d estimates asked in all, want 2", n)
		}
		if _, err := s.ExplainListLeads(ctx, store.LeadQuery{Search: "software"}); err != nil {
			t.Fatal(err)
		}
		if n := asked(); n != 3 {
			t.Errorf("explained: %d estimates asked in all, want 3", n)
		}
	})
}

// On PostgreSQL the statement that collects a rare term's matches is one text whatever the
// term, its patterns sent apart from it: each connection plans it once, where a text with
// the patterns written in was planned at every new term (2.6–5.4 ms at a million leads).
// Each term still finds its lead, and only its lead.
func TestRareTermsAreCollectedWithOneText(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		if db.Dialect != store.Postgres {
			return // (SQLite's FTS5 index is asked with a MATCH, compiled once already)
		}
		ctx := context.Background()
		tn, admin := newTenant(t, db, "Rare terms", "rare@example.test")
		s := db.System(tn.ID, admin.ID)
		if err := s.SeedLeads(ctx, 2500, nil); err != nil {
			t.Fatal(err)
		}
		all, err := s.ListLeads(ctx, store.LeadQuery{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		// Two leads whose email's local part the sample narrows, each the only lead with it.
		type rare struct {
			term string
			id   int64
		}
		var terms []rare
		for _, l := range all.Rows {
			term, _, _ := strings.Cut(l.CompanyEmail, "@")
			if _, narrowed, err := s.SearchAsked(ctx, false, term); err != nil {
				t.Fatal(err)
			} else if narrowed && len(terms) < 2 && (len(terms) == 0 || terms[0].term != term) {
				terms = append(terms, rare{term, l.ID})
			}
		}
		if len(terms) < 2 {
			t.Fatalf("found %d narrowed terms among %d leads", len(terms), len(all.Rows))
		}
		rec := &recorder{}
		db.AddQueryHook(rec)
		var texts []string
		for _, r := range terms {
			before := len(rec.statements(""))
			p, err := s.ListLeads(ctx, store.LeadQuery{Search: r.term})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Rows) != 1 || p.Rows[0].ID != r.id || p.Total != 1 {
				t.Errorf("%q: %d leads (total %d), want lead %d alone", r.term, len(p.Rows), p.Total, r.id)
			}
			rec.mu.Lock()
			for k := before; k < len(rec.stmts); k++ {
				if q := rec.stmts[k]; strings.Contains(q, "strpos(") {
					text := strings.TrimSuffix(q, fmt.Sprint(rec.args[k])) // without the values sent apart
					if strings.Contains(text, r.term) || !strings.Contains(q, r.term) {
						t.Errorf("%q: the term is not sent apart from the text: %s", r.term, q)
					}
					texts = append(texts, text)
				}
			}
			rec.mu.Unlock()
		}
		if len(texts) != 2 || texts[0] != texts[1] {
			t.Errorf("the two rare terms were collected with %d statements, not one text:\n%s", len(texts), strings.Join(texts, "\n"))
		}
	})
}

// On PostgreSQL the statement that reads a next page is one text for every page of a list
// and sort, its cursor sent apart from it: each connection plans it once, where a text with
// the cursor written in was planned at every page. The pages still follow one another, each
// lead once, in order, for the id, a text key and a time key.
func TestNextPagesAreOneText(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tn, admin := newTenant(t, db, "Next pages", "next@example.test")
		s := db.System(tn.ID, admin.ID)
		if err := s.SeedLeads(ctx, 90, nil); err != nil {
			t.Fatal(err)
		}
		for _, sort := range []string{store.SortRecent, store.SortCustomer, store.SortCreated} {
			whole, err := s.ListLeads(ctx, store.LeadQuery{Sort: sort, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			rec := &recorder{}
			db.AddQueryHook(rec)
			var got []int64
			texts := map[string]bool{}
			after := ""
			for pages := 0; ; pages++ {
				before := len(rec.statements(""))
				p, err := s.ListLeads(ctx, store.LeadQuery{Sort: sort, Limit: 20, After: after})
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ids(p.Rows)...)
				rec.mu.Lock()
				for k := before; k < len(rec.stmts); k++ {
					if q := rec.stmts[k]; after != "" && strings.Contains(q, "LIMIT 21") {
						text := strings.TrimSuffix(q, fmt.Sprint(rec.args[k]))
						if db.Dialect == store.Postgres && len(rec.args[k]) == 0 {
							t.Errorf("%s: a next page's cursor is written into its text: %s", sort, q)
						}
						texts[text] = true
					}
				}
				rec.mu.Unlock()
				if p.Next == "" || pages > 10 {
					break
				}
				after = p.Next
			}
			if !slices.Equal(got, ids(whole.Rows)) {
				t.Errorf("%s: the pages gave %v, want %v", sort, got, ids(whole.Rows))
			}
			if db.Dialect == store.Postgres && len(texts) != 1 {
				t.Errorf("%s: the next pages were read with %d texts, want one:\n%s", sort, len(texts), strings.Join(slices.Collect(maps.Keys(texts)), "\n"))
			}
		}
	})
}
