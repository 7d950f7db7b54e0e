package app

import (
	"net/http"

	"crm/app/store"
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
	if err := decodeJSON(w, r, &p); err != nil {
		s.fail(w, r, err)
		return
	}
	c, err := principalFrom(r.Context()).Scope(s.db).CreateClient(r.Context(), p.input())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.ok(w, r, http.StatusCreated, "clients.created", c)
}

func (s *server) handleClientUpdate(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var p clientPayload
	if err := decodeJSON(w, r, &p); err != nil {
		s.fail(w, r, err)
		return
	}
	c, err := principalFrom(r.Context()).Scope(s.db).UpdateClient(r.Context(), id, p.input())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.ok(w, r, http.StatusOK, "clients.updated", c)
}

func (s *server) handleClientView(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	c, err := principalFrom(r.Context()).Scope(s.db).ClientView(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.ok(w, r, http.StatusOK, "ok", c)
}

func (s *server) handleClientDelete(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := principalFrom(r.Context())
	if err := p.Scope(s.db).DeleteClient(r.Context(), id); err != nil {
		s.fail(w, r, err)
		return
	}
	s.removeDocumentFiles(r, store.EntityClient, id)
	s.ok(w, r, http.StatusOK, "clients.deleted", nil)
}

func (s *server) handleClientList(w http.ResponseWriter, r *http.Request) {
	q := store.ClientQuery{Page: int(intParam(r, "page")), Limit: int(intParam(r, "limit")),
		Search: r.URL.Query().Get("search"), Sort: r.URL.Query().Get("sort")}
	if q.Page < 1 {
		q.Page = 1
	}
	if q.Limit < 1 || q.Limit > 100 {
		q.Limit = 20
	}
	page, err := principalFrom(r.Context()).Scope(s.db).ListClients(r.Context(), q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	rows := page.Rows
	if rows == nil {
		rows = []store.ClientView{}
	}
	s.ok(w, r, http.StatusOK, "ok", listData[store.ClientView]{Result: rows, Total: page.Total, Page: q.Page, Limit: q.Limit})
}

// handleLeadConvert makes a client from a lead; a second conversion is refused.
func (s *server) handleLeadConvert(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	c, err := principalFrom(r.Context()).Scope(s.db).ConvertLead(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.ok(w, r, http.StatusCreated, "clients.converted", c)
}
