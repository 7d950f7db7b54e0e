package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"
)

// The app's requests and their SQL take turns, each side first every other time; only the
// runs after the warm-up are timed, and each side gets its own time whichever ran first.
func TestInTurnsAlternatesAndTimesEachSide(t *testing.T) {
	t.Parallel()
	var clock time.Time // a side's run moves it on by that side's own duration
	var order []string
	side := func(name string, took time.Duration) func(int) error {
		return func(k int) error {
			order = append(order, fmt.Sprint(name, k))
			clock = clock.Add(took)
			return nil
		}
	}
	a, b, err := inTurns(2, 3, side("a", time.Millisecond), side("b", time.Second), func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a0", "b0", "b1", "a1", "a2", "b2", "b3", "a3", "a4", "b4"}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	ms, s := []time.Duration{time.Millisecond, time.Millisecond, time.Millisecond}, []time.Duration{time.Second, time.Second, time.Second}
	if !slices.Equal(a, ms) || !slices.Equal(b, s) {
		t.Errorf("timed a %v and b %v, want three of 1ms and three of 1s", a, b)
	}
}

func TestInTurnsStopsAtTheFirstError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	runs := 0
	_, _, err := inTurns(0, 5, func(k int) error {
		runs++
		if k == 1 {
			return boom
		}
		return nil
	}, func(int) error { return nil }, time.Now)
	if !errors.Is(err, boom) || runs != 2 {
		t.Errorf("%v after %d runs, want boom after 2", err, runs)
	}
}

// A budgeted ratio is judged against the budget, unless a health check plus the SQL is
// already over it; a reported one is never judged, and errors of the app's side always
// count.
func TestRatioFigureJudgesWhatAnAppCouldMeet(t *testing.T) {
	t.Parallel()
	at := func(p50 time.Duration) stats { return stats{p50: p50, p99: 2 * p50} }
	ms := time.Millisecond
	for _, c := range []struct {
		name                string
		app, sql, floor     time.Duration
		budgeted, appErrors bool
		missed              bool
		limit               string
		judged              bool
	}{
		{name: "met", app: 18 * ms / 10, sql: ms, floor: ms / 5, budgeted: true, limit: "≤ 2×", judged: true},
		{name: "missed", app: 21 * ms / 10, sql: ms, floor: ms / 5, budgeted: true, missed: true, limit: "≤ 2×", judged: true},
		{name: "under the floor", app: 5 * ms, sql: ms / 10, floor: ms / 5, budgeted: true},
		{name: "under the floor, with errors", app: 5 * ms, sql: ms / 10, floor: ms / 5, budgeted: true, appErrors: true, missed: true},
		{name: "reported", app: 5 * ms, sql: ms, floor: ms / 5},
	} {
		app := at(c.app)
		if c.appErrors {
			app.errors = 1
		}
		r := ratioFigure("PostgreSQL", c.name, app, at(c.sql), c.floor, "", c.budgeted)
		if r.missed != c.missed || r.limit != c.limit {
			t.Errorf("%s: missed %v limit %q, want %v %q (%s)", c.name, r.missed, r.limit, c.missed, c.limit, r.figure)
		}
		if underFloor := c.budgeted && !c.judged; underFloor != strings.Contains(r.row(), "not judged") {
			t.Errorf("%s: row %q says whether it was judged wrongly", c.name, r.row())
		}
	}
}

// What the server's threads spent is part of the ratio's row when it was measured.
func TestRatioFigureShowsTheServersCost(t *testing.T) {
	t.Parallel()
	st := stats{p50: time.Millisecond, p99: 2 * time.Millisecond}
	cost := costPhrase(1500*time.Millisecond, 4025, 3000)
	if cost != "the server's threads: 500 µs of CPU and 1.3 switches a request" {
		t.Errorf("cost %q", cost)
	}
	if row := ratioFigure("SQLite", "list", st, st, time.Millisecond, cost, true).row(); !strings.Contains(row, "1.00×") || !strings.Contains(row, cost+")") {
		t.Errorf("row %q lacks the ratio or the server's cost", row)
	}
	if row := ratioFigure("SQLite", "list", st, st, time.Millisecond, "", true).row(); strings.Contains(row, "threads") {
		t.Errorf("row %q shows a cost it did not measure", row)
	}
}

// The replay of a request's SQL starts no goroutine a statement, as the server's reads
// start none: neither database/sql's watch of the rows nor the SQLite driver's interrupt,
// which a context that can end would start. Not parallel: it counts the goroutines the
// process starts, and the package's parallel tests wait until it is done.
func TestReplayStartsNoGoroutineAStatement(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "replay.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	run, done := replayer(ctx, conn, keepCompiled, drain)
	defer done()
	req := []statement{{text: "SELECT 1"}, {text: "SELECT ? + 1", args: []any{2}}}
	if err := run(req); err != nil { // compiles both
		t.Fatal(err)
	}
	created := func() uint64 {
		s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	const runs = 100
	before := created()
	for range runs {
		if err := run(req); err != nil {
			t.Fatal(err)
		}
	}
	if started := created() - before; started >= runs/4 {
		t.Errorf("%d replays of two statements started %d goroutines, want next to none", runs, started)
	}
}
