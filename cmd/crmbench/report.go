package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// stats are the latency figures of one measurement.
type stats struct {
	n, errors          int
	p50, p95, p99, max time.Duration
	rate               float64  // requests sent per second (fixed-rate loads), 0 when sequential
	errTexts           []string // the distinct errors, if any
}

// newStats summarises the latencies of the successful and failed requests of a measurement
// (every request's latency counts, as vegeta counts them).
func newStats(lat []time.Duration, errors int, errTexts []string) stats {
	s := slices.Clone(lat)
	slices.Sort(s)
	st := stats{n: len(s), errors: errors, errTexts: errTexts}
	st.p50, st.p95, st.p99 = quantile(s, 0.50), quantile(s, 0.95), quantile(s, 0.99)
	if len(s) > 0 {
		st.max = s[len(s)-1]
	}
	return st
}

// quantile is the nearest-rank q-quantile of sorted: the smallest value at least q of the
// values are not above (so p99 of 300 requests is the 297th).
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// vegetaStats are the figures of a vegeta load.
func vegetaStats(m *vegeta.Metrics) stats {
	return stats{n: int(m.Requests), errors: int(m.Requests) - int(float64(m.Requests)*m.Success+0.5),
		p50: m.Latencies.P50, p95: m.Latencies.P95, p99: m.Latencies.P99, max: m.Latencies.Max,
		rate: m.Rate, errTexts: m.Errors}
}

// at is the figure of quantile q (0.5, 0.95 or 0.99; the maximum otherwise).
func (s stats) at(q float64) time.Duration {
	switch q {
	case 0.5:
		return s.p50
	case 0.95:
		return s.p95
	case 0.99:
		return s.p99
	}
	return s.max
}

// result is one line of the report: a latency measurement (st, or m and rate of a vegeta
// load) against an optional quantile budget, or a figure (a ratio, a size, a rate, a
// duration) against a budget written out in limit.
type result struct {
	engine, name string
	load         string // how it was loaded: "50/s, 20 s", "sequential, 300"
	st           *stats

	rate       int             // a vegeta load's rate (when st is nil and m is set)
	m          *vegeta.Metrics // a vegeta load's metrics (when st is nil)
	quantile   float64         // the budgeted quantile (0.5, 0.95 or 0.99), 0 for none
	budget     time.Duration
	zeroErrors bool
	stmts      string // SQL statements per request ("" when not measured)

	figure string // a figure row's value
	limit  string // a figure row's budget, "" for none
	missed bool   // a figure row over its budget
	note   string // a remark (a figure row without figure shows it instead)
}

// latency is the result's latency figures, nil for a figure row.
func (r result) latency() *stats {
	if r.st != nil {
		return r.st
	}
	if r.m != nil {
		st := vegetaStats(r.m)
		return &st
	}
	return nil
}

func (r result) ok() bool {
	st := r.latency()
	if st == nil {
		return !r.missed
	}
	if r.zeroErrors && st.errors > 0 {
		return false
	}
	return r.quantile == 0 || st.at(r.quantile) <= r.budget
}

func ms(d time.Duration) string {
	f := float64(d) / float64(time.Millisecond)
	if f >= 1000 {
		return fmt.Sprintf("%s ms", thousands(int(f+0.5)))
	}
	return fmt.Sprintf("%.1f ms", f)
}

// thousands writes n with a comma between thousands, as the docs' tables do.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func (r result) verdict() string {
	v := "met"
	if !r.ok() {
		v = "**missed**"
	}
	return v
}

// latencyHeader and figureHeader head the two tables of the report.
const (
	latencyHeader = "| Engine | Measurement | Load | Requests | p50 | p95 | p99 | max | Errors | SQL/req (statements · time) | Budget |\n" +
		"|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|"
	figureHeader = "| Engine | Measurement | Figure | Budget |\n|---|---|---|---|"
)

// engineLabel is the engine's name in the tables, as docs/PERFORMANCE.md writes it.
func engineLabel(engine string) string {
	switch engine {
	case "postgres":
		return "PostgreSQL"
	case "sqlite":
		return "SQLite"
	}
	return engine
}

// row is the result's line of its table.
func (r result) row() string {
	st := r.latency()
	if st == nil {
		fig, budget := r.figure, "(reported)"
		if fig == "" {
			fig = r.note
		} else if r.note != "" {
			fig += " (" + r.note + ")"
		}
		if r.limit != "" {
			budget = r.limit + ": " + r.verdict()
		}
		return fmt.Sprintf("| %s | %s | %s | %s |", engineLabel(r.engine), r.name, fig, budget)
	}
	load := r.load
	if load == "" && r.rate > 0 {
		load = fmt.Sprintf("%d/s", r.rate)
	}
	budget := "(reported)"
	switch {
	case r.quantile > 0:
		budget = fmt.Sprintf("p%.0f ≤ %s: %s", r.quantile*100, ms(r.budget), r.verdict())
	case r.zeroErrors:
		budget = "zero errors: " + r.verdict()
	}
	if len(st.errTexts) > 0 {
		budget += " (" + strings.Join(st.errTexts[:min(len(st.errTexts), 3)], "; ") + ")"
	}
	if r.note != "" {
		budget += " " + r.note
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %s |", engineLabel(r.engine), r.name, load, thousands(st.n),
		ms(st.p50), ms(st.p95), ms(st.p99), ms(st.max), st.errors, r.stmts, budget)
}

// printTables writes the results as two Markdown tables, latencies then figures, and
// returns how many missed their budget.
func printTables(w io.Writer, all []result) int {
	failed := 0
	var lat, fig []result
	for _, r := range all {
		if r.latency() != nil {
			lat = append(lat, r)
		} else {
			fig = append(fig, r)
		}
		if !r.ok() {
			failed++
		}
	}
	if len(lat) > 0 {
		fmt.Fprintln(w, "\n"+latencyHeader)
		for _, r := range lat {
			fmt.Fprintln(w, r.row())
		}
	}
	if len(fig) > 0 {
		fmt.Fprintln(w, "\n"+figureHeader)
		for _, r := range fig {
			fmt.Fprintln(w, r.row())
		}
	}
	return failed
}
