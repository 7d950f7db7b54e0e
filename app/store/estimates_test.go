package store

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// A search's probe estimate is asked of PostgreSQL's planner once: the same search again
// (its next page, another look) takes it from the cache and finds the same page; another
// term, or a plan being explained, asks again.
func TestSearchEstimateAskedOnce(t *testing.T) {
	eachImportDB(t, func(t *testing.T, db *DB, s Scope, admin, rep *User) {
		if db.Dialect != Postgres {
			return // SQLite's searches go through FTS5 and ask no estimate
		}
		ctx := context.Background()
		if err := s.SeedLeads(ctx, 300, nil); err != nil {
			t.Fatal(err)
		}
		log := &statementLog{}
		db.bun.AddQueryHook(log)
		asked := func() int {
			log.mu.Lock()
			defer log.mu.Unlock()
			n := 0
			for _, q := range log.sql {
				if strings.HasPrefix(q, "EXPLAIN (FORMAT JSON)") {
					n++
				}
			}
			return n
		}
		search := func(term string) []int64 {
			t.Helper()
			p, err := s.ListLeads(ctx, LeadQuery{Search: term})
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
		if _, err := s.ExplainListLeads(ctx, LeadQuery{Search: "software"}); err != nil {
			t.Fatal(err)
		}
		if n := asked(); n != 3 {
			t.Errorf("explained: %d estimates asked in all, want 3", n)
		}
	})
}
