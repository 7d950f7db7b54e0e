package importer_test

import (
	"testing"
	"unicode/utf8"

	"crm/app/importer"
)

// FuzzCSV: any uploaded bytes are inspected and read through without a panic; what comes
// out is UTF-8 text, header and cells, as wide as the header.
func FuzzCSV(f *testing.F) {
	for _, s := range []string{"Name,Email\nAnn,ann@example.com\n", "\xef\xbb\xbfName;Email\r\nZoë;z@example.com\r\n",
		"Name\tPhone\n\"Ann\"\"s\"\t0123\n", "Name,Email\n\"unclosed,x\n", "Name\x00,Email\nA\x00nn,a@b.c\n", "Nom,Ville\nJos\xe9,Gen\xe8ve\n",
		"\xff\xfeN\x00a\x00m\x00e\x00\n\x00", "", "\n\n", ",,,\n,,,\n", "a|b|c\n1|2|3\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := importer.Inspect(data)
		if err != nil {
			if importer.MessageID(err) == "" {
				t.Fatalf("%q: %v has no message", data, err)
			}
			return
		}
		for _, h := range in.Header {
			if !utf8.ValidString(h) {
				t.Fatalf("%q: header %q is not UTF-8", data, h)
			}
		}
		rows, err := importer.Open(data, in.Format)
		if err != nil {
			t.Fatalf("%q: inspected, but does not open: %v", data, err)
		}
		n := 0
		for row, ok := rows.Next(); ok; row, ok = rows.Next() {
			n++
			if len(row.Cells) != len(in.Header) {
				t.Fatalf("%q: row %d has %d cells for %d columns", data, row.No, len(row.Cells), len(in.Header))
			}
			for _, c := range row.Cells {
				if !utf8.ValidString(c) {
					t.Fatalf("%q: cell %q is not UTF-8", data, c)
				}
			}
		}
		if n != in.Rows {
			t.Fatalf("%q: inspected %d rows, read %d", data, in.Rows, n)
		}
	})
}
