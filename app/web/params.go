package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"crm/app/validate"
)

// PathID reads an id URL parameter ({id}, {docID} …); a malformed id names no record,
// so it is not found (404).
func PathID(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(chi.URLParam(r, name), 10, 64)
	if err != nil || id <= 0 {
		return 0, ErrNotFound
	}
	return id, nil
}

// ParseIDs reads ids given as repeated values, a comma list or the bracketed form
// DESIGN.md names (`ids=[1,2,3]`). Empty parts are skipped; anything else that is not a
// positive id makes the whole list invalid (ok false): a bad id is refused, never dropped.
func ParseIDs(values []string) (ids []int64, ok bool) {
	for _, raw := range values {
		raw = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(raw), "["), "]")
		for _, part := range strings.Split(raw, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			id, err := strconv.ParseInt(part, 10, 64)
			if err != nil || id <= 0 {
				return nil, false
			}
			ids = append(ids, id)
		}
	}
	return ids, true
}

// QueryIDs reads an id list from a query parameter (see ParseIDs).
func QueryIDs(r *http.Request, name string) ([]int64, bool) {
	return ParseIDs(r.URL.Query()[name])
}

// FormIDs reads the ids a form posted under name (see ParseIDs); a bad id is a 400.
func FormIDs(r *http.Request, name string) ([]int64, error) {
	ids, ok := ParseIDs(r.PostForm[name])
	if !ok {
		return nil, BadRequest("error.badIDs", nil, "Field", name)
	}
	return ids, nil
}

// CreatedRange reads a list's created-date range, `from` and `to` (yyyy-mm-dd, UTC), into
// the store's half-open bounds: `to` covers its whole day. It returns the values as sent
// (for the form to show again) and the key of each one that is not a date.
func CreatedRange(in url.Values, from, to *time.Time) (sent, bad map[string]string) {
	sent, bad = map[string]string{}, map[string]string{}
	for _, f := range []struct {
		name string
		dst  *time.Time
	}{{"from", from}, {"to", to}} {
		raw := strings.TrimSpace(in.Get(f.name))
		if raw == "" {
			continue
		}
		sent[f.name] = raw
		day, err := time.ParseInLocation(time.DateOnly, raw, time.UTC)
		if err != nil {
			bad[f.name] = validate.KeyInvalidDate
			continue
		}
		if f.name == "to" {
			day = day.AddDate(0, 0, 1)
		}
		*f.dst = day
	}
	return sent, bad
}

// IntParam reads an integer query parameter; 0 when absent or malformed. Out of range is
// malformed too (strconv gives the largest value with its error, and a page that far
// overflowed the offset).
func IntParam(r *http.Request, name string) int64 {
	n, err := strconv.ParseInt(r.URL.Query().Get(name), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// QueryHref is path with the query, or path alone when the query is empty.
func QueryHref(path string, q url.Values) string {
	if enc := q.Encode(); enc != "" {
		return path + "?" + enc
	}
	return path
}

// ReadForm parses a small url-encoded form (at most 64 KiB); a field whose text is not
// clean (see clean.go) is a field error.
func ReadForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		return BadRequest("error.form", err)
	}
	return cleanValues(r.PostForm)
}

// ReadMultipartForm parses a form posted plain or multipart (files beyond memory go to
// disk); the body must already be capped. Fields whose text is not clean are field errors.
func ReadMultipartForm(r *http.Request, memory int64) error {
	if err := r.ParseMultipartForm(memory); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return err
		}
		return BadRequest("error.form", err)
	}
	return cleanValues(r.PostForm)
}

// MaxJSONBody caps a JSON request body.
const MaxJSONBody = 1 << 20

// DecodeJSON reads one JSON object of at most MaxJSONBody bytes into dst.
func DecodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	_, err := ReadJSON(w, r, dst, MaxJSONBody)
	return err
}

// ReadJSON reads one JSON object into dst and returns the raw body: capped in size,
// unknown fields refused, and every failure a 400 (or 413) with a message a client
// developer can act on.
func ReadJSON(w http.ResponseWriter, r *http.Request, dst any, limit int64) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	err = dec.Decode(dst)
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		return nil, BadRequest("error.json.empty", err)
	case errors.As(err, &syntaxErr):
		return nil, BadRequest("error.json.syntax", err, "Offset", syntaxErr.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, BadRequest("error.json.syntax", err, "Offset", "end")
	case errors.As(err, &typeErr):
		return nil, BadRequest("error.json.type", err, "Field", typeErr.Field)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return nil, BadRequest("error.json.unknownField", err, "Field", strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`))
	default:
		return nil, BadRequest("error.json.syntax", err, "Offset", "?")
	}
	if dec.More() {
		return nil, BadRequest("error.json.trailing", nil)
	}
	if field, bad := badJSONText(body); bad {
		return nil, validate.Errors{field: validate.KeyInvalidCharacters}
	}
	return body, nil
}

// SafeNext keeps a redirect on this site: a local path only, else fallback.
func SafeNext(next, fallback string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return fallback
	}
	return next
}

// ClientIP is the caller's address (RealIP middleware has already applied a trusted proxy).
func ClientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// ListParams are what every list's query string has: a search, an order and a page size.
type ListParams struct {
	Search string
	Order  string // "asc", "desc" or "" for the sort's own
	Limit  int    // 0 for the list's default
}

// ReadListParams reads a list's search, order and limit from in, keeps the valid ones in
// norm (the values a list page's links carry) and records an invalid order or limit in errs.
func ReadListParams(in, norm url.Values, errs validate.Errors) ListParams {
	p := ListParams{Search: strings.TrimSpace(in.Get("search"))}
	if p.Search != "" {
		norm.Set("search", p.Search)
	}
	if raw := in.Get("order"); raw != "" {
		o := strings.ToLower(raw)
		errs.Check(o == "asc" || o == "desc", "order", validate.KeyInvalid)
		if errs["order"] == "" {
			p.Order = o
			norm.Set("order", o)
		}
	}
	if raw := in.Get("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		errs.Check(err == nil, "limit", validate.KeyInvalid)
		if errs["limit"] == "" {
			p.Limit = n
			norm.Set("limit", raw)
		}
	}
	return p
}
