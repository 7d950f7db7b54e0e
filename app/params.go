package app

import (
	"net/http"
	"strconv"
	"strings"
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
