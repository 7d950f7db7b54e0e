package store

import "context"

// RefreshStatistics has PostgreSQL gather the planner's statistics of e's table again, as
// its owner would with ANALYZE (through refresh_statistics(), migration
// 20261126200002: the application role owns no table). After a large import the planner
// otherwise still believes the tenant as small as the last analyze found it, or, in a table
// never analyzed, 200 rows a tenant: the next import's statements then read the whole
// tenant for each batch instead of probing their records. It reads a sample of the table
// (about a second at 2,000,000 leads) and blocks no reader or writer. SQLite: a no-op (its
// planner needs no statistics for these statements).
func (db *DB) RefreshStatistics(ctx context.Context, e *Entity) error {
	if db.Dialect != Postgres {
		return nil
	}
	_, err := db.bun.ExecContext(ctx, "SELECT refresh_statistics(?)", e.Table)
	return err
}
