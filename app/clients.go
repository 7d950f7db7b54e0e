package app

import (
	"maps"
	"net/http"
	"slices"
	"strings"

	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
)

// clientPayload is a client as the API takes it.
type clientPayload struct {
	CustomerTitle      string         `json:"customer_title"`
	CustomerName       string         `json:"customer_name"`
	CompanyName        string         `json:"company_name"`
	CompanyEmail       string         `json:"company_email"`
	CompanyDialCode    string         `json:"company_dial_code"`
	CompanyPhoneNumber string         `json:"company_phone_number"`
	CompanyTypeID      *int64         `json:"company_type_id"`
	OwnerID            *int64         `json:"owner_id"`
	BillingAddress     *store.Address `json:"billing_address"`
	ShippingAddress    *store.Address `json:"shipping_address"`
	Notes              string         `json:"notes"`
}

func (p clientPayload) input() store.ClientInput {
	return store.ClientInput{CustomerTitle: p.CustomerTitle, CustomerName: p.CustomerName, CompanyName: p.CompanyName,
		CompanyEmail: p.CompanyEmail, CompanyDialCode: p.CompanyDialCode, CompanyPhoneNumber: p.CompanyPhoneNumber,
		CompanyTypeID: p.CompanyTypeID, OwnerID: p.OwnerID, BillingAddress: p.BillingAddress,
		ShippingAddress: p.ShippingAddress, Notes: p.Notes}
}

func (s *server) handleClientCreate(w http.ResponseWriter, r *http.Request) {
	var p clientPayload
	if err := web.DecodeJSON(w, r, &p); err != nil {
		s.web.Fail(w, r, err)
		return
	}
	c, err := web.Scope(r).CreateClient(r.Context(), p.input())
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.web.OK(w, r, http.StatusCreated, "clients.created", c)
}

func (s *server) handleClientUpdate(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	var p clientPayload
	if err := web.DecodeJSON(w, r, &p); err != nil {
		s.web.Fail(w, r, err)
		return
	}
	c, err := web.Scope(r).UpdateClient(r.Context(), id, p.input())
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.web.OK(w, r, http.StatusOK, "clients.updated", c)
}

func (s *server) handleClientView(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	c, err := web.Scope(r).ClientView(r.Context(), id)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.web.OK(w, r, http.StatusOK, "ok", c)
}

func (s *server) handleClientDelete(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	p := web.Caller(r)
	if err := p.Scope().DeleteClient(r.Context(), id); err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.removeDocumentFiles(r, store.EntityClient, id)
	s.web.OK(w, r, http.StatusOK, "clients.deleted", nil)
}

// clientQueryFromURL reads the client list's query from the URL, as the list page and the
// API write it: search, sort, order; owner_id (one id, a bracketed or comma-separated list,
// or repeated); converted (yes or no); from and to (dates, yyyy-mm-dd, UTC, the "to" day
// included); after or before (keyset cursors); limit. A sort it does not know is the
// default one, as the API always had it; other bad values are refused.
func clientQueryFromURL(r *http.Request) (store.ClientQuery, error) {
	v := r.URL.Query()
	q := store.ClientQuery{Search: v.Get("search"), Order: v.Get("order"), After: v.Get("after"), Before: v.Get("before"),
		Limit: int(web.IntParam(r, "limit"))}
	if srt := strings.ToLower(strings.TrimSpace(v.Get("sort"))); srt == store.SortName || srt == store.SortCompanyShort ||
		slices.Contains(store.ClientSorts, srt) {
		q.Sort = srt
	}
	errs := validate.Errors{}
	ids, ok := web.QueryIDs(r, "owner_id")
	errs.Check(ok, "owner_id", validate.KeyInvalid)
	q.OwnerIDs = ids
	switch strings.ToLower(v.Get("converted")) {
	case "":
	case "yes", "true":
		yes := true
		q.Converted = &yes
	case "no", "false":
		no := false
		q.Converted = &no
	default:
		errs.Add("converted", validate.KeyInvalid)
	}
	_, bad := web.CreatedRange(v, &q.CreatedFrom, &q.CreatedTo)
	maps.Copy(errs, bad)
	if len(errs) > 0 {
		return q, errs
	}
	return q, nil
}

// clientListData is a page of the client list: the list envelope's result, total, page and
// limit; total_capped when the total stopped counting ("10,000+"); next and prev, the
// `after` of the following page and the `before` of the previous one (null when none).
type clientListData struct {
	web.List[store.ClientView]
	TotalCapped bool    `json:"total_capped"`
	Next        *string `json:"next"`
	Prev        *string `json:"prev"`
}

// handleClientList is GET /v1/api/client/list-customer-client: the client list page by
// page, with the query clientQueryFromURL reads and `page` for offset paging; `after` or
// `before` page by keyset instead.
func (s *server) handleClientList(w http.ResponseWriter, r *http.Request) {
	q, err := clientQueryFromURL(r)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	q.Page = int(web.IntParam(r, "page"))
	page, err := web.Scope(r).ListClients(r.Context(), q)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	out := clientListData{List: web.List[store.ClientView]{Result: page.Rows, Total: page.Total, Page: page.Page, Limit: page.Limit},
		TotalCapped: page.TotalCapped}
	if page.Next != "" {
		out.Next = &page.Next
	}
	if page.Prev != "" {
		out.Prev = &page.Prev
	}
	s.web.OK(w, r, http.StatusOK, "ok", out)
}

// clientBulkChange is the body of a bulk owner change.
type clientBulkChange struct {
	IDs     []int64 `json:"ids"`
	OwnerID int64   `json:"owner_id"`
}

// handleClientBulkUpdate gives many clients another owner at once.
func (s *server) handleClientBulkUpdate(w http.ResponseWriter, r *http.Request) {
	var b clientBulkChange
	if err := web.DecodeJSON(w, r, &b); err != nil {
		s.web.Fail(w, r, err)
		return
	}
	n, err := web.Scope(r).BulkSetClientOwner(r.Context(), b.IDs, b.OwnerID)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.web.JSON(w, http.StatusOK, web.Envelope{Message: web.T(r, "clientsList.bulkUpdated", "Count", n), Data: countData{Count: n}})
}

// handleClientDeleteMany deletes the clients named by `ids=[…]`, with their documents.
func (s *server) handleClientDeleteMany(w http.ResponseWriter, r *http.Request) {
	ids, ok := web.QueryIDs(r, "ids")
	if !ok || len(ids) == 0 {
		s.web.Fail(w, r, validate.Errors{"ids": validate.KeyInvalid})
		return
	}
	deleted, err := web.Scope(r).DeleteClients(r.Context(), ids)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	for _, id := range deleted {
		s.removeDocumentFiles(r, store.EntityClient, id)
	}
	n := len(deleted)
	s.web.JSON(w, http.StatusOK, web.Envelope{Message: web.T(r, "clientsList.bulkDeleted", "Count", n), Data: countData{Count: n}})
}

// handleLeadConvert makes a client from a lead; a second conversion is refused.
func (s *server) handleLeadConvert(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	c, err := web.Scope(r).ConvertLead(r.Context(), id)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.web.OK(w, r, http.StatusCreated, "clients.converted", c)
}
