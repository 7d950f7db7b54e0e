package leads

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

// listFilters are the list's id filters: the URL parameter and where the query keeps it.
var listFilters = []struct {
	name string
	ids  func(*store.LeadQuery) *[]int64
	kind store.MasterKind // "" for the owner
}{
	{"stage_id", func(q *store.LeadQuery) *[]int64 { return &q.StageIDs }, store.KindStage},
	{"status_id", func(q *store.LeadQuery) *[]int64 { return &q.StatusIDs }, store.KindStatus},
	{"source_id", func(q *store.LeadQuery) *[]int64 { return &q.SourceIDs }, store.KindSource},
	{"type_id", func(q *store.LeadQuery) *[]int64 { return &q.TypeIDs }, store.KindType},
	{"owner_id", func(q *store.LeadQuery) *[]int64 { return &q.OwnerIDs }, ""},
}

// Query reads the lead list's state from a query string, as the list page, its htmx
// requests, the API and the CSV export all write it: search, sort, order; stage_id,
// status_id, source_id, type_id, owner_id (each one id, a bracketed or comma-separated
// list, or repeated); from and to (yyyy-mm-dd, the "to" day included); after (a keyset
// cursor); limit. It returns the store's query, the valid values worth keeping in the
// page's links, and the error key of every value that is not valid (the page shows them
// next to the filters; the API and the export refuse with 422).
func Query(in url.Values) (store.LeadQuery, url.Values, validate.Errors) {
	norm, errs := url.Values{}, validate.Errors{}
	lp := web.ReadListParams(in, norm, errs)
	q := store.LeadQuery{Search: lp.Search, Order: lp.Order, Limit: lp.Limit, After: in.Get("after")}
	if raw := in.Get("sort"); raw != "" {
		srt := strings.ToLower(raw)
		errs.Check(srt == store.SortName || slices.Contains(store.LeadSorts, srt), "sort", validate.KeyInvalid)
		if errs["sort"] == "" {
			q.Sort = srt
			norm.Set("sort", srt)
		}
	}
	for _, f := range listFilters {
		ids, ok := web.ParseIDs(in[f.name])
		errs.Check(ok, f.name, validate.KeyInvalid)
		*f.ids(&q) = ids
		for _, id := range ids {
			norm.Add(f.name, strconv.FormatInt(id, 10))
		}
	}
	sent, bad := web.CreatedRange(in, &q.CreatedFrom, &q.CreatedTo)
	for name, raw := range sent {
		norm.Set(name, raw)
	}
	maps.Copy(errs, bad)
	if q.After != "" {
		norm.Set("after", q.After)
	}
	return q, norm, errs
}

// apiQuery is Query for the API and the export: any invalid value refuses the request.
func apiQuery(in url.Values) (store.LeadQuery, error) {
	q, _, errs := Query(in)
	return q, errs.Err()
}
