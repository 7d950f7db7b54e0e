package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// checkMonthCounters compares lead_month_counts with lead_day_counts summed by month: the
// triggers on the day counters keep the months in step after inserts, updates, deletes,
// imports and undos (checkCounters, which calls this, compares the days with the leads).
func checkMonthCounters(t *testing.T, db *DB, step string) {
	t.Helper()
	month := "substr(day, 1, 7)"
	kept := "substr(month, 1, 7)"
	if db.Dialect == Postgres {
		month, kept = "to_char(day, 'YYYY-MM')", "to_char(month, 'YYYY-MM')"
	}
	read := func(q string) []string {
		var rows []struct {
			T, U, A, B, C, N int64
			M                string
		}
		if err := scanAsEachTenant(context.Background(), db, db.bun.NewRaw(q), &rows); err != nil {
			t.Fatalf("%s: lead_month_counts: %v", step, err)
		}
		out := make([]string, len(rows))
		for i, r := range rows {
			out[i] = fmt.Sprintf("%d/%d/%s/%d/%d/%d=%d", r.T, r.U, r.M, r.A, r.B, r.C, r.N)
		}
		slices.Sort(out)
		return out
	}
	got := read("SELECT tenant_id AS t, user_id AS u, " + kept + " AS m, stage_id AS a, status_id AS b, source_id AS c, n " +
		"FROM lead_month_counts WHERE n <> 0")
	want := read("SELECT tenant_id AS t, user_id AS u, " + month + " AS m, stage_id AS a, status_id AS b, source_id AS c, " +
		"sum(n) AS n FROM lead_day_counts GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(n) <> 0")
	if !slices.Equal(got, want) {
		t.Errorf("%s: lead_month_counts\nkept    %v\nsummed  %v", step, got, want)
	}
}

// SQLite's month triggers: a day counter's n changed in place reaches its month by the
// difference, and a day counter moved to another day (no trigger does; a repair by hand
// might) takes its n from the one month to the other.
func TestMonthCountersFollowTheirDays(t *testing.T) {
	eachImportDB(t, func(t *testing.T, db *DB, s Scope, admin, rep *User) {
		if db.Dialect != SQLite {
			return // PostgreSQL's month trigger is one statement over the changed rows
		}
		ctx := context.Background()
		if err := s.SeedLeads(ctx, 40, nil); err != nil {
			t.Fatal(err)
		}
		checkMonthCounters(t, db, "seeded")
		const first = "(tenant_id, user_id, day, stage_id, status_id, source_id) = " +
			"(SELECT tenant_id, user_id, day, stage_id, status_id, source_id FROM lead_day_counts ORDER BY day DESC LIMIT 1)"
		for _, step := range []string{
			"UPDATE lead_day_counts SET n = n + 5 WHERE " + first,
			"UPDATE lead_day_counts SET day = '2020-01-15' WHERE " + first,
			"UPDATE lead_day_counts SET day = '2020-02-03', n = n - 2 WHERE day = '2020-01-15'",
		} {
			if _, err := db.bun.ExecContext(ctx, step); err != nil {
				t.Fatalf("%s: %v", step, err)
			}
			checkMonthCounters(t, db, step)
		}
	})
}
