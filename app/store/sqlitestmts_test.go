package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
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
