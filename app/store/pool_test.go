package store

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
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

// TestSQLiteKeepsThePoolSizeOfPostgreSQL: a SQLite database keeps as many connections as
// PostgreSQL's default pool, each of which pays for a write by rebuilding its memory map.
func TestSQLiteKeepsThePoolSizeOfPostgreSQL(t *testing.T) {
	t.Parallel()
	db, err := Open(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "pool.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got, want := db.bun.DB.Stats().MaxOpenConnections, defaultPoolSize(); got != want {
		t.Errorf("at most %d SQLite connections, want %d", got, want)
	}
}
