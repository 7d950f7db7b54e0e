package clients

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
)

// Query reads the client list's state from a query string, as the list page, its htmx
// requests, the API and the CSV export all write it: search, sort, order; owner_id (one
// id, a bracketed or comma-separated list, or repeated); converted (yes or no); from and
// to (yyyy-mm-dd, UTC, the "to" day included); after or before (keyset cursors); limit.
// A sort it does not know is the default one, as the API always had it. It returns the
// store's query, the valid values worth keeping in the page's links, and the error key of
// every other value that is not valid (the page shows them; the API and the export refuse
// with 422).
func Query(in url.Values) (store.ClientQuery, url.Values, validate.Errors) {
	norm, errs := url.Values{}, validate.Errors{}
	lp := web.ReadListParams(in, norm, errs)
	q := store.ClientQuery{Search: lp.Search, Order: lp.Order, Limit: lp.Limit}
	switch srt := strings.ToLower(strings.TrimSpace(in.Get("sort"))); {
	case srt == store.SortName:
		q.Sort = store.SortCustomer
	case srt == store.SortCompanyShort:
		q.Sort = store.SortCompany
	case slices.Contains(store.ClientSorts, srt):
		q.Sort = srt
	}
	if q.Sort != "" {
		norm.Set("sort", q.Sort)
	}
	ids, ok := web.ParseIDs(in["owner_id"])
	errs.Check(ok, "owner_id", validate.KeyInvalid)
	q.OwnerIDs = ids
	for _, id := range ids {
		norm.Add("owner_id", strconv.FormatInt(id, 10))
	}
	switch c := strings.ToLower(in.Get("converted")); c {
	case "":
	case "yes", "true", "no", "false":
		yes := c == "yes" || c == "true"
		q.Converted = &yes
		norm.Set("converted", map[bool]string{true: "yes", false: "no"}[yes])
	default:
		errs.Add("converted", validate.KeyInvalid)
	}
	sent, bad := web.CreatedRange(in, &q.CreatedFrom, &q.CreatedTo)
	for name, raw := range sent {
		norm.Set(name, raw)
	}
	maps.Copy(errs, bad)
	if after := in.Get("after"); after != "" {
		q.After = after
		norm.Set("after", after)
	} else if before := in.Get("before"); before != "" {
		q.Before = before
		norm.Set("before", before)
	}
	return q, norm, errs
}

// apiQuery is Query for the API and the export: any invalid value refuses the request.
func apiQuery(in url.Values) (store.ClientQuery, error) {
	q, _, errs := Query(in)
	return q, errs.Err()
}
