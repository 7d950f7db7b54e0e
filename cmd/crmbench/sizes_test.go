package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"
)

// TestPGFreePagesCountsWhatVacuumFreed: a table whose first half was deleted and vacuumed
// has those pages counted free, and a table just filled has none.
func TestPGFreePagesCountsWhatVacuumFreed(t *testing.T) {
	t.Parallel()
	server := os.Getenv("TEST_DATABASE_URL")
	if server == "" {
		t.Skip("TEST_DATABASE_URL is not set: no PostgreSQL to measure")
	}
	ctx := context.Background()
	admin, err := sql.Open("pgx", server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close() }) // after the drop below: cleanups run last first
	name := fmt.Sprintf("crmbench_free_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop the test's database: %v", err)
		}
	})
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	db, err := sql.Open("pgx", u.String())
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
