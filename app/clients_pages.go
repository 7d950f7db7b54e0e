package app

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/validate"
	clientsview "crm/views/clients"
	"crm/views/components"
)

// The admin client pages: the list, the form (new, edit), the client page with its
// documents, originating lead and journey, deletion with a confirmation step, and the
// conversion of a lead from the lead page. They call the same store functions as the JSON
// API (app/clients.go).

func (s *server) handleClientsPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	m := clientsview.List{Search: strings.TrimSpace(q.Get("search")), Sort: q.Get("sort"),
		Page: int(intParam(r, "page")), Limit: int(intParam(r, "limit"))}
	if m.Page < 1 {
		m.Page = 1
	}
	if m.Limit != 50 && m.Limit != 100 {
		m.Limit = 20
	}
	if m.Sort != "name" && m.Sort != "company" {
		m.Sort = "recent"
	}
	p := principalFrom(r.Context())
	page, err := p.Scope(s.db).ListClients(r.Context(), store.ClientQuery{Page: m.Page, Limit: m.Limit, Search: m.Search, Sort: m.Sort})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	m.Rows, m.Total = page.Rows, page.Total
	m.CanCreate = p.Perms.Allows(auth.FeatureClients, auth.Create)
	href := func(n int) string {
		v := url.Values{}
		if m.Search != "" {
			v.Set("search", m.Search)
		}
		if m.Sort != "recent" {
			v.Set("sort", m.Sort)
		}
		if m.Limit != 20 {
			v.Set("limit", strconv.Itoa(m.Limit))
		}
		if n > 1 {
			v.Set("page", strconv.Itoa(n))
		}
		return queryHref("/clients", v)
	}
	m.Pager = components.Pager{Label: tr(r, "clientsPage.pages"), First: tr(r, "paging.first"), Prev: tr(r, "clientsPage.prev"), Next: tr(r, "paging.next")}
	if m.Page > 1 {
		m.Pager.PrevHref = href(m.Page - 1)
		if m.Page > 2 {
			m.Pager.FirstHref = href(1)
		}
	}
	if int64(m.Page*m.Limit) < m.Total {
		m.Pager.NextHref = href(m.Page + 1)
	}
	s.page(w, r, http.StatusOK, tr(r, "clientsPage.title"), clientsview.ListPage(m))
}

// clientChoices are the client form's select options.
func (s *server) clientChoices(r *http.Request) (map[string][]components.Option, error) {
	p := principalFrom(r.Context())
	scope := p.Scope(s.db)
	out := map[string][]components.Option{}
	for name, kind := range map[string]store.MasterKind{"company_type_id": store.KindBusinessType, "customer_title": store.KindTitle} {
		ms, err := scope.Masters(r.Context(), kind)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			value := strconv.FormatInt(m.ID, 10)
			if kind == store.KindTitle {
				value = m.Name
			}
			out[name] = append(out[name], components.Option{Value: value, Label: m.Name})
		}
	}
	for _, c := range dialCodes {
		out["company_dial_code"] = append(out["company_dial_code"], components.Option{Value: c, Label: c})
	}
	if p.Perms[auth.FeatureClients].Scope == auth.ScopeOwn {
		out["owner_id"] = []components.Option{{Value: strconv.FormatInt(p.User.ID, 10), Label: p.User.Name}}
		return out, nil
	}
	users, err := scope.Users(r.Context())
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		out["owner_id"] = append(out["owner_id"], components.Option{Value: strconv.FormatInt(u.ID, 10), Label: u.Name})
	}
	return out, nil
}

func (s *server) renderClientForm(w http.ResponseWriter, r *http.Request, status int, f clientsview.Form) {
	choices, err := s.clientChoices(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	keepChoice(choices, "customer_title", f.Values["customer_title"])
	keepChoice(choices, "company_dial_code", f.Values["company_dial_code"])
	f.Choices = choices
	title := tr(r, "clientsPage.newTitle")
	if f.ID != 0 {
		title = tr(r, "clientsPage.editTitle", "ID", f.ID)
	}
	s.page(w, r, status, title, clientsview.FormPage(f))
}

// readClientForm decodes a posted client form into the store's input.
func readClientForm(w http.ResponseWriter, r *http.Request) (map[string]string, store.ClientInput, validate.Errors, error) {
	if err := readSmallForm(w, r); err != nil {
		return nil, store.ClientInput{}, nil, err
	}
	v := map[string]string{}
	errs := validate.Errors{}
	for _, name := range clientsview.FormFields {
		v[name] = r.PostFormValue(name)
	}
	for _, prefix := range []string{"billing_address", "shipping_address"} {
		for _, part := range clientsview.AddressFields {
			v[prefix+"."+part] = r.PostFormValue(prefix + "." + part)
		}
	}
	ref := func(name string) *int64 {
		raw := strings.TrimSpace(v[name])
		if raw == "" {
			return nil
		}
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n <= 0 {
			errs.Add(name, validate.KeyInvalid)
			return nil
		}
		return &n
	}
	address := func(prefix string) *store.Address {
		a := store.Address{FlatNo: v[prefix+".flatNo"], Street: v[prefix+".street"], City: v[prefix+".city"],
			State: v[prefix+".state"], Zip: v[prefix+".zip"], Country: v[prefix+".country"]}
		if strings.TrimSpace(a.FlatNo+a.Street+a.City+a.State+a.Zip+a.Country) == "" {
			return nil
		}
		return &a
	}
	in := store.ClientInput{CustomerTitle: v["customer_title"], CustomerName: v["customer_name"], CompanyName: v["company_name"],
		CompanyEmail: v["company_email"], CompanyDialCode: v["company_dial_code"], CompanyPhoneNumber: v["company_phone_number"],
		CompanyTypeID: ref("company_type_id"), OwnerID: ref("owner_id"), BillingAddress: address("billing_address"),
		ShippingAddress: address("shipping_address"), Notes: v["notes"]}
	return v, in, errs, nil
}

func (s *server) handleClientNewPage(w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	s.renderClientForm(w, r, http.StatusOK, clientsview.Form{Action: "/clients/new", CancelHref: "/clients",
		Values: map[string]string{"owner_id": strconv.FormatInt(p.User.ID, 10), "company_dial_code": dialCodes[0]}, Errors: map[string]string{}})
}

// saveClientForm creates (id 0) or updates a client from the posted form.
func (s *server) saveClientForm(w http.ResponseWriter, r *http.Request, id int64) {
	values, in, errs, err := readClientForm(w, r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	f := clientsview.Form{ID: id, Action: "/clients/new", CancelHref: "/clients", Values: values, Errors: errs}
	if id != 0 {
		f.Action, f.CancelHref = clientsview.ClientHref(id)+"/edit", clientsview.ClientHref(id)
	}
	if len(errs) > 0 {
		s.renderClientForm(w, r, http.StatusUnprocessableEntity, f)
		return
	}
	scope := principalFrom(r.Context()).Scope(s.db)
	var c *store.ClientView
	msg := "clients.created"
	if id == 0 {
		c, err = scope.CreateClient(r.Context(), in)
	} else {
		c, err = scope.UpdateClient(r.Context(), id, in)
		msg = "clients.updated"
	}
	var ve validate.Errors
	if errors.As(err, &ve) {
		for k, v := range ve {
			errs.Add(k, v)
		}
		s.renderClientForm(w, r, http.StatusUnprocessableEntity, f)
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.sessions.Put(r.Context(), sessFlash, tr(r, msg))
	http.Redirect(w, r, clientsview.ClientHref(c.ID), http.StatusSeeOther)
}

func (s *server) handleClientCreatePage(w http.ResponseWriter, r *http.Request) {
	s.saveClientForm(w, r, 0)
}

func (s *server) clientOf(r *http.Request) (*store.ClientView, error) {
	id, err := pathID(r)
	if err != nil {
		return nil, err
	}
	return principalFrom(r.Context()).Scope(s.db).ClientView(r.Context(), id)
}

func (s *server) handleClientPage(w http.ResponseWriter, r *http.Request) {
	c, err := s.clientOf(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := principalFrom(r.Context())
	scope := p.Scope(s.db)
	v := clientsview.View{Client: c, CanUpdate: p.Perms.Allows(auth.FeatureClients, auth.Update),
		CanDelete: p.Perms.Allows(auth.FeatureClients, auth.Delete)}
	if v.Documents, err = s.documentsSection(r, store.EntityClient, c.ID, clientsview.ClientHref(c.ID)); err != nil {
		s.fail(w, r, err)
		return
	}
	hist, err := scope.History(r.Context(), store.EntityClient, c.ID, 50)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	names := map[int64]string{}
	if len(hist) > 0 {
		users, err := scope.Users(r.Context())
		if err != nil {
			s.fail(w, r, err)
			return
		}
		for _, u := range users {
			names[u.ID] = u.Name
		}
	}
	for _, h := range hist {
		it := clientsview.HistoryItem{At: h.CreatedAt, Action: h.Action}
		if h.ActorUserID != nil {
			it.Who = names[*h.ActorUserID]
		}
		v.History = append(v.History, it)
	}
	title := c.CustomerName
	if c.CompanyName != "" {
		title += " · " + c.CompanyName
	}
	s.page(w, r, http.StatusOK, title, clientsview.ViewPage(v))
}

func (s *server) handleClientEditPage(w http.ResponseWriter, r *http.Request) {
	c, err := s.clientOf(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := map[string]string{"customer_title": c.CustomerTitle, "customer_name": c.CustomerName, "company_name": c.CompanyName,
		"company_type_id": idText(c.CompanyTypeID), "company_email": c.CompanyEmail, "company_dial_code": c.CompanyDialCode,
		"company_phone_number": c.CompanyPhoneNumber, "owner_id": idText(c.OwnerID), "notes": c.Notes}
	for prefix, a := range map[string]*store.Address{"billing_address": c.BillingAddress, "shipping_address": c.ShippingAddress} {
		if a == nil {
			continue
		}
		for part, val := range map[string]string{"flatNo": a.FlatNo, "street": a.Street, "city": a.City, "state": a.State, "zip": a.Zip, "country": a.Country} {
			v[prefix+"."+part] = val
		}
	}
	href := clientsview.ClientHref(c.ID)
	s.renderClientForm(w, r, http.StatusOK, clientsview.Form{ID: c.ID, Action: href + "/edit", CancelHref: href, Values: v, Errors: map[string]string{}})
}

func (s *server) handleClientUpdatePage(w http.ResponseWriter, r *http.Request) {
	c, err := s.clientOf(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.saveClientForm(w, r, c.ID)
}

func (s *server) handleClientDeletePage(w http.ResponseWriter, r *http.Request) {
	c, err := s.clientOf(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	href := clientsview.ClientHref(c.ID)
	label := "#" + strconv.FormatInt(c.ID, 10) + " " + c.CustomerName
	if c.CompanyName != "" {
		label += " — " + c.CompanyName
	}
	s.page(w, r, http.StatusOK, tr(r, "clientsPage.deleteTitle"), components.Confirm(components.ConfirmModel{
		Title: tr(r, "clientsPage.deleteTitle"), Message: tr(r, "clientsPage.deleteMessage"),
		Items: []components.Link{{Href: href, Label: label}}, Action: href + "/delete",
		Confirm: tr(r, "leadsPage.deleteConfirm"), CancelHref: href, Cancel: tr(r, "leadsPage.cancel"), Danger: true}))
}

func (s *server) handleClientDeleteSubmit(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if err := principalFrom(r.Context()).Scope(s.db).DeleteClient(r.Context(), id); err != nil {
		s.fail(w, r, err)
		return
	}
	s.removeDocumentFiles(r, store.EntityClient, id)
	s.sessions.Put(r.Context(), sessFlash, tr(r, "clients.deleted"))
	http.Redirect(w, r, "/clients", http.StatusSeeOther)
}

// handleLeadConvertPage converts a lead from its page and opens the new client; a lead
// converted already leads to its client with the refusal as the message.
func (s *server) handleLeadConvertPage(w http.ResponseWriter, r *http.Request) {
	lead, err := s.leadOf(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	scope := principalFrom(r.Context()).Scope(s.db)
	c, err := scope.ConvertLead(r.Context(), lead.ID)
	if errors.Is(err, store.ErrAlreadyConverted) {
		if prev, err2 := scope.ClientOfLead(r.Context(), lead.ID); err2 == nil {
			s.sessions.Put(r.Context(), sessFlash, tr(r, "clients.alreadyConverted"))
			http.Redirect(w, r, clientsview.ClientHref(prev.ID), http.StatusSeeOther)
			return
		}
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.sessions.Put(r.Context(), sessFlash, tr(r, "clients.converted"))
	http.Redirect(w, r, clientsview.ClientHref(c.ID), http.StatusSeeOther)
}
