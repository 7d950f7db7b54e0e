package store

import (
	"database/sql"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
)

// The list reads its leads' columns by position (leadRows): a column added to Lead must be
// added to leadRowColumns, in the struct's order, or the list would not show it.
func TestLeadRowColumnsAreTheLeadsColumns(t *testing.T) {
	t.Parallel()
	table := bun.NewDB(&sql.DB{}, sqlitedialect.New()).Table(reflect.TypeFor[Lead]())
	var want []string
	for _, f := range table.Fields {
		if f.Name != "search_text" {
			want = append(want, f.Name)
		}
	}
	if !slices.Equal(leadRowColumns, want) {
		t.Errorf("leadRowColumns\n%q\nthe Lead's columns but search_text\n%q", leadRowColumns, want)
	}
}

// SQLite's times, read as text, parse to what modernc's driver gives for the same text.
func TestParseStoredTime(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 9, 30, 15, 123456000, time.UTC)
	for _, c := range []struct {
		text string
		want time.Time
	}{
		{"2026-03-01 09:30:15.123456+00:00", at},                    // bun's
		{"2026-03-01 09:30:15+00:00", at.Truncate(time.Second)},     // bun's, whole seconds
		{"2026-03-01 09:30:15", at.Truncate(time.Second)},           // CURRENT_TIMESTAMP
		{"2026-03-01T09:30:15.123456Z", at},                         // RFC 3339
		{"2026-03-01 09:30:15.123456 +0000 UTC", at},                // time.Time.String, bound by the driver
		{"2026-03-01 09:30:15.123456 +0000 UTC m=+0.000000001", at}, // with the monotonic reading
		{"2026-03-01", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}, // a date
		{"2026-03-01 15:00:15.123456+05:30", at},                    // another offset
	} {
		got, err := parseStoredTime(c.text)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("parseStoredTime(%q) = %v, %v; want %v", c.text, got, err, c.want)
		}
	}
	if _, err := parseStoredTime("yesterday"); err == nil {
		t.Error("parseStoredTime(yesterday) took it")
	}
}
