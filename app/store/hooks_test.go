package store_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"crm/app/store"
	"crm/app/store/storetest"
)

// recorder keeps the text of every statement it sees.
type recorder struct {
	mu    sync.Mutex
	stmts []string
	args  [][]any // the values each statement sent apart from its text (store.BoundArgs)
}

func (r *recorder) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (r *recorder) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	r.mu.Lock()
	r.stmts = append(r.stmts, fmt.Sprint(e.Query, store.BoundArgs(ctx)))
	r.args = append(r.args, store.BoundArgs(ctx))
	r.mu.Unlock()
}

// TestQueryHookSeesTheStatementsOfAStoreCall: a hook added with AddQueryHook receives the
// lead view's statement with its values, written in or sent apart (store.BoundArgs),
// ready to run again as it is.
func TestQueryHookSeesTheStatementsOfAStoreCall(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tn, u := newTenant(t, db, "Hooked", "hook@example.test")
		rec := &recorder{}
		db.AddQueryHook(rec)
		_, err := db.Tenant(tn.ID, u.ID).LeadView(ctx, 987654321)
		if err == nil {
			t.Fatal("a missing lead was found")
		}
		rec.mu.Lock()
		defer rec.mu.Unlock()
		found := false
		for _, s := range rec.stmts {
			found = found || (strings.Contains(s, "987654321") && strings.Contains(strings.ToLower(s), "from \"leads\""))
		}
		if !found {
			t.Fatalf("the lead view's statement was not recorded: %q", rec.stmts)
		}
	})
}
