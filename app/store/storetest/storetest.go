// Package storetest gives each test a fresh, migrated database: a SQLite file always, and a
// PostgreSQL schema of its own when TEST_DATABASE_URL is set.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"crm/app/store"
)

// Each runs fn as a subtest once per available engine, each with its own fresh database.
func Each(t *testing.T, fn func(t *testing.T, db *store.DB)) {
	t.Helper()
	for _, d := range Dialects() {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			fn(t, Open(t, d))
		})
	}
}

// Dialects lists SQLite, and PostgreSQL when TEST_DATABASE_URL is set.
func Dialects() []store.Dialect {
	ds := []store.Dialect{store.SQLite}
	if os.Getenv("TEST_DATABASE_URL") != "" {
		ds = append(ds, store.Postgres)
	}
	return ds
}

// Open returns a fresh migrated database of the dialect, removed when the test ends.
func Open(t testing.TB, d store.Dialect) *store.DB {
	t.Helper()
	ctx := context.Background()
	dbURL := URL(t, d)
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatalf("open %s: %v", d, err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate %s: %v", d, err)
	}
	return db
}

// URL makes a fresh, empty database of the dialect and returns its URL, for tests that
// drive the crm command itself.
func URL(t testing.TB, d store.Dialect) string {
	t.Helper()
	if d == store.SQLite {
		return "sqlite:" + filepath.Join(t.TempDir(), "crm.db")
	}
	base := os.Getenv("TEST_DATABASE_URL")
	if base == "" {
		t.Skip("TEST_DATABASE_URL not set")
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("postgres unreachable at TEST_DATABASE_URL: %v", err)
	}
	t.Cleanup(func() {
		if c, err := sql.Open("pgx", base); err == nil {
			_, _ = c.Exec("DROP SCHEMA " + schema + " CASCADE")
			_ = c.Close()
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("TEST_DATABASE_URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema+",public")
	u.RawQuery = q.Encode()
	return u.String()
}
