// Package storetest gives each test a fresh, migrated database: a SQLite file always, and a
// PostgreSQL database of its own when TEST_DATABASE_URL is set, each a copy of a template
// migrated once (testclone). On PostgreSQL the test gets a connection as the application
// role AppRole, which owns nothing and is bound by row-level security, as `crm serve` is;
// Owner reaches the same database as the TEST_DATABASE_URL role, which owns the schema.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/store/testclone"
)

// Every test that uses a store hashes passwords at argon2id's near-smallest cost: the users
// the tests create and sign in made these hashes half of the CPU of the packages that test
// over HTTP. The package auth tests the real cost, and the browser tests run the server.
func init() { auth.LowerCostForTests() }

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

// Open returns a fresh migrated database of the dialect, removed when the test ends. On
// PostgreSQL it is reached as AppRole, with row-level security on.
func Open(t testing.TB, d store.Dialect) *store.DB {
	t.Helper()
	return OpenWithPool(t, d, 0)
}

// OpenWithPool is Open with at most conns connections to PostgreSQL (pool_max_conns; 0:
// the default), for the tests of what must work however few there are. SQLite keeps its own.
func OpenWithPool(t testing.TB, d store.Dialect, conns int) *store.DB {
	t.Helper()
	ctx := context.Background()
	var dbURL, ownerURL string
	if d == store.Postgres {
		base := os.Getenv("TEST_DATABASE_URL")
		if base == "" {
			t.Skip("TEST_DATABASE_URL not set")
		}
		ownerURL = testclone.Postgres(t, base, migrateTemplate)
		dbURL = granted(t, ownerURL)
	} else {
		dbURL = testclone.SQLite(t, migrateTemplate)
	}
	if d == store.Postgres && conns > 0 {
		var err error
		if dbURL, err = store.WithPoolSize(dbURL, conns); err != nil {
			t.Fatal(err)
		}
	}
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatalf("open %s: %v", d, err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if d == store.Postgres {
		if err := db.CheckAppRole(ctx); err != nil {
			t.Fatalf("application role: %v", err)
		}
		owners.Store(db, ownerURL)
		t.Cleanup(func() { owners.Delete(db) })
	}
	return db
}

// migrateTemplate migrates a template for testclone, as `crm migrate` would.
func migrateTemplate(ctx context.Context, dbURL string) error {
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Migrate(ctx)
	return err
}

// granted grants AppRole the server's rights on the migrated database at ownerURL and
// returns the same URL logged in as AppRole. The grants are made on each copy, not in the
// template, so that the template depends on the migrations alone.
func granted(t testing.TB, ownerURL string) string {
	t.Helper()
	ctx := context.Background()
	EnsureAppRole(t, ownerURL)
	owner, err := store.Open(ctx, ownerURL)
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	defer owner.Close()
	if err := owner.GrantApp(ctx, AppRole); err != nil {
		t.Fatalf("grant %s: %v", AppRole, err)
	}
	return AsRole(t, ownerURL, AppRole)
}

// owners maps each PostgreSQL database Open returned to its owner's URL.
var owners sync.Map

// Owner returns a connection to db's database as the owner of its schema, which row-level
// security does not bind (the TEST_DATABASE_URL role is a superuser): for a test's own
// setup that goes around the store, such as back-dating rows or refreshing statistics, and
// for checks of what the application role cannot see. On SQLite it is db itself.
func Owner(t testing.TB, db *store.DB) *store.DB {
	t.Helper()
	v, ok := owners.Load(db)
	if !ok {
		return db
	}
	owner, err := store.Open(context.Background(), v.(string))
	if err != nil {
		t.Fatalf("open postgres as owner: %v", err)
	}
	t.Cleanup(func() { _ = owner.Close() })
	return owner
}

// OwnerURL is the URL of db's schema as its owner ("" for SQLite).
func OwnerURL(db *store.DB) string {
	v, _ := owners.Load(db)
	s, _ := v.(string)
	return s
}

// AppRole is the PostgreSQL login role tests connect as, like `crm serve` in production: no
// superuser, no BYPASSRLS, owner of nothing. One role serves every test schema; each schema
// grants it what the server needs.
const AppRole = "crm_test_app"

var appRoleOnce sync.Once

// AsRole returns url logged in as role (the test server trusts local connections).
func AsRole(t testing.TB, dbURL, role string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatalf("database url: %v", err)
	}
	u.User = url.User(role)
	return u.String()
}

// EnsureAppRole creates AppRole on the server of ownerURL unless it exists (once per test
// binary; parallel test binaries may race to it).
func EnsureAppRole(t testing.TB, ownerURL string) {
	t.Helper()
	appRoleOnce.Do(func() { createAppRole(t, ownerURL) })
}

func createAppRole(t testing.TB, ownerURL string) {
	c, err := sql.Open("pgx", ownerURL)
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	defer c.Close()
	var exists bool
	if err := c.QueryRow("SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", AppRole).Scan(&exists); err != nil {
		t.Fatalf("postgres: %v", err)
	}
	if exists {
		return
	}
	_, err = c.Exec("CREATE ROLE " + AppRole + " LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE")
	if err != nil && !strings.Contains(err.Error(), "already exists") && !strings.Contains(err.Error(), "duplicate key") {
		t.Fatalf("create role %s: %v", AppRole, err)
	}
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
