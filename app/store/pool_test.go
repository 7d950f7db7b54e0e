package store

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestPoolSizeIsTakenFromTheURL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		url, want string
		n         int
	}{
		{"postgres://u@h:5432/db?sslmode=disable", "postgres://u@h:5432/db?sslmode=disable", max(4, runtime.GOMAXPROCS(0))},
		{"postgres://u@h:5432/db?pool_max_conns=12&sslmode=disable", "postgres://u@h:5432/db?sslmode=disable", 12},
		{"postgresql://u@h/db?pool_max_conns=1", "postgresql://u@h/db", 1},
	} {
		url, n, err := poolSize(c.url)
		if err != nil || url != c.want || n != c.n {
			t.Errorf("poolSize(%q) = %q, %d, %v; want %q, %d", c.url, url, n, err, c.want, c.n)
		}
	}
	for _, bad := range []string{"postgres://h/db?pool_max_conns=0", "postgres://h/db?pool_max_conns=many", "postgres://h/db?pool_max_conns="} {
		if _, _, err := poolSize(bad); err == nil || !strings.Contains(err.Error(), poolMaxConnsParam) {
			t.Errorf("poolSize(%q): %v, want an error naming %s", bad, err, poolMaxConnsParam)
		}
	}
}

// TestOpenKeepsThePoolSizeOfTheURL: Open keeps at most pool_max_conns connections to
// PostgreSQL, the default without it, and does not pass the parameter on to the server
// (which would refuse it as an unknown setting).
func TestOpenKeepsThePoolSizeOfTheURL(t *testing.T) {
	t.Parallel()
	base := os.Getenv("TEST_DATABASE_URL")
	if base == "" {
		t.Skip("TEST_DATABASE_URL not set")
	}
	three, err := WithPoolSize(base, 3)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for url, want := range map[string]int{base: defaultPoolSize(), three: 3} {
		db, err := Open(ctx, url)
		if err != nil {
			t.Fatalf("open %s: %v", url, err)
		}
		var one int
		if err := db.bun.NewRaw("SELECT 1").Scan(ctx, &one); err != nil || one != 1 {
			t.Errorf("%s: a query: %v", url, err)
		}
		if got := db.bun.DB.Stats().MaxOpenConnections; got != want {
			t.Errorf("%s: at most %d connections, want %d", url, got, want)
		}
		_ = db.Close()
	}
}

// SQLite's requests share one connection a core, at least two, each of which pays for every
// commit by faulting its memory map in again; an import's batches run on connections of their
// own (sqliteBulkConns), so a batch goes ahead while the requests hold every one of theirs.
// Before, the batches took the requests' connections: this batch waited for its deadline.
func TestSQLiteImportBatchesHaveConnectionsOfTheirOwn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s, _, _ := openImportTestDB(t, SQLite)
	if got, want := db.bun.DB.Stats().MaxOpenConnections, max(2, runtime.GOMAXPROCS(0)); got != want {
		t.Errorf("the requests share %d SQLite connections, want %d", got, want)
	}
	if got := db.bulk.DB.Stats().MaxOpenConnections; got != sqliteBulkConns {
		t.Errorf("the import has %d SQLite connections, want %d", got, sqliteBulkConns)
	}
	for range db.bun.DB.Stats().MaxOpenConnections { // every request connection held
		c, err := db.bun.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	// The deadline only bounds a failure: a batch that waits for a request's connection
	// would wait for ever.
	bounded, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var one int
	if err := s.importTx(bounded, LeadEntity, func(tx Scope) error {
		return tx.idb.NewRaw("SELECT 1").Scan(bounded, &one)
	}); err != nil || one != 1 {
		t.Fatalf("an import batch while the requests hold every connection: %d, %v", one, err)
	}
}
