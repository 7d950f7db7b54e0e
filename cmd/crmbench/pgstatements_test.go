package main

import (
	"strings"
	"testing"
	"time"
)

// TestStatementLinesGiveEachItsShare: the costliest statements, each with its share of the
// whole run's execution time, its mean, and its text on one line, cut at 140 characters.
func TestStatementLinesGiveEachItsShare(t *testing.T) {
	long := "SELECT\n  l.id FROM leads AS l WHERE " + strings.Repeat("l.search_text LIKE $1 AND ", 10) + "TRUE"
	all := []statementTime{
		{query: long, calls: 300, totalMS: 15000, rows: 600},
		{query: "SELECT 1", calls: 10000, totalMS: 4000, rows: 10000},
		{query: "SELECT 2", calls: 100, totalMS: 1000, rows: 0},
	}
	lines := statementLines(all, 2)
	if len(lines) != 3 {
		t.Fatalf("lines: %q", lines)
	}
	if !strings.Contains(lines[0], "20.0 s over 3 statement(s)") {
		t.Errorf("head: %q", lines[0])
	}
	for _, want := range []string{"75.0 %", "300 calls", "50.000 ms each", "2.0 rows each", "SELECT l.id FROM leads AS l WHERE l.search_text"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("first line lacks %q: %q", want, lines[1])
		}
	}
	if strings.Contains(lines[1], "\n") || !strings.HasSuffix(lines[1], "…") {
		t.Errorf("the text should be one line cut short: %q", lines[1])
	}
	if !strings.Contains(lines[2], "20.0 %") || !strings.Contains(lines[2], "0.400 ms each") {
		t.Errorf("second line: %q", lines[2])
	}
	if statementLines(nil, 5) != nil {
		t.Error("no statements should give no lines")
	}
}

// TestWarmUpStopsAtTheFirstSliceThatHolds: the warm-up runs slices until one is good
// enough, and no more than its bound when none is.
func TestWarmUpStopsAtTheFirstSliceThatHolds(t *testing.T) {
	p99s := []time.Duration{2 * time.Second, 900 * time.Millisecond, 30 * time.Millisecond, 20 * time.Millisecond}
	ran := 0
	slice := func() stats { ran++; return stats{n: 1000, p99: p99s[min(ran-1, len(p99s)-1)]} }
	holds := func(st stats) bool { return st.p99 <= 50*time.Millisecond }
	n, last := warmSlices(12, slice, holds)
	if n != 3 || ran != 3 || last.p99 != 30*time.Millisecond {
		t.Errorf("stopped after %d slice(s) (%d ran), last p99 %s; want 3, 30ms", n, ran, last.p99)
	}
	ran = 0
	n, last = warmSlices(2, slice, func(stats) bool { return false })
	if n != 2 || ran != 2 || last.p99 != 900*time.Millisecond {
		t.Errorf("never holding: %d slice(s) (%d ran), last p99 %s; want 2, 900ms", n, ran, last.p99)
	}
}
