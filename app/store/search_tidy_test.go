package store

import (
	"context"
	"fmt"
	"testing"
)

// Writes in many transactions leave SQLite's search index in many segments; the tidy merges
// them into one, a step at a time, and every search finds what it found before.
func TestTidySearchIndexMergesIntoOneSegment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s, _, _ := openImportTestDB(t, SQLite)
	if err := s.SeedLeads(ctx, 300, nil); err != nil {
		t.Fatal(err)
	}
	segments := func() int {
		n, err := db.SearchSegments(ctx, LeadEntity)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := segments(); n != 1 {
		t.Fatalf("the seed left %d segments, want 1 (it optimizes)", n)
	}
	// Each commit writes a segment of its own; FTS5's automerge joins them only four of a
	// level at a time, and keeps the replaced entries beside the new ones until then.
	for i := 1; i <= 30; i++ {
		q := "UPDATE leads SET search_text = search_text || ? WHERE id = (SELECT min(id) + ? FROM leads WHERE tenant_id = ?)"
		if _, err := db.bun.ExecContext(ctx, q, fmt.Sprintf(" tidy%03d", i), i, s.TenantID); err != nil {
			t.Fatal(err)
		}
	}
	matches := func(term string) int {
		var n int
		if err := db.bun.QueryRowContext(ctx, "SELECT count(*) FROM leads_fts WHERE leads_fts MATCH ?", `"`+term+`"`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	terms := []string{"tidy", "tidy007", "example", "sharma"}
	want := map[string]int{}
	for _, term := range terms {
		want[term] = matches(term)
	}
	if want["tidy"] != 30 || want["tidy007"] != 1 || want["example"] != 300 {
		t.Fatalf("before the tidy: %v", want)
	}
	if n := segments(); n < 3 {
		t.Fatalf("30 commits left %d segments; the test needs several", n)
	}
	steps, err := db.TidySearchIndex(ctx, LeadEntity, 1)
	if err != nil {
		t.Fatal(err)
	}
	if n := segments(); n != 1 {
		t.Errorf("after the tidy: %d segments, want 1", n)
	}
	if steps < 2 {
		t.Errorf("a tidy of a page a step took %d steps", steps)
	}
	for _, term := range terms {
		if got := matches(term); got != want[term] {
			t.Errorf("%q: %d matches after the tidy, %d before", term, got, want[term])
		}
	}
	// Nothing left to merge: a second tidy takes no step.
	if steps, err := db.TidySearchIndex(ctx, LeadEntity, 0); err != nil || steps != 0 {
		t.Errorf("a second tidy: %d steps, %v", steps, err)
	}
}
