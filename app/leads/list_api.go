package leads

import (
	"net/http"
	"net/url"
	"strconv"

	"crm/app/store"
	"crm/app/web"
)

type leadSummary struct {
	Won  int64 `json:"won"`
	Lost int64 `json:"lost"`
}

// ListData is a page of the lead list: the list envelope's result, total, page and limit;
// total_capped when the total stopped counting at LeadCountCap ("10,000+"); next, the
// `after` of the following page (null on the last); and the won and lost counts.
type ListData struct {
	web.List[leadJSON]
	TotalCapped bool        `json:"total_capped"`
	Next        *string     `json:"next"`
	Summary     leadSummary `json:"summary"`
}

// LeadList is GET /v1/api/lead/list-customer-lead: the lead list page by page, with
// the query Query reads (search, sort, order, the id filters, from, to, after,
// limit) and `page` for offset paging (the mobile list); `after` pages by keyset instead.
func (h *Handler) LeadList(w http.ResponseWriter, r *http.Request) {
	q, err := apiQuery(r.URL.Query())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	out, err := listPage(r, q, int(web.IntParam(r, "page")))
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", out)
}

// FirstPage is what GET /v1/api/lead/list-customer-lead?page=1&limit=<limit> answers the
// caller of r (no search, no filter, the default sort): the mobile list's shell renders it
// before its script runs and hands it to the island.
func FirstPage(r *http.Request, limit int) (ListData, error) {
	q, err := apiQuery(url.Values{"page": {"1"}, "limit": {strconv.Itoa(limit)}})
	if err != nil {
		return ListData{}, err
	}
	return listPage(r, q, 1)
}

// listPage reads one page of the caller's leads, page by page when page > 0.
func listPage(r *http.Request, q store.LeadQuery, page int) (ListData, error) {
	q.Page = page
	res, err := web.Scope(r).ListLeads(r.Context(), q)
	if err != nil {
		return ListData{}, err
	}
	out := ListData{List: web.List[leadJSON]{Result: make([]leadJSON, 0, len(res.Rows)),
		Total: res.Total, Page: res.Page, Limit: res.Limit}, TotalCapped: res.TotalCapped,
		Summary: leadSummary{Won: res.Won, Lost: res.Lost}}
	if res.Next != "" {
		out.Next = &res.Next
	}
	for i := range res.Rows {
		out.Result = append(out.Result, toLeadJSON(&res.Rows[i]))
	}
	return out, nil
}
