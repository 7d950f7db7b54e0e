package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/uptrace/bun"
)

// An import batch on SQLite runs with synchronous NORMAL, a rarer checkpoint and its
// statement journal in a file, then puts the first two back: the connection the pool hands out next (the one the batch used) is FULL
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
	var inside [3]int
	err := s.importTx(ctx, LeadEntity, func(tx Scope) error {
		if err := tx.idb.NewRaw("PRAGMA synchronous").Scan(ctx, &inside[0]); err != nil {
			return err
		}
		if err := tx.idb.NewRaw("PRAGMA temp_store").Scan(ctx, &inside[2]); err != nil {
			return err
		}
		return tx.idb.NewRaw("PRAGMA wal_autocheckpoint").Scan(ctx, &inside[1])
	})
	// temp_store 1: FILE, the statement journal in a temporary file (not in memory, whose
	// allocations the driver hands back to the system after each statement).
	if err != nil || inside != [3]int{1, 50000, 1} {
		t.Fatalf("inside the batch: synchronous %d, checkpoint %d, temp_store %d (%v)", inside[0], inside[1], inside[2], err)
	}
	if sync, checkpoint := read(); sync != wantSync || checkpoint != wantCheckpoint {
		t.Errorf("after the batch: synchronous %d, checkpoint %d; want %d, %d", sync, checkpoint, wantSync, wantCheckpoint)
	}
	items := leadItems("N", "a@x.test", "b@x.test", "a@x.test")
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
	ctx := context.Background()
	_, s := openPostgresImportTestDB(t)
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
		"SELECT refresh_statistics('leads')":                                  "SELECT refresh_statistics",
	} {
		if got := statementKind(q); got != want {
			t.Errorf("%.40s…: %q, want %q", q, got, want)
		}
	}
}

// The statements of an import batch on PostgreSQL find the batch's records through their
// index, one probe each, whatever the statistics say of the tenant: in a tenant the
// statistics took while it was small (given the tenant as a constant, the planner
// multiplied its share by the keys' and, expecting a row or two, walked the tenant's leads
// for each statement: 0.55 ms a record of a 100,000-row update; batchTenant), and in a
// table never analyzed once the runner's tidy has refreshed its statistics (before, the
// planner took a tenant for 200 leads, fewer than the batch, and compared every lead of the
// tenant with every record of the grouped UPDATE: 1.3 s a statement). Checked on the
// grouped UPDATE, the key lookup, the read of records by id (the undo's) and the undo's
// DELETE, each run under EXPLAIN ANALYZE.
func TestImportBatchStatementsProbeTheirIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s := openPostgresImportTestDB(t)
	other, otherAdmin, err := db.CreateTenant(ctx, NewTenant{DefaultLocale: "en_US", Name: "Big", AdminEmail: "big@x.test", AdminPassword: "Secret1!x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.System(other.ID, otherAdmin.ID).SeedLeads(ctx, 20000, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.SeedLeads(ctx, 1000, nil); err != nil {
		t.Fatal(err)
	}
	// A table never analyzed, as the runner's tidy leaves it after a large import.
	if err := db.RefreshStatistics(ctx, LeadEntity); err != nil {
		t.Fatal(err)
	}
	probesEach(t, s, 150, "never analyzed, then refreshed")
	var refused error
	if err := s.Tx(ctx, func(tx Scope) error {
		_, refused = tx.idb.ExecContext(ctx, "SELECT refresh_statistics('users')")
		return errors.New("rolled back")
	}); refused == nil || err == nil {
		t.Error("refresh_statistics analyzed a table other than leads and clients")
	}

	// The statistics are taken while a tenant is small, as before its first import.
	small, smallAdmin, err := db.CreateTenant(ctx, NewTenant{DefaultLocale: "en_US", Name: "Small", AdminEmail: "small@x.test", AdminPassword: "Secret1!x"})
	if err != nil {
		t.Fatal(err)
	}
	s2 := db.System(small.ID, smallAdmin.ID)
	if err := s2.SeedLeads(ctx, 20, nil); err != nil {
		t.Fatal(err)
	}
	analyzeAsOwner(t, s, "leads")
	if err := s2.SeedLeads(ctx, 1000, nil); err != nil {
		t.Fatal(err)
	}
	probesEach(t, s2, 150, "analyzed while small")
}

// probesEach checks that each statement of a batch of n of the scope's leads reads them
// through an index, no more leads than the batch.
func probesEach(t *testing.T, s Scope, n int, state string) {
	t.Helper()
	ctx := context.Background()
	var batch []Lead
	if err := s.Select(&batch).Column("l.id", "l.company_email").Where("l.id % 2 = 0").OrderExpr("l.id").Limit(int64(n)).
		Scan(ctx); err != nil {
		t.Fatal(err)
	}
	if len(batch) != n {
		t.Fatalf("%s: %d leads for a batch of %d", state, len(batch), n)
	}
	ids, emails := make([]int64, len(batch)), make([]string, len(batch))
	recs := make([]changedColumns, len(batch))
	for i, l := range batch {
		ids[i], emails[i] = l.ID, l.CompanyEmail
		name := fmt.Sprintf("Renamed %d", i)
		recs[i] = changedColumns{l.ID, []columnValue{{"company_name", name}, {"search_text", strings.ToLower(name)},
			{"updated_at", time.Now()}}}
		if i%3 == 0 { // a column only some records change: one statement still, with a flag per record
			recs[i].columns = append(recs[i].columns, columnValue{"owner_id", (*int64)(nil)})
		}
	}
	update, err := s.updateStatements(LeadEntity, recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(update) != 1 {
		t.Fatalf("%s: %d statements for a batch of %d records", state, len(update), len(recs))
	}
	var found []Lead
	for name, st := range map[string]rawStatement{
		"update":     update[0],
		"key lookup": {keysQuery(s, LeadEntity, &found, "l.company_email", emails).String(), nil, nil},
		"read by id": {s.reachBatch(LeadEntity, &found).Where("l.id IN (?)", bun.In(ids)).String(), nil, nil},
		"delete":     {s.batchDelete((*Lead)(nil)).Where("l.id IN (?)", bun.In(ids)).String(), nil, nil},
	} {
		plans := map[string]func(tx Scope) ([]byte, error){
			"": func(tx Scope) (plan []byte, err error) {
				err = tx.idb.NewRaw("EXPLAIN (ANALYZE, FORMAT JSON) "+st.query, st.args...).Scan(st.ctx(ctx), &plan)
				return plan, err
			},
		}
		if len(st.bound) > 0 {
			// A statement with values apart is prepared once a connection, and PostgreSQL may
			// plan it once for every value after its fifth run: that plan must probe too.
			plans[", generic plan"] = func(tx Scope) (plan []byte, err error) {
				params := make([]string, len(st.bound))
				for i, v := range st.bound {
					params[i] = arrayLiteral(t, v)
				}
				if _, err := tx.idb.NewRaw("PREPARE probes_each AS "+st.query, st.args...).Exec(ctx); err != nil {
					return nil, err
				}
				defer tx.idb.NewRaw("DEALLOCATE probes_each").Exec(ctx) //nolint:errcheck // the test fails on the plan if not
				if _, err := tx.idb.NewRaw("SET LOCAL plan_cache_mode = force_generic_plan").Exec(ctx); err != nil {
					return nil, err
				}
				err = tx.idb.NewRaw("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE probes_each("+strings.Join(params, ", ")+")").Scan(ctx, &plan)
				return plan, err
			}
		}
		for how, explain := range plans {
			var plan []byte
			errRollback := errors.New("rolled back")
			err := s.importTx(ctx, LeadEntity, func(tx Scope) (err error) {
				if plan, err = explain(tx); err != nil {
					return err
				}
				return errRollback
			})
			if !errors.Is(err, errRollback) {
				t.Fatalf("%s, %s%s: %v", state, name, how, err)
			}
			if read, probed := leadsRead(t, plan); !probed || read > float64(len(batch)) {
				t.Errorf("%s, %s%s read %.0f leads for %d records:\n%s", state, name, how, read, len(batch), plan)
			}
		}
	}
}

// arrayLiteral is an array sent apart from a statement's text written as a literal of its
// type, for EXECUTE, which takes no parameters of its own.
func arrayLiteral(t *testing.T, v any) string {
	t.Helper()
	var oid uint32
	switch v.(type) {
	case []int64, pgtype.FlatArray[pgtype.Int8]:
		oid = pgtype.Int8ArrayOID
	case []bool:
		oid = pgtype.BoolArrayOID
	case pgtype.FlatArray[pgtype.Timestamptz]:
		oid = pgtype.TimestamptzArrayOID
	case pgtype.FlatArray[pgtype.Text]:
		oid = pgtype.TextArrayOID
	default:
		t.Fatalf("no literal for a %T", v)
	}
	m := pgtype.NewMap()
	b, err := m.Encode(oid, pgtype.TextFormatCode, v, nil)
	if err != nil {
		t.Fatal(err)
	}
	typ, _ := m.TypeForOID(oid)
	return "'" + strings.ReplaceAll(string(b), "'", "''") + "'::" + typ.Name
}

// leadsRead sums the rows an EXPLAIN (ANALYZE, FORMAT JSON) plan read from leads, kept or
// filtered out, and reports whether one of its reads was an index probe per row (a scan
// whose loops ran as many times as it found rows, or one scan of a key list).
func leadsRead(t *testing.T, plan []byte) (read float64, probed bool) {
	t.Helper()
	type node struct {
		Relation string  `json:"Relation Name"`
		Type     string  `json:"Node Type"`
		Index    string  `json:"Index Name"`
		Cond     string  `json:"Index Cond"`
		Rows     float64 `json:"Actual Rows"`
		Loops    float64 `json:"Actual Loops"`
		Removed  float64 `json:"Rows Removed by Filter"`
		Plans    []node  `json:"Plans"`
	}
	var plans []struct{ Plan node }
	if err := json.Unmarshal(plan, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("plan %s: %v", plan, err)
	}
	var walk func(n node)
	walk = func(n node) {
		if n.Relation == "leads" && n.Type != "ModifyTable" {
			read += (n.Rows + n.Removed) * n.Loops
			if n.Index != "" && (n.Loops > 1 || strings.Contains(n.Cond, "ANY")) {
				probed = true
			}
		}
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(plans[0].Plan)
	return read, probed
}

// openPostgresImportTestDB is openImportTestDB on PostgreSQL, or skips the test without
// TEST_DATABASE_URL.
func openPostgresImportTestDB(t *testing.T) (*DB, Scope) {
	t.Helper()
	if os.Getenv("TEST_DATABASE_URL") == "" {
		t.Skip("TEST_DATABASE_URL not set")
	}
	db, s, _, _ := openImportTestDB(t, Postgres)
	return db, s
}

// An import batch on SQLite leaves the merging of its search entries to the tidy after the
// import: inside the batch's transaction FTS5's automerge is off and its crisis merge waits
// for importCrisisMerge segments, and both are back at their defaults once the batch is
// over, for every other writer — after the batches of an import and of its undo, and after
// a batch that failed (runItems and undoWithTakeover end with a stopped runner's refused
// batch). What the batches wrote is found, and what the undo took back is not.
func TestImportBatchLeavesSearchMergesToTheTidy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s, _, _ := openImportTestDB(t, SQLite)
	if err := s.SeedLeads(ctx, 50, nil); err != nil {
		t.Fatal(err)
	}
	// FTS5 keeps a setting in its config table once it is set; unset, it is the default.
	read := fmt.Sprintf("SELECT coalesce((SELECT v FROM leads_fts_config WHERE k = 'automerge'), %d), "+
		"coalesce((SELECT v FROM leads_fts_config WHERE k = 'crisismerge'), %d)", ftsAutomerge, ftsCrisisMerge)
	type merges struct{ auto, crisis int }
	outside := merges{ftsAutomerge, ftsCrisisMerge}
	settings := func() merges {
		t.Helper()
		var m merges
		if err := db.bun.QueryRowContext(ctx, read).Scan(&m.auto, &m.crisis); err != nil {
			t.Fatal(err)
		}
		return m
	}
	var inside merges
	if err := s.importTx(ctx, LeadEntity, func(tx Scope) error {
		return tx.idb.QueryRowContext(ctx, read).Scan(&inside.auto, &inside.crisis)
	}); err != nil || inside != (merges{0, importCrisisMerge}) {
		t.Fatalf("merges inside a batch: %+v (%v), want automerge 0 and crisis merge %d", inside, err, importCrisisMerge)
	}
	if m := settings(); m != outside {
		t.Errorf("merges after a batch: %+v, want %+v", m, outside)
	}
	const batches, rows = 5, 20
	items := leadItems("Merge Later", numbered("merge", batches*rows)...)
	found := func() int {
		t.Helper()
		var n int
		if err := db.bun.QueryRowContext(ctx, "SELECT count(*) FROM leads_fts WHERE leads_fts MATCH '\"merge later\"'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	im := runItems(t, db, s, EntityLead, ModeCreate, MatchEmail, items, rows)
	if m := settings(); m != outside {
		t.Errorf("merges after the import: %+v, want %+v", m, outside)
	}
	if n := found(); n != batches*rows {
		t.Errorf("imported leads found by search: %d, want %d", n, batches*rows)
	}
	undoWithTakeover(t, db, s, im.ID, rows)
	if m := settings(); m != outside {
		t.Errorf("merges after the undo: %+v, want %+v", m, outside)
	}
	if n := found(); n != 0 {
		t.Errorf("undone leads still found by search: %d", n)
	}
}

// An import batch on SQLite has the write-ahead log copied into the database file in the
// background once it has committed, with no write after it to set off SQLite's own
// checkpoint (and the batch's far from its wal_autocheckpoint): the frames the log holds
// after the batch all reach the file. The log's own header says how far the copy has come:
// the -shm file holds the number of frames in the log and the number copied.
func TestImportBatchHasTheLogCopiedInTheBackground(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s, _, _ := openImportTestDB(t, SQLite)
	var path string
	if err := db.bun.QueryRowContext(ctx, "SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&path); err != nil {
		t.Fatal(err)
	}
	progress := func() (frames, copied uint32) {
		t.Helper()
		shm, err := os.ReadFile(path + "-shm")
		if err != nil || len(shm) < 100 {
			t.Fatalf("read the log's index: %d bytes, %v", len(shm), err)
		}
		// the index header's mxFrame, then the checkpoint's nBackfill (SQLite's wal.c)
		return binary.NativeEndian.Uint32(shm[16:]), binary.NativeEndian.Uint32(shm[96:])
	}
	items := leadItems("Copied Later", numbered("copied", 200)...)
	im := claimedImport(t, db, s, EntityLead, ModeCreate, MatchEmail, len(items), "only")
	if _, err := s.ApplyImportBatch(ctx, im, items, len(items)); err != nil { // the last write
		t.Fatal(err)
	}
	frames, copied := progress()
	if frames == 0 {
		t.Fatal("the batch wrote nothing to the log")
	}
	for deadline := time.Now().Add(30 * time.Second); copied < frames; frames, copied = progress() {
		if time.Now().After(deadline) {
			t.Fatalf("%d of the log's %d frames copied into the file", copied, frames)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An import batch's transaction on PostgreSQL adds its leads to the counters once, at its
// end (counts_stage, counts_flush): inside it the counters have not moved, after its commit
// they are exact, and a later write in another transaction counts at once as before.
func TestImportBatchCountsAtItsEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s := openPostgresImportTestDB(t)
	total := func(s Scope) (n int64) {
		t.Helper()
		if err := s.idb.NewRaw("SELECT COALESCE(sum(n), 0) FROM lead_counts").Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := total(s)
	lead := func(i int) LeadInput {
		return LeadInput{Contact: Contact{CustomerName: fmt.Sprintf("Staged %d", i), CompanyEmail: fmt.Sprintf("staged%d@x.test", i)}}
	}
	err := s.importTx(ctx, LeadEntity, func(tx Scope) error {
		for i := range 3 {
			if _, _, err := tx.CreateLead(ctx, lead(i), "", ""); err != nil {
				return err
			}
		}
		if n := total(tx); n != before {
			t.Errorf("inside the batch the counters say %d leads, want %d until its end", n, before)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := total(s); n != before+3 {
		t.Errorf("after the batch: %d leads counted, want %d", n, before+3)
	}
	checkCounters(t, db, "after a staged batch")
	if err := s.Tx(ctx, func(tx Scope) error {
		_, _, err := tx.CreateLead(ctx, lead(3), "", "")
		if n := total(tx); err == nil && n != before+4 {
			t.Errorf("a lead saved outside an import: %d counted in its transaction, want %d", n, before+4)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	checkCounters(t, db, "after an ordinary save")
}

// A batch that may overlap the one before (ApplyImportBatchInTurn) commits only once its
// turn comes: when the batch before failed, nothing of it stays — no lead, no row, no
// count, the import's position where it was — and when its turn comes, all of it does.
func TestImportBatchInTurnCommitsAfterItsTurnOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s := openPostgresImportTestDB(t)
	run := claimedImport(t, db, s, EntityLead, ModeCreate, MatchEmail, 4, "run")
	items := leadItems("Turn", numbered("turn", 4)...)
	leads := func() int64 {
		t.Helper()
		page, err := s.ListLeads(ctx, LeadQuery{Search: "turn", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return int64(len(page.Rows))
	}
	failed := errors.New("the batch before failed")
	if _, err := s.ApplyImportBatchInTurn(ctx, run, items, 4, &Turn{Wait: func() error { return failed }}); !errors.Is(err, failed) {
		t.Fatalf("a batch whose turn failed: %v", err)
	}
	got, err := s.Import(ctx, run.ID)
	if err != nil || got.NextRow != 0 || got.Created != 0 || run.NextRow != 0 || leads() != 0 {
		t.Fatalf("after a failed turn: import %+v, %d leads (%v)", got, leads(), err)
	}
	checkCounters(t, db, "after a failed turn")
	turned := false
	if _, err := s.ApplyImportBatchInTurn(ctx, run, items, 4, &Turn{Wait: func() error { turned = true; return nil }}); err != nil || !turned {
		t.Fatalf("a batch in its turn: %v (turn asked: %v)", err, turned)
	}
	got, err = s.Import(ctx, run.ID)
	if err != nil || got.NextRow != 4 || got.Created != 4 || leads() != 4 {
		t.Fatalf("after its turn: import %+v, %d leads (%v)", got, leads(), err)
	}
	checkCounters(t, db, "after its turn")
}

// leadItems are an import's rows of leads named name with these emails, each its row's key.
func leadItems(name string, emails ...string) []ImportItem {
	items := make([]ImportItem, 0, len(emails))
	for i, e := range emails {
		it := ImportItem{Row: i + 2, Key: e, Set: map[string]bool{"customer_name": true, "company_email": true}}
		it.Lead.CustomerName, it.Lead.CompanyEmail = name, e
		items = append(items, it)
	}
	return items
}

// numbered is n emails: prefix0@x.test, prefix1@x.test, …
func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d@x.test", prefix, i)
	}
	return out
}

// The server's SQLite connections read the file through a memory map (Open): a page the
// connection's small cache misses costs no system call. An import's batch reads without it
// (importTx) and gives its connection back with it.
func TestSQLiteReadsThroughAMap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s, _, _ := openImportTestDB(t, SQLite)
	var size int64
	if err := db.bun.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&size); err != nil || size < 1<<30 {
		t.Fatalf("mmap_size %d (%v)", size, err)
	}
	var inside int64
	if err := s.importTx(ctx, LeadEntity, func(tx Scope) error {
		return tx.idb.NewRaw("PRAGMA mmap_size").Scan(ctx, &inside)
	}); err != nil || inside != 0 {
		t.Fatalf("mmap_size %d inside an import's batch (%v)", inside, err)
	}
	// Every connection of the pool, the batch's among them, has its map again.
	for i := range db.bun.DB.Stats().MaxOpenConnections { // each held open, so the next is another
		c, err := db.bun.DB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var got int64
		if err := c.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&got); err != nil || got != size {
			t.Errorf("connection %d: mmap_size %d after a batch (%v)", i, got, err)
		}
	}
}

// An import's file is stored compressed with lz4 on a PostgreSQL server built with it
// (migration 20261130200000_import_files_lz4: written and read back two to three times
// faster than with pglz, and smaller), and reads back as it was uploaded.
func TestImportFileStoredWithLZ4(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s := openPostgresImportTestDB(t)
	var lz4 bool
	if err := db.bun.QueryRowContext(ctx, "SELECT 'lz4' = ANY (enumvals) FROM pg_settings WHERE name = 'default_toast_compression'").Scan(&lz4); err != nil {
		t.Fatal(err)
	}
	if !lz4 {
		t.Skip("this PostgreSQL server was built without lz4")
	}
	content := []byte("Name,Email\n" + strings.Repeat("Ana Lima,ana@x.test\n", 5000)) // compressible, past the 2 KB TOAST threshold
	im, err := s.CreateImport(ctx, NewImport{Entity: EntityLead, FileName: "big.csv", Content: content, Delimiter: ",",
		Encoding: "utf-8", Header: []string{"Name", "Email"}, TotalRows: 5000, Mapping: []string{"", ""}})
	if err != nil {
		t.Fatal(err)
	}
	var method string
	if err := s.idb.NewRaw("SELECT coalesce(pg_column_compression(content), 'none') FROM import_files WHERE tenant_id = ? AND import_id = ?",
		s.TenantID, im.ID).Scan(ctx, &method); err != nil {
		t.Fatal(err)
	}
	if method != "lz4" {
		t.Errorf("the import's file is stored with %s, want lz4", method)
	}
	got, err := s.ImportContent(ctx, im.ID)
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("read back %d bytes of %d (%v)", len(got), len(content), err)
	}
}
