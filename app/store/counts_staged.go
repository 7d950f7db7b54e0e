package store

import (
	"context"
	"database/sql"
)

// What a transaction runs to set its counters' moves aside (stageCounts) and to add them to
// the counters at its end (flushCounts): on PostgreSQL the functions of migration
// 20261127100000_staged_counts, on SQLite the statements below over the tables and
// triggers of migration 20261130100000_staged_counts. Between the two, the counters'
// triggers write a row of the counted columns for each lead or client written or removed
// instead of upserting the counters themselves; the flush adds those rows up and upserts each counter table once,
// in key order. A transaction that stages must flush before it commits.
var (
	stageCountsSQL = map[Dialect][]string{
		Postgres: {"SELECT counts_stage()"},
		SQLite:   {"INSERT INTO counts_staged (flushing) VALUES (0)"},
	}
	flushCountsSQL = map[Dialect][]string{
		Postgres: {"SELECT counts_flush()"},
		SQLite: {
			// The day counters' month triggers stand aside: the months come from the moves
			// below, in one statement in key order, rather than from a trigger run for each
			// day counter the flush writes.
			"UPDATE counts_staged SET flushing = 1",
			// lead_counts' own triggers then move lead_user_counts, a few hundred keys.
			`INSERT INTO lead_counts (tenant_id, stage_id, status_id, owner_id, created_by, n)
SELECT tenant_id, stage_id, status_id, COALESCE(owner_id, 0), COALESCE(created_by, 0), sum(n) FROM staged_lead_moves
GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4, 5
ON CONFLICT (tenant_id, stage_id, status_id, owner_id, created_by) DO UPDATE SET n = n + excluded.n`,
			`INSERT INTO lead_day_counts (tenant_id, user_id, day, stage_id, status_id, source_id, n)
SELECT tenant_id, user_id, day, stage_id, status_id, source_id, sum(n) FROM staged_lead_user_moves
GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4, 5, 6
ON CONFLICT (tenant_id, user_id, day, stage_id, status_id, source_id) DO UPDATE SET n = n + excluded.n`,
			`INSERT INTO lead_month_counts (tenant_id, user_id, month, stage_id, status_id, source_id, n)
SELECT tenant_id, user_id, substr(day, 1, 7) || '-01', stage_id, status_id, source_id, sum(n) FROM staged_lead_user_moves
GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4, 5, 6
ON CONFLICT (tenant_id, user_id, month, stage_id, status_id, source_id) DO UPDATE SET n = n + excluded.n`,
			`INSERT INTO client_day_counts (tenant_id, user_id, day, n)
SELECT tenant_id, user_id, day, sum(n) FROM staged_client_user_moves
GROUP BY 1, 2, 3 HAVING sum(n) <> 0 ORDER BY 1, 2, 3
ON CONFLICT (tenant_id, user_id, day) DO UPDATE SET n = n + excluded.n`,
			"DELETE FROM staged_lead_moves",
			"DELETE FROM staged_client_moves",
			"DELETE FROM counts_staged",
		},
	}
)

// stageCounts sets the counters' moves of the rest of the transaction s is bound to aside.
func (s Scope) stageCounts(ctx context.Context) error {
	return execAll(ctx, s.idb, stageCountsSQL[s.Dialect()]...)
}

// flushCounts adds the moves set aside since stageCounts to the counters; what the
// transaction writes after it goes straight to the counters again.
func (s Scope) flushCounts(ctx context.Context) error {
	return execAll(ctx, s.idb, flushCountsSQL[s.Dialect()]...)
}

// execAll runs statements without arguments in order on db (a transaction, a connection),
// stopping at the first that fails.
func execAll(ctx context.Context, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, stmts ...string) error {
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}
