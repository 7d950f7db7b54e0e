package store

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

// An import batch on SQLite runs with synchronous NORMAL and a rarer checkpoint, then puts
// both back: the connection the pool hands out next (the one the batch used) is FULL
// again, so no other write goes unsynced. Its rows are there, counted once.
func TestImportBatchPutsSQLiteSettingsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s, _, _ := openImportTestDB(t, SQLite)
	read := func() (sync, checkpoint int) {
		t.Helper()
		conn, err := db.bun.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if err := conn.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&checkpoint); err != nil {
			t.Fatal(err)
		}
		return sync, checkpoint
	}
	wantSync, wantCheckpoint := read()
	if wantSync != 2 { // FULL, as Open sets it
		t.Fatalf("synchronous %d before the import", wantSync)
	}
	var inside [2]int
	err := s.importTx(ctx, func(tx Scope) error {
		if err := tx.idb.NewRaw("PRAGMA synchronous").Scan(ctx, &inside[0]); err != nil {
			return err
		}
		return tx.idb.NewRaw("PRAGMA wal_autocheckpoint").Scan(ctx, &inside[1])
	})
	if err != nil || inside != [2]int{1, 10000} {
		t.Fatalf("inside the batch: synchronous %d, checkpoint %d (%v)", inside[0], inside[1], err)
	}
	if sync, checkpoint := read(); sync != wantSync || checkpoint != wantCheckpoint {
		t.Errorf("after the batch: synchronous %d, checkpoint %d; want %d, %d", sync, checkpoint, wantSync, wantCheckpoint)
	}
	items := make([]ImportItem, 0, 3)
	for i, e := range []string{"a@x.test", "b@x.test", "a@x.test"} {
		it := ImportItem{Row: i + 2, Key: e, Set: map[string]bool{"customer_name": true, "company_email": true}}
		it.Lead.CustomerName, it.Lead.CompanyEmail = "N", e
		items = append(items, it)
	}
	im := runItems(t, db, s, EntityLead, ModeUpsert, MatchEmail, items, 2)
	if got, err := s.Import(ctx, im.ID); err != nil || got.Created != 2 || got.Skipped != 1 {
		t.Fatalf("import: %+v %v", got, err)
	}
	if sync, _ := read(); sync != wantSync {
		t.Errorf("after an import batch: synchronous %d", sync)
	}
}

// The key lookup of an import batch on PostgreSQL asks for the batch's keys in one
// statement, so whatever the statistics say of the tenant the plan reads it at most once a
// batch, never once a key (TEST_DATABASE_URL).
func TestImportKeyLookupReadsTheTenantAtMostOnce(t *testing.T) {
	t.Parallel()
	if os.Getenv("TEST_DATABASE_URL") == "" {
		t.Skip("TEST_DATABASE_URL not set")
	}
	ctx := context.Background()
	_, s, _, _ := openImportTestDB(t, Postgres)
	if err := s.SeedLeads(ctx, 3000, nil); err != nil {
		t.Fatal(err)
	}
	for _, col := range []string{MatchField(MatchEmail), MatchField(MatchPhone)} {
		keys := make([]string, 2000) // a batch's worth
		for i := range keys {
			keys[i] = fmt.Sprintf("k%d@x.test", i)
		}
		var recs []Lead
		var plans []string
		q := keysQuery(s, LeadEntity, &recs, "l."+col, keys)
		if err := s.idb.NewRaw("EXPLAIN "+q.String()).Scan(ctx, &plans); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plans, "\n")
		if strings.Contains(text, "Nested Loop") || !strings.Contains(text, col) {
			t.Errorf("%s lookup:\n%s", col, text)
		}
	}
}

// The statement timing names statements by verb and table, however long.
func TestStatementKind(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("(1, 'x'), ", 10000)
	for q, want := range map[string]string{
		`SELECT "l"."id" FROM "leads" AS "l" WHERE x`:                         "SELECT leads",
		`INSERT INTO "audit_log" ("a") VALUES ` + long:                        "INSERT audit_log",
		"WITH v (id, a) AS (VALUES " + long + ") UPDATE leads AS l SET a = 1": "UPDATE leads",
		`DELETE FROM "leads" AS "l" WHERE 1`:                                  "DELETE leads",
		"COMMIT":                                                              "COMMIT",
	} {
		if got := statementKind(q); got != want {
			t.Errorf("%.40s…: %q, want %q", q, got, want)
		}
	}
}
