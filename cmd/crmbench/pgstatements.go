package main

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Where PostgreSQL's time goes under the mixed load: the server's statements that took most
// of the database's execution time, from pg_stat_statements. The server's Server-Timing and
// histograms give each request's statements; this gives the load's, across requests, which
// is what bounds the highest rate once the database is the busier side (docs/PERFORMANCE.md,
// "Twenty-seventh round"). The extension must be loaded at the server's start
// (shared_preload_libraries = 'pg_stat_statements'); without it the bench says so and
// measures the rest.

// topStatements is how many statements the breakdown lists.
const topStatements = 8

// statementTime is one statement's share of a load, as pg_stat_statements counts it.
type statementTime struct {
	query   string
	calls   int64
	totalMS float64 // execution time, all calls
	rows    int64
}

// statementClock reads pg_stat_statements for the bench's database, over the owner's
// connection.
type statementClock struct{ db *sql.DB }

// startStatementClock empties the counts before a load, or says why the breakdown cannot be
// had (nil clock, a reason).
func (b *bench) startStatementClock(ctx context.Context) (*statementClock, string) {
	if b.engine != "postgres" {
		return nil, ""
	}
	db, err := sql.Open("pgx", b.dbURL)
	if err != nil {
		return nil, err.Error()
	}
	for _, q := range []string{"CREATE EXTENSION IF NOT EXISTS pg_stat_statements", "SELECT pg_stat_statements_reset()"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			db.Close()
			reason, _, _ := strings.Cut(err.Error(), "\n")
			return nil, "pg_stat_statements unavailable (" + reason + "); to measure, add it to shared_preload_libraries and restart PostgreSQL"
		}
	}
	return &statementClock{db: db}, ""
}

// read gives every statement of the bench's database since the start, costliest first, and
// closes the clock.
func (c *statementClock) read(ctx context.Context) ([]statementTime, error) {
	defer c.db.Close()
	rows, err := c.db.QueryContext(ctx, `SELECT query, calls, total_exec_time, rows FROM pg_stat_statements
		WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY total_exec_time DESC`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []statementTime
	for rows.Next() {
		var s statementTime
		if err := rows.Scan(&s.query, &s.calls, &s.totalMS, &s.rows); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// statementLines writes the n costliest statements (all, costliest first) with their share of
// the total execution time, their calls and mean time, and the first words of their text.
func statementLines(all []statementTime, n int) []string {
	var total float64
	for _, s := range all {
		total += s.totalMS
	}
	if total <= 0 {
		return nil
	}
	lines := []string{fmt.Sprintf("PostgreSQL execution time %.1f s over %d statement(s); the costliest:", total/1000, len(all))}
	for _, s := range all[:min(n, len(all))] {
		text := strings.Join(strings.Fields(s.query), " ")
		if r := []rune(text); len(r) > 140 {
			text = string(r[:140]) + "…"
		}
		mean := 0.0
		if s.calls > 0 {
			mean = s.totalMS / float64(s.calls)
		}
		lines = append(lines, fmt.Sprintf("  %5.1f %%  %6d calls  %8.3f ms each  %7.1f rows each  %s",
			100*s.totalMS/total, s.calls, mean, float64(s.rows)/float64(max(s.calls, 1)), text))
	}
	return lines
}

// statementBreakdown prints where PostgreSQL's time went during the mixed load (or why it
// was not measured) and reports its costliest statement.
func (b *bench) statementBreakdown(ctx context.Context, clock *statementClock, why string) {
	const name = "PostgreSQL time by statement, mixed load"
	if clock == nil {
		if why != "" {
			fmt.Fprintln(b.out, name+": "+why)
			b.results = append(b.results, result{engine: b.engine, name: name, note: "not measured: " + why})
		}
		return
	}
	all, err := clock.read(ctx)
	if err != nil {
		fmt.Fprintln(b.out, name+": "+err.Error())
		return
	}
	lines := statementLines(all, topStatements)
	for _, l := range lines {
		fmt.Fprintln(b.out, l)
	}
	if len(lines) > 1 {
		b.results = append(b.results, result{engine: b.engine, name: name + " (the costliest; all in the run's output)", figure: strings.ReplaceAll(strings.TrimSpace(lines[1]), "|", `\|`)}) // a pipe would end the table's cell
	}
}
