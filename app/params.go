package app

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"crm/app/validate"
)

// idList reads an id list from a query parameter: the bracketed form `ids=[1,2,3]`
// DESIGN.md names, a plain `ids=1,2,3`, or repeated `ids=1&ids=2`.
func idList(r *http.Request, name string) ([]int64, bool) {
	var out []int64
	for _, raw := range r.URL.Query()[name] {
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
			out = append(out, id)
		}
	}
	return out, true
}

// createdRange reads a list's created-date range, `from` and `to` (yyyy-mm-dd, UTC), into
// the store's half-open bounds: `to` covers its whole day. It returns the values as sent
// (for the form to show again) and the key of each one that is not a date.
func createdRange(in url.Values, from, to *time.Time) (sent, bad map[string]string) {
	sent, bad = map[string]string{}, map[string]string{}
	for name, dst := range map[string]*time.Time{"from": from, "to": to} {
		raw := strings.TrimSpace(in.Get(name))
		if raw == "" {
			continue
		}
		sent[name] = raw
		day, err := time.ParseInLocation(time.DateOnly, raw, time.UTC)
		if err != nil {
			bad[name] = validate.KeyInvalidDate
			continue
		}
		if name == "to" {
			day = day.AddDate(0, 0, 1)
		}
		*dst = day
	}
	return sent, bad
}
