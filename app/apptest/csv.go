package apptest

import (
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// BOM is the byte order mark that starts every CSV the server writes.
const BOM = "\ufeff"

// ReadCSV reads the records of s, fields separated by comma, rows of any length.
func ReadCSV(s string, comma rune) ([][]string, error) {
	r := csv.NewReader(strings.NewReader(s))
	r.Comma = comma
	r.FieldsPerRecord = -1
	return r.ReadAll()
}

// ExportCSV downloads an export and returns its records without the byte order mark,
// checking it is a CSV attachment.
func ExportCSV(t *testing.T, c *Client, path string, comma rune) [][]string {
	t.Helper()
	r := c.Get(path)
	if r.Status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Fatalf("GET %s: content type %q", path, ct)
	}
	if cd := r.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment; filename=") || !strings.HasSuffix(cd, ".csv") {
		t.Fatalf("GET %s: content disposition %q", path, cd)
	}
	if !strings.HasPrefix(r.Body, BOM) {
		t.Fatalf("GET %s: no byte order mark: %.40q", path, r.Body)
	}
	recs, err := ReadCSV(strings.TrimPrefix(r.Body, BOM), comma)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return recs
}

// ExportIDs are the ids of an export's rows (its first column), in order.
func ExportIDs(t *testing.T, recs [][]string) []int64 {
	t.Helper()
	var out []int64
	for _, rec := range recs[1:] {
		id, err := strconv.ParseInt(rec[0], 10, 64)
		if err != nil {
			t.Fatalf("id %q", rec[0])
		}
		out = append(out, id)
	}
	return out
}
