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
		if err := db.bun.NewRaw(q).Scan(context.Background(), &rows); err != nil {
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
