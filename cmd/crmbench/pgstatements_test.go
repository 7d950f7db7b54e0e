package main

import (
	"strings"
	"testing"
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
