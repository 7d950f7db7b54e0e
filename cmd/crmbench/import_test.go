package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"crm/app/importer/importertest"
	"crm/app/store"
)

// benchImport runs its scenario on a database of the bench's kind, twice over the same
// tenant (made and seeded by the first run, reused as found by the second), and gives a
// result per step within the budget's terms.
func TestBenchImportSmall(t *testing.T) {
	ctx := context.Background()
	dbURL := "sqlite:" + filepath.Join(t.TempDir(), "bench.db")
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for run := range 2 {
		var out bytes.Buffer
		res, err := benchImport(ctx, config{reps: 3, importRows: 600}, "sqlite", dbURL, dbURL, &out)
		if err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, out.String())
		}
		if len(res) != 4 || !strings.Contains(out.String(), "undo of the create: 600 rows") {
			t.Fatalf("run %d: %d results\n%s", run, len(res), out.String())
		}
		for _, r := range res {
			if r.m == nil || r.m.Requests != 1 || r.budget != importBudget {
				t.Errorf("run %d: %+v", run, r)
			}
		}
		// The run's imports and journey are gone again: the database does not grow run by run.
		db, err := store.Open(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		var left int
		err = db.RunInTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			return tx.NewRaw("SELECT (SELECT count(*) FROM imports) + (SELECT count(*) FROM import_rows) + "+
				"(SELECT count(*) FROM audit_log WHERE entity = 'lead')").Scan(ctx, &left)
		})
		db.Close()
		if err != nil || left != 0 {
			t.Errorf("run %d left %d imports, rows and journey entries (%v)", run, left, err)
		}
		if run == 1 && !strings.Contains(out.String(), "reused: 20000 leads") {
			t.Errorf("second run did not reuse the tenant:\n%s", out.String())
		}
		if run == 0 {
			leaveStoppedRun(t, dbURL)
		}
	}
}

// leaveStoppedRun leaves what a run stopped after its import's create leaves behind: the
// leads of the file and the import. The next run of the bench puts the tenant back before
// it measures anything: the leads removed, the import forgotten.
func leaveStoppedRun(t *testing.T, dbURL string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := importertest.ImportCreate(ctx, db, importTenant, importertest.Options{Rows: 300, Seed: 13})
	if err != nil {
		t.Fatal(err)
	}
	count := func(model any) int {
		n, err := s.Select(model).Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	if n := count((*store.Lead)(nil)); n != importSeeded+300 {
		t.Fatalf("%d leads after the stopped run's create, want %d", n, importSeeded+300)
	}

	var out bytes.Buffer
	if err := clearImportLeftovers(ctx, config{reps: 3, importRows: 600}, dbURL, dbURL, &out); err != nil {
		t.Fatal(err)
	}
	if n := count((*store.Lead)(nil)); n != importSeeded {
		t.Errorf("%d leads after clearing, want the %d seeded\n%s", n, importSeeded, out.String())
	}
	if n := count((*store.Import)(nil)); n != 0 {
		t.Errorf("%d imports after clearing\n%s", n, out.String())
	}
	if !strings.Contains(out.String(), "300 leads of an earlier run's file removed") {
		t.Errorf("clearing did not say what it removed:\n%s", out.String())
	}
}

// TestLeftoversClearedAsTheServerOnAFreshDatabase: on a PostgreSQL database seeded but
// never served, the bench clears what a stopped run left as the server's role before it
// starts the server. Without appRoleURL's grants the role may read nothing yet ("permission
// denied for table tenants"), which stopped the first whole run on a new machine.
func TestLeftoversClearedAsTheServerOnAFreshDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ownerURL := freshPGDatabase(t, "crmbench_fresh")
	db, err := store.Open(ctx, ownerURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.CreateTenant(ctx, store.NewTenant{DefaultLocale: "en_US", Name: importTenant,
		AdminEmail: "admin.1@import-bench.test", AdminPassword: "Bench@12345"}); err != nil {
		t.Fatal(err)
	}
	s, err := importertest.ImportCreate(ctx, db, importTenant, importertest.Options{Rows: 60, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	appURL, err := appRoleURL(ctx, ownerURL)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := clearImportLeftovers(ctx, config{reps: 3, importRows: 60}, appURL, ownerURL, &out); err != nil {
		t.Fatalf("clear as the server's role: %v\n%s", err, out.String())
	}
	if n, err := s.Select((*store.Lead)(nil)).Count(ctx); err != nil || n != 0 {
		t.Errorf("%d leads of the stopped run's file after clearing, want 0 (%v)\n%s", n, err, out.String())
	}
}
