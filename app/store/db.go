// Package store holds the bun models, the tenant-scoped queries and the rules that change data.
// Nothing here knows about HTTP.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/migrate"
	_ "modernc.org/sqlite" // pure-Go SQLite driver

	"crm/app/store/sqlitemutex"
	migrations "crm/sql"
)

// SQLite's mutexes are set before anything in the process opens a SQLite database, so a
// connection's own costs nothing (package sqlitemutex). Should that fail (SQLite in use
// before this package's variables are initialized), connections keep the driver's
// serialized mode, slower but as correct, and SQLiteMutexes says why.
var sqliteMutexErr = sqlitemutex.Install()

// SQLiteMutexes is nil when SQLite's connections run without a mutex of their own
// (sqlitemutex.Install), else why they keep the driver's.
func SQLiteMutexes() error { return sqliteMutexErr }

// Dialect names the database engine behind a DB.
type Dialect string

// The two engines the product runs on.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DB is the application's database handle. Tenant data is reached only through Scope.
type DB struct {
	bun     *bun.DB
	Dialect Dialect
	callers *callerCache // who makes requests, read a moment ago (callercache.go)
	// estimates are the planner's row estimates of search probes, asked a moment ago
	// (estimates.go).
	estimates *estimateCache
	// samples are the trigrams of each tenant's newest search texts, counted a moment ago
	// (search_sample.go).
	samples *trigramSamples
	// backfill copies SQLite's write-ahead log into the file in the background
	// (wal_backfill.go); nil on PostgreSQL.
	backfill *walBackfill
	// apart are PostgreSQL's inserts with their values apart, by table (insert_apart.go):
	// a model's table is the same in every tenant and does not change while the process runs.
	apart sync.Map
}

// StatementCacheCapacity is how many prepared reads each PostgreSQL connection keeps, the
// least recently used closed first: plans of the repeated reads of a busy server's lists,
// a few hundred KB of the backend's memory a connection.
const StatementCacheCapacity = 128

// DefaultURL is where the embedded database lives when nothing else is configured.
const DefaultURL = "sqlite:./data/crm.db"

// Open connects to the database named by url: postgres://… or postgresql://… selects
// PostgreSQL; sqlite:PATH or a plain path selects the embedded SQLite database.
func Open(ctx context.Context, url string) (*DB, error) {
	if url == "" {
		url = DefaultURL
	}
	var db *DB
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		url, maxConns, err := poolSize(url)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		cfg, err := pgx.ParseConfig(url)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		// bun writes the values into the SQL, so nearly every statement is new text: pgx's
		// default (prepare each new text, then run it) costs a second round trip and fills
		// its statement cache with statements never used again. Run each in one round trip.
		cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
		// A read run before is prepared once a connection and kept (plans.go).
		cfg.StatementCacheCapacity = StatementCacheCapacity
		// Each connection keeps app.tenant_id in step with the Scope of each statement, for
		// the row-level security policies (rls.go).
		sqldb := sql.OpenDB(rlsConnector{Connector: stdlib.GetConnector(*cfg), texts: newRepeatedTexts()})
		sqldb.SetMaxOpenConns(maxConns)
		sqldb.SetMaxIdleConns(maxConns)
		db = &DB{bun: bun.NewDB(sqldb, pgdialect.New()), Dialect: Postgres}
	default:
		path := strings.TrimPrefix(url, "sqlite:")
		if path == "" {
			return nil, errors.New("sqlite: empty database path")
		}
		if dir := filepath.Dir(path); dir != "." {
			if err := os.MkdirAll(dir, 0o750); err != nil {
				return nil, fmt.Errorf("create database folder: %w", err)
			}
		}
		if err := createSQLite(ctx, path); err != nil {
			return nil, err
		}
		// WAL for concurrent readers, FULL sync so an acknowledged write survives a crash,
		// IMMEDIATE transactions so two writers queue instead of failing to upgrade a lock;
		// a WAL file cut back to 64 MB when it restarts (an import lets it grow to 1.6 GB
		// between checkpoints: importTx).
		//
		// And the file read through a memory map (mmap_size, its first 4 GB): a page that
		// is not in the connection's own cache (2 MB, a few dozen pages of SQLitePageSize)
		// is read from the map rather than with a pread into a 32 KB buffer that the
		// driver's allocator takes from the system and hands back. Under the bench's mixed
		// load those reads and that allocator were a third of the server's CPU (pread
		// 22 %, madvise 11 %) on a VM whose system calls are dear, and the highest rate
		// with p99 ≤ 100 ms 250–300 requests/s; with the map 450–550/s (docs/PERFORMANCE.md,
		// "Thirty-eighth round"). The map shares the operating system's page cache with
		// every connection, and writes still go through the WAL by write(); an I/O error
		// on the file while it is read through the map ends the process (SIGBUS) instead of
		// failing the statement, the price SQLite documents for it.
		dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)" +
			"&_pragma=busy_timeout(10000)&_pragma=synchronous(FULL)&_pragma=journal_size_limit(67108864)&_pragma=mmap_size(4294967296)" +
			"&_txlock=immediate"
		connector, err := newStmtCachingConnector(dsn) // sqlitestmts.go
		if err != nil {
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		sqldb := sql.OpenDB(connector)
		// As many connections as PostgreSQL's pool (4 on two cores), not more: every commit
		// makes each connection, at its next read, drop its whole memory map of the file
		// (SQLite's WAL reader sees the change) and fault the pages in again, 9–20 ms of
		// the kernel's time a connection on a 1.5 GB file. With 8 connections, the one-row
		// writes of a read load at 500 requests/s held requests for up to half a second
		// (p99 30–112 ms in six runs); with 4, p99 12–16 ms (docs/PERFORMANCE.md,
		// "Sixtieth round").
		maxConns := defaultPoolSize()
		sqldb.SetMaxOpenConns(maxConns)
		sqldb.SetMaxIdleConns(maxConns)
		db = &DB{bun: bun.NewDB(sqldb, sqlitedialect.New()), Dialect: SQLite, backfill: &walBackfill{db: sqldb}}
	}
	db.callers = newCallerCache()
	db.estimates = newEstimateCache()
	db.samples = newTrigramSamples()
	db.bun.AddQueryHook(queryHook{})
	if err := db.Ping(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("database unreachable: %w", err)
	}
	return db, nil
}

// SQLitePageSize is the page size of a SQLite database the store creates: 32 KB instead of
// SQLite's 4 KB. An import in no particular order writes each index at random places, and
// each page it changes is written to the write-ahead log at the commit and to the
// statement journal: with fewer, larger pages a batch changes fewer of them, and a page
// is written with one system call however large it is. The create of 100,000 realistic
// rows took 15.3-15.4 s instead of 20.3-21.0 s (docs/PERFORMANCE.md, "Fifteenth round").
// A database keeps the page size it was created with (see createSQLite).
const SQLitePageSize = 32768

// createSQLite creates the SQLite database at path, if there is none, with SQLitePageSize.
// The page size must be set before anything is written, and turning on WAL writes the
// file's header: Open's connection string does that first (the driver runs its pragmas
// in alphabetical order), so the empty file is made here. An existing database is left as
// it is: converting one takes `PRAGMA journal_mode = DELETE; PRAGMA page_size = 32768;
// VACUUM; PRAGMA journal_mode = WAL` while no one else has it open.
func createSQLite(ctx context.Context, path string) error {
	if info, err := os.Stat(path); err == nil && info.Size() > 0 {
		return nil
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return fmt.Errorf("create sqlite: %w", err)
	}
	defer db.Close()
	for _, q := range []string{fmt.Sprintf("PRAGMA page_size = %d", SQLitePageSize), "PRAGMA journal_mode = WAL"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("create sqlite: %s: %w", q, err)
		}
	}
	return db.Close()
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.bun.PingContext(ctx) }

// Close releases the connections.
func (db *DB) Close() error {
	db.backfill.close()
	return db.bun.Close()
}

// Migrate applies every pending migration of this dialect and returns the names applied.
// Running it twice is a no-op; on PostgreSQL an advisory lock keeps two starts from racing.
func (db *DB) Migrate(ctx context.Context) ([]string, error) {
	sub, err := fs.Sub(migrations.FS, string(db.Dialect))
	if err != nil {
		return nil, err
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(sub); err != nil {
		return nil, fmt.Errorf("discover migrations: %w", err)
	}
	if db.Dialect == Postgres {
		// The lock holds a connection while the migrator runs on another: a pool of one
		// (pool_max_conns=1) gets a second for as long as the migrations run.
		if sqldb := db.bun.DB; sqldb.Stats().MaxOpenConnections == 1 {
			sqldb.SetMaxOpenConns(2)
			defer sqldb.SetMaxOpenConns(1)
		}
		conn, err := db.bun.Conn(ctx)
		if err != nil {
			return nil, err
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(7243001)"); err != nil {
			return nil, fmt.Errorf("migration lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(7243001)") //nolint:errcheck
	}
	m := migrate.NewMigrator(db.bun, ms, migrate.WithMarkAppliedOnSuccess(true))
	if err := m.Init(ctx); err != nil {
		return nil, fmt.Errorf("init migrations: %w", err)
	}
	group, err := m.Migrate(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	var names []string
	for _, mg := range group.Migrations {
		names = append(names, mg.Name)
	}
	if db.Dialect == SQLite && len(names) > 0 {
		if err := db.reanalyze(ctx); err != nil {
			return names, err
		}
	}
	return names, nil
}

// reanalyze refreshes SQLite's statistics after migrations, when the database has any (crm
// seed and large imports take them). An index a migration made has none, and SQLite then
// rates it above the analysed ones: a new (tenant, stage, status, name) index served "the
// newest leads" of a million by sorting them all (100 ms a page instead of 2 ms).
func (db *DB) reanalyze(ctx context.Context) error {
	var n int
	if err := db.bun.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'").Scan(&n); err != nil || n == 0 {
		return err
	}
	_, err := db.bun.ExecContext(ctx, "ANALYZE")
	return err
}

// RunInTx runs fn in one transaction: committed if fn returns nil, rolled back otherwise.
func (db *DB) RunInTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	gen := callerGen.Load()
	err := db.bun.RunInTx(ctx, nil, fn)
	if callerGen.Load() != gen { // a caller table written: see Scope.Tx
		callersChanged()
	}
	return err
}
