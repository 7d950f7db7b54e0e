package main

import (
	"context"
	"database/sql"
	"io"
	"os"
	"testing"
)

// TestPGFreePagesCountsWhatVacuumFreed: a table whose first half was deleted and vacuumed
// has those pages counted free, and a table just filled has none.
func TestPGFreePagesCountsWhatVacuumFreed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := freshPGDatabase(t, "crmbench_free")
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"CREATE TABLE t (id int PRIMARY KEY, pad text) WITH (autovacuum_enabled = off)",
		"INSERT INTO t SELECT i, repeat('x', 200) FROM generate_series(1, 20000) AS i",
		"VACUUM t",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	full, err := pgFreePages(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	var tablePages int64
	if err := db.QueryRowContext(ctx, "SELECT pg_relation_size('t') / current_setting('block_size')::bigint").Scan(&tablePages); err != nil {
		t.Fatal(err)
	}
	// The first half's rows deleted: their pages are empty, before the pages still in use
	// (so vacuum cannot cut them off the end of the file).
	for _, q := range []string{"DELETE FROM t WHERE id <= 10000", "VACUUM t"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	freed, err := pgFreePages(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	page := int64(8192)
	if full > 2*page {
		t.Errorf("a table just filled: %d bytes of free pages", full)
	}
	if got, want := (freed-full)/page, tablePages*4/10; got < want {
		t.Errorf("after deleting half of %d pages: %d pages free, want at least %d", tablePages, got, want)
	}
}

// TestSQLiteSizesCountTheLogsFramesNotItsLeftover: a write-ahead log that a writer left
// behind because another connection was still open (as `crm seed` can leave one while the
// bench holds the file), its frames already in the file, is cut to nothing before the file
// is measured, so the figure is the file's pages in use and not the log's bytes again.
func TestSQLiteSizesCountTheLogsFramesNotItsLeftover(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := t.TempDir() + "/crm.db"
	holder, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if _, err := holder.ExecContext(ctx, "CREATE TABLE leads (id integer PRIMARY KEY, pad text)"); err != nil {
		t.Fatal(err)
	}
	writer, err := sql.Open("sqlite", "file:"+path+"?_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	const leads = 1000
	if _, err := writer.ExecContext(ctx, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) "+
		"INSERT INTO leads SELECT i, randomblob(20000) FROM n", leads); err != nil {
		t.Fatal(err)
	}
	if err := writer.Close(); err != nil { // not the last connection: the log stays
		t.Fatal(err)
	}
	// Its frames copied into the file, as a later checkpoint does, the log itself left as
	// it was: the leads are in the file and the log's bytes are a leftover.
	if _, err := holder.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(f); err != nil || fi.Size() < 10e6 {
			t.Fatalf("the set-up left no %s of 10 MB or more: %v, %v", f, fi, err)
		}
	}

	b := &bench{engine: "sqlite", dbURL: "sqlite:" + path, out: io.Discard}
	if err := b.sqliteSizes(ctx); err != nil {
		t.Fatal(err)
	}
	if wi, err := os.Stat(path + "-wal"); err != nil || wi.Size() != 0 {
		t.Errorf("the log after the measurement: %v, %v; want it cut to nothing", wi, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var pageSize, freePages int64
	if err := holder.QueryRowContext(ctx, "SELECT (SELECT page_size FROM pragma_page_size), "+
		"(SELECT freelist_count FROM pragma_freelist_count)").Scan(&pageSize, &freePages); err != nil {
		t.Fatal(err)
	}
	if len(b.results) != 1 {
		t.Fatalf("results: %+v", b.results)
	}
	if got, want := b.results[0].figure, perMillion(fi.Size()-pageSize*freePages, leads); got != want {
		t.Errorf("figure %s, want the file's pages in use, %s (note: %s)", got, want, b.results[0].note)
	}
}
