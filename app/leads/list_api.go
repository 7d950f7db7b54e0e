package leads

import (
	"crm/app/web"
	"net/http"
)

type leadSummary struct {
	Won  int64 `json:"won"`
	Lost int64 `json:"lost"`
}

// leadListData is a page of the lead list: the list envelope's result, total, page and limit;
// total_capped when the total stopped counting at LeadCountCap ("10,000+"); next, the
// `after` of the following page (null on the last); and the won and lost counts.
type leadListData struct {
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
	q.Page = int(web.IntParam(r, "page"))
	page, err := web.Scope(r).ListLeads(r.Context(), q)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	out := leadListData{List: web.List[leadJSON]{Result: make([]leadJSON, 0, len(page.Rows)),
		Total: page.Total, Page: page.Page, Limit: page.Limit}, TotalCapped: page.TotalCapped,
		Summary: leadSummary{Won: page.Won, Lost: page.Lost}}
	if page.Next != "" {
		out.Next = &page.Next
	}
	for i := range page.Rows {
		out.Result = append(out.Result, toLeadJSON(&page.Rows[i]))
	}
	h.web.OK(w, r, http.StatusOK, "ok", out)
}
