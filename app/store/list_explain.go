package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
)

// The explain hook of the lists and the dashboard: under explainPlans, every statement that
// goes through scanList is explained instead of run, and its plan recorded. The CI checks
// (TestLeadListPlansUseIndexes, TestClientListPlansUseIndexes, TestDashboardReadsOnlyCounters)
// and operators use it to see that each statement is served by an index.

// explainKey marks a context whose list queries are explained instead of run.
type explainKey struct{}

type explainLog struct{ plans []string }

// explaining reports whether the statements are explained instead of run: the code then
// runs every statement it may run (none is skipped for being known to find nothing).
func explaining(ctx context.Context) bool {
	_, ok := ctx.Value(explainKey{}).(*explainLog)
	return ok
}

// explainPlans runs fn with its statements explained instead of run, and returns the plan
// of each, headed by its SQL: EXPLAIN on PostgreSQL, EXPLAIN QUERY PLAN on SQLite.
func explainPlans(ctx context.Context, fn func(ctx context.Context) error) ([]string, error) {
	x := &explainLog{}
	err := fn(context.WithValue(ctx, explainKey{}, x))
	return x.plans, err
}

// scanList runs a query of a list, or, under explainPlans, records its plan.
func (s Scope) scanList(ctx context.Context, sel *bun.SelectQuery, dest ...any) error {
	x, ok := ctx.Value(explainKey{}).(*explainLog)
	if !ok {
		return sel.Scan(ctx, dest...)
	}
	query := sel.String()
	prefix := "EXPLAIN QUERY PLAN "
	if s.Dialect() == Postgres {
		prefix = "EXPLAIN "
	}
	rows, err := s.idb.QueryContext(ctx, prefix+query)
	if err != nil {
		return fmt.Errorf("explain %s: %w", query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	var plan strings.Builder
	plan.WriteString(query + "\n")
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		fmt.Fprintf(&plan, "  %v\n", vals[len(vals)-1]) // the detail is the last column
	}
	x.plans = append(x.plans, plan.String())
	return rows.Err()
}
