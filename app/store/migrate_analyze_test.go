package store

import (
	"context"
	"testing"
)

// A migration that makes an index on an analysed SQLite database leaves it with statistics:
// without them SQLite rates the new index above every analysed one.
func TestMigrateAnalysesNewIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s, _, _ := openImportTestDB(t, SQLite)
	if err := s.SeedLeads(ctx, 200, nil); err != nil {
		t.Fatal(err)
	}
	stats := func() int {
		var n int
		if err := db.bun.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_stat1 WHERE idx = 'leads_stage_status_name_idx'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := db.bun.ExecContext(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	if stats() != 1 {
		t.Fatal("the index has no statistics before the test")
	}
	// The migration that last made the index runs again, as on a database analysed before it.
	if _, err := db.bun.ExecContext(ctx, "DELETE FROM bun_migrations WHERE name = '20261124930000'"); err != nil {
		t.Fatal(err)
	}
	applied, err := db.Migrate(ctx)
	if err != nil || len(applied) != 1 {
		t.Fatalf("migrate: %v %v", applied, err)
	}
	if stats() != 1 {
		t.Error("the index a migration made has no statistics")
	}
}
