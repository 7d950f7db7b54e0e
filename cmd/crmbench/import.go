package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	"github.com/uptrace/bun"

	"crm/app/importer/importertest"
	"crm/app/store"
)

// Import measurement (issue 13): a realistic CSV file of 100,000 leads, 22 columns
// (importertest.Generate: owners by name or email, creation dates, both addresses, notes of
// several lines with accents, in shuffled order) into a tenant of 20,000 leads of its own
// ("Import bench", made and seeded on the first run, reused after: each run leaves it as
// it found it), through the product's import path (upload as POST
// /v1/api/import/create-import stores it, queue, importer.Runner.Run, which `crm serve`'s
// worker runs): create, update (the same leads changed), undo of the update, undo of the
// create, each timed, with the counts checked after each (importertest.Scenario).
const (
	importRows   = 100_000
	importSeeded = 20_000
	importBudget = 20 * time.Second
)

// benchImport measures the import of --import-rows rows on the engine's database at dbURL
// (migrated already; on PostgreSQL as the application role, as the server runs), then
// forgets the run's imports and journey as the owner, at ownerURL.
func benchImport(ctx context.Context, c config, engine, dbURL, ownerURL string, out io.Writer) ([]result, error) {
	rows := c.importRows
	fmt.Fprintf(out, "\n## %s: import of %d realistic rows into a tenant of %d leads\n\n", engine, rows, importSeeded)
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	sc := importScenario(c, db, out)
	steps, err := sc.Run(ctx)
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	if err := forgetImports(ctx, ownerURL, sc.TenantName); err != nil {
		return nil, err
	}
	res := make([]result, 0, len(steps))
	for _, st := range steps {
		m := &vegeta.Metrics{}
		m.Add(&vegeta.Result{Code: 200, Latency: st.Wall, Timestamp: time.Now().Add(-st.Wall)})
		m.Close()
		res = append(res, result{engine: engine, name: fmt.Sprintf("import %s, %d rows (22 columns)", st.Name, st.Rows),
			m: m, quantile: 0.99, budget: importBudget, zeroErrors: true,
			note: fmt.Sprintf("%.0f rows/s, CPU %s, per batch %.0f/%.0f/%.0f rows/s, load %s", float64(st.Rows)/st.Wall.Seconds(),
				st.CPU.Round(time.Millisecond), st.Rates[0], st.Rates[1], st.Rates[2], st.Load)})
	}
	return res, nil
}

// importScenario is the import measurement's scenario on db.
func importScenario(c config, db *store.DB, out io.Writer) importertest.Scenario {
	return importertest.Scenario{DB: db, TenantName: importTenant, Reuse: true, Rows: c.importRows, Seeded: importSeeded,
		Users: max(c.reps, 2), Seed: 13, Log: out, Statements: true}
}

// importTenant is the tenant the import measurement makes once and reuses.
const importTenant = "Import bench"

// clearImportLeftovers puts the import's tenant back as a whole run leaves it, before the
// engine's first measurement: a run stopped during its import leaves the leads of its file
// (and on SQLite a search index of a segment a batch, which every search reads, merged
// again by RemoveLeftovers), its imports and their journey, and every figure of the next run would carry them (common-word
// searches on SQLite four times slower, docs/PERFORMANCE.md "Fifty-third round"). The leads
// go as the server's role (dbURL), the imports and journey as the owner (ownerURL).
func clearImportLeftovers(ctx context.Context, c config, dbURL, ownerURL string, out io.Writer) error {
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	tn, err := db.TenantByName(ctx, importTenant)
	if errors.Is(err, store.ErrNotFound) {
		return nil // no import measured on this database yet
	} else if err != nil {
		return err
	}
	removed, err := importScenario(c, db, out).RemoveLeftovers(ctx)
	if err != nil {
		return err
	}
	imports, err := db.System(tn.ID, 0).Select((*store.Import)(nil)).Count(ctx)
	if err != nil || removed == 0 && imports == 0 {
		return err
	}
	if imports > 0 {
		fmt.Fprintf(out, "%d import(s) of an earlier run forgotten\n", imports)
	}
	return forgetImports(ctx, ownerURL, importTenant) // on PostgreSQL it vacuums what the removal left too
}

// forgetImports deletes the bench tenant's imports (their files and rows go with them) and
// its journey, as the owner of the database (the journey is the application's to append
// to only): the undos leave the tenant's leads as they were, and this leaves the rest, so
// that runs after runs do not grow the database by 2 GB of history each and skew its size.
// On PostgreSQL it then vacuums what the run changed: the 300,000 dead versions of leads an
// import run leaves (and their entries in the trigram index, which every tenant's search
// reads) would otherwise slow the next measurements until autovacuum came by. The history
// tables it has just emptied are rewritten (VACUUM FULL): a plain vacuum leaves their
// indexes at the size of the history (audit_log's two indexes kept 116 MB for 20 rows
// after two runs), which the size case would count as the leads'.
func forgetImports(ctx context.Context, ownerURL, tenant string) error {
	db, err := store.Open(ctx, ownerURL)
	if err != nil {
		return err
	}
	defer db.Close()
	tn, err := db.TenantByName(ctx, tenant)
	if err != nil {
		return err
	}
	err = db.RunInTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		for _, table := range []string{"audit_log", "imports"} {
			if _, err := tx.NewDelete().TableExpr(table).Where("tenant_id = ?", tn.ID).Exec(ctx); err != nil {
				return fmt.Errorf("forget the bench's imports: %w", err)
			}
		}
		return nil
	})
	if err != nil || db.Dialect != store.Postgres {
		return err
	}
	owner, err := sql.Open("pgx", ownerURL)
	if err != nil {
		return err
	}
	defer owner.Close()
	for _, stmt := range []string{"VACUUM (ANALYZE) leads, lead_counts, lead_user_counts, lead_day_counts, lead_month_counts",
		"VACUUM (FULL, ANALYZE) audit_log, imports, import_rows, import_files"} {
		if _, err := owner.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}
