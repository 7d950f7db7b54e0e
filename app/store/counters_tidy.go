package store

import "context"

// emptyCounters are the counter tables of leads and clients, in the order DropEmptyCounters
// empties them: a month before its days (on SQLite a day counter's delete updates its
// month), lead_user_counts before lead_counts (on SQLite lead_counts' delete trigger
// writes lead_user_counts; a counter at 0 moves nothing).
var emptyCounters = []any{(*leadMonthCount)(nil), (*leadDayCount)(nil), (*clientDayCount)(nil),
	(*leadUserCount)(nil), (*leadCount)(nil)}

// DropEmptyCounters deletes the tenant's counters that count nothing. The triggers keep a
// counter at 0 when its last lead or client goes: an import of 100,000 leads and its undo
// left a quarter of the bench's day and month counters at 0 (220,000 rows), which the
// dashboards read and the database kept. The import runner's tidy calls it after a large
// import or undo. A counter that a concurrent write moves off 0 is kept (the delete checks
// n again after that write), and one it needs after the delete is inserted again by its
// upsert.
func (db *DB) DropEmptyCounters(ctx context.Context, tenantID int64) (int64, error) {
	s := db.System(tenantID, 0)
	var dropped int64
	for _, model := range emptyCounters {
		res, err := s.Delete(model).Where("?TableAlias.n = 0").Exec(ctx)
		if err != nil {
			return dropped, err
		}
		n, _ := res.RowsAffected()
		dropped += n
	}
	return dropped, nil
}
