package testclone

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// Copies of one template are independent of each other and of the template: what a test
// writes into its copy, another copy does not see. The template is migrated once.
func TestCopiesAreIndependent(t *testing.T) {
	base := os.Getenv("TEST_DATABASE_URL")
	if base == "" {
		t.Skip("TEST_DATABASE_URL not set")
	}
	ctx := context.Background()
	var migrations atomic.Int32
	tmpl := "crm_tmpl_test_" + randomHex(4)
	migrate := func(ctx context.Context, url string) error {
		if strings.Contains(url, "/"+tmpl+"?") {
			t.Errorf("migrated %s: the template's name is taken only once it is whole", url)
		}
		migrations.Add(1)
		return exec(ctx, url, "CREATE TABLE IF NOT EXISTS marks (n int)")
	}
	t.Cleanup(func() { _ = exec(context.Background(), base, "DROP DATABASE IF EXISTS "+tmpl) })
	a, b := postgresFrom(t, base, tmpl, migrate), postgresFrom(t, base, tmpl, migrate)
	if a == b || !strings.Contains(a, "/t_") {
		t.Fatalf("copies %s and %s", a, b)
	}
	if err := exec(ctx, a, "INSERT INTO marks VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	c, err := sql.Open("pgx", b)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var n int
	if err := c.QueryRowContext(ctx, "SELECT count(*) FROM marks").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("the second copy sees %d rows the first wrote", n)
	}
	if m := migrations.Load(); m != 1 {
		t.Errorf("template migrated %d times, want once", m)
	}
}
