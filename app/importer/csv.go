// Package importer is the CSV import machinery: it reads an uploaded file (UTF-8 with or
// without a byte order mark, or Windows-1252 as older spreadsheet apps save it; comma,
// semicolon or tab as detected), suggests which column is which field from the header,
// turns each row into the store's input, and runs an import (or its undo) in the
// background, batch by batch, each batch one transaction in the store.
//
// What an import does with a row, in file order:
//   - Each mapped cell is trimmed; an empty cell sets nothing: a new record takes the
//     defaults of the create form (default stage, status and source; the importing user as
//     owner), an updated record keeps its value.
//   - Stage, status, source, type and company type are given by name (any case), or by id; a
//     name the tenant does not have fails the row with the reason ("Stage: "Nope" is not in
//     the list.") rather than falling back to a default, so that no data is silently changed.
//     The owner is a user's email or name (a name two users share fails the row).
//   - A phone number loses its spaces, dashes, dots, slashes and brackets; the store's
//     validation then judges it, like every other field (LeadInput, ClientInput).
//   - A row matches existing records by the match key (email, or phone), within what the
//     user may reach: create-only skips it as a duplicate, update-only updates the one match
//     (or skips the row when there is none), upsert does either. Several matches fail the row.
//     Earlier rows count: a second row with the same email is a duplicate of the first.
//   - Row numbers count the header as row 1, as a spreadsheet app shows them; blank lines
//     are not rows.
package importer

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// Limits of an uploaded file.
const (
	MaxFileBytes = 32 << 20 // 32 MiB: well over 100,000 rows of a lead export
	MaxColumns   = 200
	PreviewRows  = 10
)

// Encodings a file may come in.
const (
	EncodingUTF8        = "utf-8"
	EncodingWindows1252 = "windows-1252"
)

// Errors of a file that cannot be imported; the message ids are under imports.error.
var (
	ErrEmpty          = errors.New("importer: the file is empty")
	ErrNoRows         = errors.New("importer: the file has a header but no rows")
	ErrTooManyColumns = errors.New("importer: too many columns")
	ErrEncoding       = errors.New("importer: unsupported text encoding")
	ErrHeader         = errors.New("importer: the header line is not valid CSV")
)

// MessageID is the imports.error message id of an error of Inspect, or "" for another error.
func MessageID(err error) string {
	switch {
	case errors.Is(err, ErrEmpty):
		return "imports.error.empty"
	case errors.Is(err, ErrNoRows):
		return "imports.error.noRows"
	case errors.Is(err, ErrTooManyColumns):
		return "imports.error.tooManyColumns"
	case errors.Is(err, ErrEncoding):
		return "imports.error.encoding"
	case errors.Is(err, ErrHeader):
		return "imports.error.header"
	}
	return ""
}

// Format is how a file is written.
type Format struct {
	Delimiter rune
	Encoding  string
}

// Inspection is what an upload shows before its mapping: the format, the header, the
// first rows and how many rows there are.
type Inspection struct {
	Format  Format
	Header  []string
	Preview [][]string // up to PreviewRows rows, each as wide as the header
	Rows    int
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// decode returns the file as UTF-8 text without a byte order mark, and its encoding.
func decode(data []byte) ([]byte, string, error) {
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return nil, "", ErrEncoding // UTF-16: "Unicode text" from a spreadsheet; save as CSV UTF-8
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	if utf8.Valid(data) {
		return data, EncodingUTF8, nil
	}
	out, err := charmap.Windows1252.NewDecoder().Bytes(data)
	if err != nil {
		return nil, "", ErrEncoding
	}
	return out, EncodingWindows1252, nil
}

// sniffDelimiter picks comma, semicolon or tab: whichever the header line holds most of,
// outside quotes (a comma on a tie, or when there is none).
func sniffDelimiter(text []byte) rune {
	counts := map[rune]int{}
	quoted := false
	for _, r := range string(text) {
		if r == '"' {
			quoted = !quoted
			continue
		}
		if quoted {
			continue
		}
		if r == '\n' {
			break
		}
		switch r {
		case ',', ';', '\t':
			counts[r]++
		}
	}
	best := ','
	for _, r := range []rune{';', '\t'} {
		if counts[r] > counts[best] {
			best = r
		}
	}
	return best
}

// Rows reads the data rows of a file one by one.
type Rows struct {
	r      *csv.Reader
	width  int
	n      int // data rows read
	header []string
}

// Row is one data row: its number (the header is row 1, as in a spreadsheet), its cells
// (as many as the header has columns) and, for a line that is not valid CSV, the error.
type Row struct {
	No    int
	Cells []string
	Err   error
}

// Open reads the header of a file in the given format (from Inspect).
func Open(data []byte, f Format) (*Rows, error) {
	text, _, err := decode(data) // the encoding is found again, the same way
	if err != nil {
		return nil, err
	}
	r := csv.NewReader(bytes.NewReader(text))
	r.Comma = f.Delimiter
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return nil, ErrEmpty
	}
	if err != nil {
		return nil, ErrHeader
	}
	if len(header) > MaxColumns {
		return nil, ErrTooManyColumns
	}
	h := make([]string, len(header))
	for i, name := range header {
		h[i] = strings.TrimSpace(name)
	}
	return &Rows{r: r, width: len(h), header: h}, nil
}

// Header is the file's header, trimmed.
func (rs *Rows) Header() []string { return rs.header }

// Next reads the next data row; ok is false at the end of the file. Lines with no cell
// holding anything but spaces are passed over (they are not rows of data).
func (rs *Rows) Next() (Row, bool) {
	for {
		rec, err := rs.r.Read()
		if errors.Is(err, io.EOF) {
			return Row{}, false
		}
		if err == nil && blank(rec) {
			continue
		}
		rs.n++
		row := Row{No: rs.n + 1, Err: err}
		row.Cells = make([]string, rs.width)
		copy(row.Cells, rec)
		return row, true
	}
}

func blank(rec []string) bool {
	for _, c := range rec {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// Inspect reads an uploaded file through: its format, header, first rows and row count.
func Inspect(data []byte) (*Inspection, error) {
	text, enc, err := decode(data)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(text)) == 0 {
		return nil, ErrEmpty
	}
	f := Format{Delimiter: sniffDelimiter(text), Encoding: enc}
	rs, err := Open(data, f)
	if err != nil {
		return nil, err
	}
	in := &Inspection{Format: f, Header: rs.Header(), Preview: [][]string{}}
	for {
		row, ok := rs.Next()
		if !ok {
			break
		}
		if len(in.Preview) < PreviewRows {
			in.Preview = append(in.Preview, row.Cells)
		}
		in.Rows++
	}
	if in.Rows == 0 {
		return nil, ErrNoRows
	}
	return in, nil
}

// DelimiterName names a delimiter for the store and the page ("," ";" or "tab").
func DelimiterName(r rune) string {
	if r == '\t' {
		return "tab"
	}
	return string(r)
}

// ParseDelimiter reads DelimiterName back.
func ParseDelimiter(s string) rune {
	switch s {
	case "tab":
		return '\t'
	case ";":
		return ';'
	}
	return ','
}
