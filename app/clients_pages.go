package app

import (
	"errors"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	clientsview "crm/views/clients"
	"crm/views/components"
)

// The admin client pages: the list, the form (new, edit), the client page with its
// documents, originating lead and journey, deletion with a confirmation step, and the
// conversion of a lead from the lead page. They call the same store functions as the JSON
// API (app/clients.go).

// clientChoices are the client form's select options.
func (s *server) clientChoices(r *http.Request) (map[string][]components.Option, error) {
	p := web.Caller(r)
	scope := p.Scope()
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
		s.web.Fail(w, r, err)
		return
	}
	keepChoice(choices, "customer_title", f.Values["customer_title"])
	keepChoice(choices, "company_dial_code", f.Values["company_dial_code"])
	f.Choices = choices
	title := web.T(r, "clientsPage.newTitle")
	if f.ID != 0 {
		title = web.T(r, "clientsPage.editTitle", "ID", f.ID)
	}
	s.web.Page(w, r, status, title, clientsview.FormPage(f))
}

// readClientForm decodes a posted client form into the store's input.
func readClientForm(w http.ResponseWriter, r *http.Request) (map[string]string, store.ClientInput, validate.Errors, error) {
	if err := web.ReadForm(w, r); err != nil {
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
	p := web.Caller(r)
	s.renderClientForm(w, r, http.StatusOK, clientsview.Form{Action: "/clients/new", CancelHref: "/clients",
		Values: map[string]string{"owner_id": strconv.FormatInt(p.User.ID, 10), "company_dial_code": dialCodes[0]}, Errors: map[string]string{}})
}

// saveClientForm creates (id 0) or updates a client from the posted form.
func (s *server) saveClientForm(w http.ResponseWriter, r *http.Request, id int64) {
	values, in, errs, err := readClientForm(w, r)
	if err != nil {
		s.web.Fail(w, r, err)
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
	scope := web.Scope(r)
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
		s.web.Fail(w, r, err)
		return
	}
	s.web.Flash(r, msg)
	http.Redirect(w, r, clientsview.ClientHref(c.ID), http.StatusSeeOther)
}

func (s *server) handleClientCreatePage(w http.ResponseWriter, r *http.Request) {
	s.saveClientForm(w, r, 0)
}

func (s *server) clientOf(r *http.Request) (*store.ClientView, error) {
	id, err := web.PathID(r, "id")
	if err != nil {
		return nil, err
	}
	return web.Scope(r).ClientView(r.Context(), id)
}

func (s *server) handleClientPage(w http.ResponseWriter, r *http.Request) {
	c, err := s.clientOf(r)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	p := web.Caller(r)
	scope := p.Scope()
	v := clientsview.View{Client: c, CanUpdate: p.Perms.Allows(auth.FeatureClients, auth.Update),
		CanDelete: p.Perms.Allows(auth.FeatureClients, auth.Delete)}
	if v.Documents, err = s.documentsSection(r, store.EntityClient, c.ID, clientsview.ClientHref(c.ID)); err != nil {
		s.web.Fail(w, r, err)
		return
	}
	hist, err := scope.History(r.Context(), store.EntityClient, c.ID, 50)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	names := map[int64]string{}
	if len(hist) > 0 {
		users, err := scope.Users(r.Context())
		if err != nil {
			s.web.Fail(w, r, err)
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
	s.web.Page(w, r, http.StatusOK, title, clientsview.ViewPage(v))
}

func (s *server) handleClientEditPage(w http.ResponseWriter, r *http.Request) {
	c, err := s.clientOf(r)
	if err != nil {
		s.web.Fail(w, r, err)
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
		s.web.Fail(w, r, err)
		return
	}
	s.saveClientForm(w, r, c.ID)
}

func (s *server) handleClientDeletePage(w http.ResponseWriter, r *http.Request) {
	c, err := s.clientOf(r)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	href := clientsview.ClientHref(c.ID)
	label := "#" + strconv.FormatInt(c.ID, 10) + " " + c.CustomerName
	if c.CompanyName != "" {
		label += " — " + c.CompanyName
	}
	s.web.Page(w, r, http.StatusOK, web.T(r, "clientsPage.deleteTitle"), components.Confirm(components.ConfirmModel{
		Title: web.T(r, "clientsPage.deleteTitle"), Message: web.T(r, "clientsPage.deleteMessage"),
		Items: []components.Link{{Href: href, Label: label}}, Action: href + "/delete",
		Confirm: web.T(r, "leadsPage.deleteConfirm"), CancelHref: href, Cancel: web.T(r, "leadsPage.cancel"), Danger: true}))
}

func (s *server) handleClientDeleteSubmit(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	if err := web.Scope(r).DeleteClient(r.Context(), id); err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.removeDocumentFiles(r, store.EntityClient, id)
	s.web.Flash(r, "clients.deleted")
	http.Redirect(w, r, "/clients", http.StatusSeeOther)
}

// handleLeadConvertPage converts a lead from its page and opens the new client; a lead
// converted already leads to its client with the refusal as the message.
func (s *server) handleLeadConvertPage(w http.ResponseWriter, r *http.Request) {
	lead, err := s.leadOf(r)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	scope := web.Scope(r)
	c, err := scope.ConvertLead(r.Context(), lead.ID)
	if errors.Is(err, store.ErrAlreadyConverted) {
		if prev, err2 := scope.ClientOfLead(r.Context(), lead.ID); err2 == nil {
			s.web.Flash(r, "clients.alreadyConverted")
			http.Redirect(w, r, clientsview.ClientHref(prev.ID), http.StatusSeeOther)
			return
		}
	}
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.web.Flash(r, "clients.converted")
	http.Redirect(w, r, clientsview.ClientHref(c.ID), http.StatusSeeOther)
}

// --- The client list -------------------------------------------------------------------

// The client list works as the lead list does (app/leads_pages.go): the URL holds the
// state, htmx swaps only the results, and the bulk actions post the selected rows.

// clientListQuery reads the client list's state from a query string: the store's query,
// the values the page's links keep (only those that mean something), and the errors of the
// dates. Anything it does not understand is left out rather than refused.
func clientListQuery(in url.Values) (store.ClientQuery, url.Values, map[string]string) {
	q := store.ClientQuery{Search: strings.TrimSpace(in.Get("search"))}
	norm, errs := url.Values{}, map[string]string{}
	if q.Search != "" {
		norm.Set("search", q.Search)
	}
	switch srt := strings.ToLower(in.Get("sort")); {
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
	if o := strings.ToLower(in.Get("order")); o == "asc" || o == "desc" {
		q.Order = o
		norm.Set("order", o)
	}
	if l := in.Get("limit"); slices.Contains(clientsview.PageSizes, l) {
		q.Limit, _ = strconv.Atoi(l)
		norm.Set("limit", l)
	}
	q.OwnerIDs = formIDs(in["owner_id"])
	for _, id := range q.OwnerIDs {
		norm.Add("owner_id", strconv.FormatInt(id, 10))
	}
	switch c := in.Get("converted"); c {
	case clientsview.ConvertedYes, clientsview.ConvertedNo:
		yes := c == clientsview.ConvertedYes
		q.Converted = &yes
		norm.Set("converted", c)
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

// clientList loads everything the list page shows for a query string.
func (s *server) clientList(r *http.Request, in url.Values) (*clientsview.List, error) {
	ctx := r.Context()
	p := web.CallerFrom(ctx)
	scope := p.Scope()
	q, norm, errs := clientListQuery(in)
	page, err := scope.ListClients(ctx, q)
	var ve validate.Errors
	if q.After+q.Before != "" && (errors.As(err, &ve) || err == nil && len(page.Rows) == 0) {
		// A cursor of another sort, a mangled one, or one past what is left: start from the
		// first page.
		q.After, q.Before = "", ""
		norm.Del("after")
		norm.Del("before")
		page, err = scope.ListClients(ctx, q)
	}
	if err != nil {
		return nil, err
	}
	m := &clientsview.List{Query: norm, Page: page, Errors: errs, Choices: map[string][]components.Option{},
		CanCreate: p.Perms.Allows(auth.FeatureClients, auth.Create), CanUpdate: p.Perms.Allows(auth.FeatureClients, auth.Update),
		CanDelete: p.Perms.Allows(auth.FeatureClients, auth.Delete)}
	m.Sort, m.Desc = store.SortID, true
	if q.Sort != "" && q.Sort != store.SortRecent {
		m.Sort, m.Desc = q.Sort, false
	}
	if q.Order != "" {
		m.Desc = q.Order == "desc"
	}
	m.Filtered = q.Search != "" || len(q.OwnerIDs) > 0 || q.Converted != nil || !q.CreatedFrom.IsZero() || !q.CreatedTo.IsZero() || len(errs) > 0
	users, err := scope.Users(ctx)
	if err != nil {
		return nil, err
	}
	ownOnly := p.Perms[auth.FeatureClients].Scope == auth.ScopeOwn
	for _, u := range users {
		o := components.Option{Value: strconv.FormatInt(u.ID, 10), Label: u.Name}
		m.Choices["owner_id"] = append(m.Choices["owner_id"], o)
		if !ownOnly || u.ID == p.User.ID {
			m.Choices["bulk_owner_id"] = append(m.Choices["bulk_owner_id"], o)
		}
	}
	m.Pager = components.Pager{Label: web.T(r, "clientsPage.pages"), First: web.T(r, "paging.first"), Prev: web.T(r, "clientsPage.prev"),
		Next: web.T(r, "paging.next"), Target: clientsview.ResultsID}
	if page.Prev != "" {
		m.Pager.FirstHref, m.Pager.PrevHref = m.Href(), m.Href("before", page.Prev)
	}
	if page.Next != "" {
		m.Pager.NextHref = m.Href("after", page.Next)
	}
	return m, nil
}

// renderClientList shows the list page, or only its results when htmx asks for them.
func (s *server) renderClientList(w http.ResponseWriter, r *http.Request, status int, m *clientsview.List) {
	w.Header().Add("Vary", "HX-Request, HX-Target")
	if r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-Target") == clientsview.ResultsID {
		s.web.Render(w, r, status, clientsview.ResultsFragment(*m))
		return
	}
	s.web.Page(w, r, status, web.T(r, "clientsPage.title"), clientsview.ListPage(*m))
}

func (s *server) handleClientsPage(w http.ResponseWriter, r *http.Request) {
	m, err := s.clientList(r, r.URL.Query())
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.renderClientList(w, r, http.StatusOK, m)
}

// clientListBack is where a bulk action returns to: the list view it was posted from.
func clientListBack(r *http.Request) string {
	back := web.SafeNext(r.PostFormValue("back"), clientsview.ListPath)
	if u, err := url.Parse(back); err != nil || u.Path != clientsview.ListPath {
		return clientsview.ListPath
	}
	return back
}

// clientListRefusal re-renders the list view at back (422) with msg where the bulk tools are.
func (s *server) clientListRefusal(w http.ResponseWriter, r *http.Request, back, msg string) {
	u, _ := url.Parse(back)
	r2 := r.Clone(r.Context())
	r2.URL = u
	r2.Header.Del("HX-Request")
	m, err := s.clientList(r2, u.Query())
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	m.BulkError = msg
	s.renderClientList(w, r2, http.StatusUnprocessableEntity, m)
}

// handleClientsBulkOwner gives the selected clients the chosen owner.
func (s *server) handleClientsBulkOwner(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		s.web.Fail(w, r, err)
		return
	}
	back := clientListBack(r)
	ids := formIDs(r.PostForm["ids"])
	owner, _ := strconv.ParseInt(r.PostFormValue("owner_id"), 10, 64)
	switch {
	case len(ids) == 0:
		s.clientListRefusal(w, r, back, web.T(r, "clientsList.selectNone"))
		return
	case owner <= 0:
		s.clientListRefusal(w, r, back, web.T(r, "leadsPage.chooseValue"))
		return
	}
	n, err := web.Scope(r).BulkSetClientOwner(r.Context(), ids, owner)
	var ve validate.Errors
	if errors.As(err, &ve) {
		for _, key := range ve {
			s.clientListRefusal(w, r, back, web.T(r, "validation."+key))
			return
		}
	}
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.web.Flash(r, "clientsList.bulkUpdated", "Count", n)
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// handleClientsBulkDelete deletes the selected clients in two steps: the first post shows
// what would go, the confirmed one deletes.
func (s *server) handleClientsBulkDelete(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		s.web.Fail(w, r, err)
		return
	}
	back := clientListBack(r)
	ids := formIDs(r.PostForm["ids"])
	switch {
	case len(ids) == 0:
		s.clientListRefusal(w, r, back, web.T(r, "clientsList.selectNone"))
		return
	case len(ids) > store.MaxBulk:
		s.clientListRefusal(w, r, back, web.T(r, "validation."+validate.KeyMaxLength))
		return
	}
	scope := web.Scope(r)
	if r.PostFormValue("confirm") != "1" {
		c := components.ConfirmModel{Title: web.T(r, "clientsList.bulkDeleteTitle"), Action: "/clients/bulk/delete",
			Confirm: web.T(r, "leadsPage.deleteConfirm"), CancelHref: back, Cancel: web.T(r, "leadsPage.cancel"), Danger: true,
			Hidden: []components.Hidden{{Name: "back", Value: back}, {Name: "confirm", Value: "1"}}}
		for _, id := range ids {
			cl, err := scope.ClientView(r.Context(), id)
			if errors.Is(err, store.ErrNotFound) {
				continue
			} else if err != nil {
				s.web.Fail(w, r, err)
				return
			}
			label := "#" + strconv.FormatInt(cl.ID, 10) + " " + cl.CustomerName
			if cl.CompanyName != "" {
				label += " — " + cl.CompanyName
			}
			c.Items = append(c.Items, components.Link{Href: clientsview.ClientHref(cl.ID), Label: label})
			c.Hidden = append(c.Hidden, components.Hidden{Name: "ids", Value: strconv.FormatInt(cl.ID, 10)})
		}
		if len(c.Items) == 0 {
			s.web.Fail(w, r, web.ErrNotFound)
			return
		}
		c.Message = web.T(r, "clientsList.deleteMessage", "Count", len(c.Items))
		s.web.Page(w, r, http.StatusOK, c.Title, components.Confirm(c))
		return
	}
	deleted, err := scope.DeleteClients(r.Context(), ids)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	for _, id := range deleted {
		s.removeDocumentFiles(r, store.EntityClient, id)
	}
	s.web.Flash(r, "clientsList.bulkDeleted", "Count", len(deleted))
	http.Redirect(w, r, back, http.StatusSeeOther)
}
