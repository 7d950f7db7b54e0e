package sqlitemutex_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"crm/app/race"
	"crm/app/store"
	"crm/app/store/sqlitemutex"
)

// TestStoreConnectionsRunWithoutTheirMutex: the store installs the mutexes when the process
// starts, and the SQLite connections it opens get the free one. Fails if Install is not
// called before SQLite's first use, or fails.
func TestStoreConnectionsRunWithoutTheirMutex(t *testing.T) {
	if err := store.SQLiteMutexes(); err != nil {
		t.Fatalf("the store's SQLite connections keep the driver's mutex: %v", err)
	}
	ctx := context.Background()
	before := sqlitemutex.Installed()
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "crm.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Open has opened at least one connection (it pings the database).
	if got := sqlitemutex.Installed() - before; got < 1 {
		t.Errorf("%d connections opened with the free mutex, want at least 1", got)
	}
}

// TestConnectionsStillShareSafely: what SQLite's connections share in one process — the
// open file and its locks, the write-ahead log's shared index, the page cache's memory —
// keeps its real mutexes. Writers and readers on their own connections to one file, at
// once: every row written is there, the database is intact, and (in the suite's race
// step) the detector sees no unguarded access. With every mutex made free, it reports
// races in SQLite's shared structures, or the database comes out wrong.
func TestConnectionsStillShareSafely(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "shared.db")+
		"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(30000)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(8)
	if _, err := db.ExecContext(ctx, "CREATE TABLE rows (id INTEGER PRIMARY KEY, writer INTEGER, body TEXT)"); err != nil {
		t.Fatal(err)
	}
	writers, perWriter := 4, 300
	if race.Enabled {
		perWriter = 60
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	done := make(chan struct{})
	for w := range writers {
		wg.Go(func() {
			for i := 0; i < perWriter; i += 10 {
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					errs <- err
					return
				}
				for j := range 10 {
					if _, err := tx.ExecContext(ctx, "INSERT INTO rows (writer, body) VALUES (?, ?)", w, fmt.Sprintf("row %d of writer %d", i+j, w)); err != nil {
						_ = tx.Rollback()
						errs <- err
						return
					}
				}
				if err := tx.Commit(); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	var readers sync.WaitGroup
	for range 3 {
		readers.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				var n, bytes int64
				if err := db.QueryRowContext(ctx, "SELECT count(*), coalesce(sum(length(body)), 0) FROM rows").Scan(&n, &bytes); err != nil {
					errs <- err
					return
				}
				if n%10 != 0 {
					errs <- fmt.Errorf("a reader saw %d rows: part of a transaction", n)
					return
				}
			}
		})
	}
	wg.Wait()
	close(done)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(DISTINCT writer || ':' || body) FROM rows").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != writers*perWriter {
		t.Errorf("%d distinct rows, want %d", n, writers*perWriter)
	}
	var check string
	if err := db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check: %q, %v", check, err)
	}
}
