package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"crm/app/store"
	"crm/app/store/storetest"
)

// goroutineID is the id of the calling goroutine, as the runtime's dumps write it.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := bytes.Cut(bytes.TrimPrefix(buf, []byte("goroutine ")), []byte(" "))
	return string(id)
}

// sqlWatchers counts the goroutines database/sql started, from goroutine id, to watch the
// context of rows that are still open.
func sqlWatchers(id string) int {
	var dump bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&dump, 2)
	return bytes.Count(dump.Bytes(), []byte("created by database/sql.(*Rows).initContextClose in goroutine "+id+"\n"))
}

// watchersWhileOpen is a column scanner that counts, while its rows are open, the context
// watchers database/sql started from the scanning goroutine.
type watchersWhileOpen struct {
	id string
	n  int
}

func (w *watchersWhileOpen) Scan(any) error {
	w.n = sqlWatchers(w.id)
	return nil
}

// settleWatchers waits until the watchers of rows this goroutine closed before have
// returned: database/sql tells a watcher to stop when its rows close, but the watcher
// leaves when it is next scheduled, which on a slow machine can be after the next read
// has begun, and would be counted as that read's.
func settleWatchers(t *testing.T, id string) {
	t.Helper()
	for give := time.Now().Add(time.Minute); sqlWatchers(id) != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(give) { // a bound on a failure, not a wait for success
			t.Fatalf("watchers of closed rows still running a minute later")
		}
	}
}

// TestTenantReadsLeaveTheRequestToTheDriver: a tenant's read under a request's context,
// which can end, starts no goroutine of database/sql to watch it (detach.go: each costs a
// wake-up of an idle thread), while a read outside the scopes still does, which shows the
// check sees one where there is one; and a request that ends still stops its statement,
// now through the driver alone: a statement that would otherwise run for ten minutes (on
// SQLite one that never ends) fails with the context's error.
func TestTenantReadsLeaveTheRequestToTheDriver(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		tn, admin := newTenant(t, db, "Detach", "detach@example.test")
		s := db.System(tn.ID, admin.ID)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()

		scope := &watchersWhileOpen{id: goroutineID()}
		settleWatchers(t, scope.id)
		if err := s.Raw("SELECT 1").Scan(ctx, scope); err != nil {
			t.Fatal(err)
		}
		outside := &watchersWhileOpen{id: goroutineID()}
		settleWatchers(t, outside.id)
		if err := db.Raw("SELECT 1").Scan(ctx, outside); err != nil {
			t.Fatal(err)
		}
		if scope.n != 0 || outside.n != 1 {
			t.Errorf("database/sql's watchers while the rows were open: %d for the tenant's read (want 0), %d outside the scopes (want 1)",
				scope.n, outside.n)
		}

		long := "SELECT pg_sleep(600)"
		if db.Dialect == store.SQLite {
			long = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
		}
		ctx, stop := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer stop()
		done := make(chan error, 1)
		go func() {
			var n any
			done <- s.Raw(long).Scan(ctx, &n)
		}()
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("the statement of an ended request: %v, want the context's error", err)
			}
		case <-time.After(time.Minute): // a bound on a failure, not a wait for success
			t.Fatal(fmt.Sprintf("the statement still ran a minute after its request ended (%s)", db.Dialect))
		}
		if err := s.Raw("SELECT 1").Scan(context.Background(), new(int)); err != nil {
			t.Errorf("a read after the cancelled one: %v", err)
		}
		ended, end := context.WithCancel(context.Background())
		end()
		if err := s.Raw("SELECT 1").Scan(ended, new(int)); !errors.Is(err, context.Canceled) {
			t.Errorf("a read of a request that had ended already: %v, want the context's error", err)
		}
	})
}
