package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime/metrics"
	"testing"
	"time"
)

// openPlainSQLite is a SQLite database as Open makes it, without the schema, with one
// table t of the numbers 1 to n.
func openPlainSQLite(t *testing.T, n int) (*DB, *sql.Conn) {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "plain.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	conn, err := db.bun.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.ExecContext(ctx, "CREATE TABLE t (n INTEGER PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < %d) INSERT INTO t SELECT n FROM c", n)); err != nil {
		t.Fatal(err)
	}
	return db, conn
}

// cacheOf is the statement cache of the connection.
func cacheOf(t *testing.T, conn *sql.Conn) (compiled, kept, closed int) {
	t.Helper()
	if err := conn.Raw(func(dc any) error {
		c, ok := dc.(*cachingConn)
		if !ok {
			return fmt.Errorf("connection %T keeps no statements", dc)
		}
		compiled, kept, closed = c.compiled, c.lru.Len(), c.closed
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return compiled, kept, closed
}

func sumOf(t *testing.T, conn *sql.Conn, query string) int {
	t.Helper()
	var sum int
	if err := conn.QueryRowContext(context.Background(), query).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	return sum
}

// A query asked again on a connection runs the statement compiled the first time; a
// PRAGMA (some do their work when compiled) is compiled every time and never kept, so
// setting one back takes effect.
func TestSQLiteKeepsQueriesCompiled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, conn := openPlainSQLite(t, 100)
	for range 3 {
		if got := sumOf(t, conn, "SELECT sum(n) FROM t"); got != 5050 {
			t.Fatalf("sum %d", got)
		}
	}
	if compiled, _, _ := cacheOf(t, conn); compiled != 1 {
		t.Fatalf("compiled %d times, want once", compiled)
	}
	if got := sumOf(t, conn, "WITH x AS (SELECT n FROM t WHERE n <= 10) SELECT sum(n) FROM x"); got != 55 {
		t.Fatalf("sum %d", got)
	}
	for _, level := range []int{1, 2, 1} {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA synchronous = %d", level)); err != nil {
			t.Fatal(err)
		}
		if got := sumOf(t, conn, "PRAGMA synchronous"); got != level {
			t.Fatalf("synchronous %d, want %d", got, level)
		}
	}
	if compiled, kept, _ := cacheOf(t, conn); compiled != 2 || kept != 2 {
		t.Fatalf("compiled %d, kept %d: want the two queries only", compiled, kept)
	}
	// A kept statement follows a change of the schema (SQLite compiles it again).
	if _, err := conn.ExecContext(ctx, "ALTER TABLE t ADD COLUMN m INTEGER DEFAULT 7"); err != nil {
		t.Fatal(err)
	}
	if got := sumOf(t, conn, "SELECT sum(n) FROM t"); got != 5050 {
		t.Fatalf("sum %d after ALTER", got)
	}
}

// A query asked again while the rows of the same text are still being read gets a
// statement of its own: the rows being read are not reset under the reader.
func TestSQLiteKeptQueryWhileItsRowsAreRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, conn := openPlainSQLite(t, 50)
	const q = "SELECT n FROM t ORDER BY n"
	rows, err := conn.QueryContext(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close() // before the connection's cleanup, should the test stop early
	want := 1
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Fatalf("row %d, want %d", n, want)
		}
		want++
		if n%10 == 0 { // the same text, read to its end, inside the loop
			inner, err := conn.QueryContext(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			defer inner.Close()
			count := 0
			for inner.Next() {
				count++
			}
			if err := inner.Close(); err != nil || count != 50 {
				t.Fatalf("inner query: %d rows, %v", count, err)
			}
		}
	}
	if err := rows.Close(); err != nil || want != 51 {
		t.Fatalf("outer query ended at %d: %v", want-1, err)
	}
}

// A connection keeps stmtCacheSize queries, the most recently used; one pushed out while
// its rows are read is closed with them, the rows read to their end first.
func TestSQLiteKeptQueriesAreBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, conn := openPlainSQLite(t, 30)
	rows, err := conn.QueryContext(ctx, "SELECT n FROM t ORDER BY n")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close() // before the connection's cleanup, should the test stop early
	for i := range stmtCacheSize + 10 {
		if got := sumOf(t, conn, fmt.Sprintf("SELECT sum(n) + %d FROM t", i)); got != 465+i {
			t.Fatalf("sum %d", got)
		}
	}
	// 75 queries: 64 kept, 11 pushed out, of which the one being read stays open.
	if _, kept, closed := cacheOf(t, conn); kept != stmtCacheSize || closed != 10 {
		t.Fatalf("kept %d, closed %d; want %d kept, 10 closed", kept, closed, stmtCacheSize)
	}
	read := 0
	for rows.Next() {
		read++
	}
	if err := rows.Close(); err != nil || read != 30 {
		t.Fatalf("rows of an evicted statement: %d, %v", read, err)
	}
	compiled, _, closed := cacheOf(t, conn)
	if closed != 11 {
		t.Fatalf("closed %d after the rows, want 11", closed)
	}
	if got := sumOf(t, conn, "SELECT sum(n) + 0 FROM t"); got != 465 { // pushed out: compiled again
		t.Fatalf("sum %d", got)
	}
	if again, _, _ := cacheOf(t, conn); again != compiled+1 {
		t.Fatalf("compiled %d → %d, want one more", compiled, again)
	}
}

// countTo asks the connection's driver directly (database/sql would start a goroutine of
// its own for a context that can end) to count from 1 to n in one statement.
func countTo(ctx context.Context, conn *sql.Conn, n int64) (int64, error) {
	var got int64
	err := conn.Raw(func(dc any) error {
		rows, err := dc.(*cachingConn).QueryContext(ctx,
			"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT count(*) FROM c",
			[]driver.NamedValue{{Ordinal: 1, Value: n}})
		if err != nil {
			return err
		}
		dest := make([]driver.Value, 1)
		err = rows.Next(dest)
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			got = dest[0].(int64)
		}
		return err
	})
	return got, err
}

// goroutinesCreated is how many goroutines the process has started so far.
func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// A kept query whose last first step was quick runs without the driver's watch, which
// starts a goroutine a statement (quickStep); one that was slow last time is watched
// again, so a request that ends stops it; and a request that has ended already is refused
// before its quick statement runs. Not parallel: it counts the goroutines the process
// starts, and the package's parallel tests wait until it is done.
func TestSQLiteQuickKeptQueriesRunUnwatched(t *testing.T) {
	_, conn := openPlainSQLite(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if n, err := countTo(ctx, conn, 1); err != nil || n != 1 { // new to the connection: watched
		t.Fatalf("count to 1: %d, %v", n, err)
	}
	const runs = 200
	before := goroutinesCreated()
	for range runs {
		if n, err := countTo(ctx, conn, 1); err != nil || n != 1 {
			t.Fatalf("count to 1: %d, %v", n, err)
		}
	}
	if started := goroutinesCreated() - before; started >= runs/4 {
		t.Errorf("%d runs of a quick kept query started %d goroutines, want next to none", runs, started)
	}

	ended, end := context.WithCancel(context.Background())
	end()
	if _, err := countTo(ended, conn, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("a quick query of a request that had ended already: %v, want the context's error", err)
	}

	// The same text made slow (a few hundred thousand steps), then endless under a request
	// that ends: the slow run leaves it watched, and the endless one is stopped.
	if n, err := countTo(ctx, conn, 300_000); err != nil || n != 300_000 {
		t.Fatalf("count to 300,000: %d, %v", n, err)
	}
	short, stop := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer stop()
	done := make(chan error, 1)
	go func() {
		_, err := countTo(short, conn, math.MaxInt64)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("an endless query after a slow run, its request ended: %v, want the context's error", err)
		}
	case <-time.After(time.Minute): // a bound on a failure, not a wait for success
		t.Fatal("the query still ran a minute after its request ended")
	}
}
