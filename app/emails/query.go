package emails

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"crm/app/store"
	"crm/app/validate"
)

// Query reads the email history's query string (status, kind, lead_id, client_id, search,
// after, before, limit) for the page and the API alike: the store's query, the values as
// read (what the page's links keep), and the error key of each value it could not read.
func Query(in url.Values) (store.EmailQuery, url.Values, map[string]string) {
	var q store.EmailQuery
	norm, errs := url.Values{}, map[string]string{}
	if v := in.Get("status"); v != "" {
		if slices.Contains(store.EmailStatuses, v) {
			q.Status = v
			norm.Set("status", v)
		} else {
			errs["status"] = validate.KeyInvalid
		}
	}
	if v := in.Get("kind"); v != "" {
		if v == store.EmailTransactional || v == store.EmailBulk {
			q.Kind = v
			norm.Set("kind", v)
		} else {
			errs["kind"] = validate.KeyInvalid
		}
	}
	id := func(name string, dst *int64) {
		v := strings.TrimSpace(in.Get(name))
		if v == "" {
			return
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			errs[name] = validate.KeyInvalid
			return
		}
		*dst = n
		norm.Set(name, v)
	}
	id("lead_id", &q.LeadID)
	id("client_id", &q.ClientID)
	id("after", &q.After)
	id("before", &q.Before)
	if v := strings.TrimSpace(in.Get("search")); v != "" {
		if len([]rune(v)) > 200 {
			errs["search"] = validate.KeyMaxLength
		} else {
			q.Search = v
			norm.Set("search", v)
		}
	}
	if v := in.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			errs["limit"] = validate.KeyInvalid
		} else {
			q.Limit = n
			norm.Set("limit", v)
		}
	}
	return q, norm, errs
}
