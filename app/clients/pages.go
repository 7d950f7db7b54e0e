package clients

import (
	"errors"
	"net/http"
	"strconv"

	"crm/app/auth"
	"crm/app/contact"
	"crm/app/kit"
	"crm/app/reminders"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	clientsview "crm/views/clients"
	"crm/views/components"
)

// The admin client pages: the list, the form (new, edit), the client page with its
// documents, originating lead and journey, deletion with a confirmation step, and the
// conversion of a lead from the lead page. They call the same store functions as the JSON
// API (api.go).

// clientChoices are the client form's select options.
func (h *Handler) clientChoices(r *http.Request) (map[string][]components.Option, error) {
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
	for _, c := range contact.DialCodes {
		out["company_dial_code"] = append(out["company_dial_code"], components.Option{Value: c, Label: c})
	}
	if p.OwnOnly(auth.FeatureClients) {
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

func (h *Handler) renderClientForm(w http.ResponseWriter, r *http.Request, status int, f clientsview.Form) {
	choices, err := h.clientChoices(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	contact.KeepChoice(choices, "customer_title", f.Values["customer_title"])
	contact.KeepChoice(choices, "company_dial_code", f.Values["company_dial_code"])
	f.Choices = choices
	title := web.T(r, "clientsPage.newTitle")
	if f.ID != 0 {
		title = web.T(r, "clientsPage.editTitle", "ID", f.ID)
	}
	h.web.Page(w, r, status, title, clientsview.FormPage(f))
}

// readClientForm decodes a posted client form into the store's input.
func readClientForm(w http.ResponseWriter, r *http.Request) (map[string]string, store.ClientInput, validate.Errors, error) {
	if err := web.ReadForm(w, r); err != nil {
		return nil, store.ClientInput{}, nil, err
	}
	v := contact.PostedValues(r, clientsview.FormFields)
	errs := validate.Errors{}
	return v, store.ClientInput{Contact: contact.FromForm(v, errs)}, errs, nil
}

func (h *Handler) ClientNewPage(w http.ResponseWriter, r *http.Request) {
	p := web.Caller(r)
	h.renderClientForm(w, r, http.StatusOK, clientsview.Form{Action: "/clients/new", CancelHref: "/clients",
		Values: map[string]string{"owner_id": strconv.FormatInt(p.User.ID, 10), "company_dial_code": contact.DialCodes[0]}, Errors: map[string]string{}})
}

// saveClientForm creates (id 0) or updates a client from the posted form.
func (h *Handler) saveClientForm(w http.ResponseWriter, r *http.Request, id int64) {
	values, in, errs, err := readClientForm(w, r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	f := clientsview.Form{ID: id, Action: "/clients/new", CancelHref: "/clients", Values: values, Errors: errs}
	if id != 0 {
		f.Action, f.CancelHref = clientsview.ClientHref(id)+"/edit", clientsview.ClientHref(id)
	}
	if len(errs) > 0 {
		h.renderClientForm(w, r, http.StatusUnprocessableEntity, f)
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
		h.renderClientForm(w, r, http.StatusUnprocessableEntity, f)
		return
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, msg)
	http.Redirect(w, r, clientsview.ClientHref(c.ID), http.StatusSeeOther)
}

func (h *Handler) ClientCreatePage(w http.ResponseWriter, r *http.Request) {
	h.saveClientForm(w, r, 0)
}

func (h *Handler) clientOf(r *http.Request) (*store.ClientView, error) {
	id, err := web.PathID(r, "id")
	if err != nil {
		return nil, err
	}
	return web.Scope(r).ClientView(r.Context(), id)
}

func (h *Handler) ClientPage(w http.ResponseWriter, r *http.Request) {
	c, err := h.clientOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	p := web.Caller(r)
	scope := p.Scope()
	v := clientsview.View{Client: c, CanUpdate: p.Perms.Allows(auth.FeatureClients, auth.Update),
		CanDelete: p.Perms.Allows(auth.FeatureClients, auth.Delete)}
	if v.Documents, err = h.documents.Section(r, store.EntityClient, c.ID, clientsview.ClientHref(c.ID)); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if v.KeepInTouch, err = kit.Section(r, store.EntityClient, c.ID); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if v.Reminders, err = h.reminders.Section(r, store.EntityClient, c.ID, clientsview.ClientHref(c.ID)); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if c.LeadID != nil && p.Perms.Allows(auth.FeatureLeads, auth.View) {
		rows, err := scope.Reminders(r.Context(), *c.LeadID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			h.web.Fail(w, r, err)
			return
		}
		v.OriginReminders = reminders.Rows(rows)
	}
	hist, err := scope.History(r.Context(), store.EntityClient, c.ID, 50)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	names := map[int64]string{}
	if len(hist) > 0 {
		users, err := scope.Users(r.Context())
		if err != nil {
			h.web.Fail(w, r, err)
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
	h.web.Page(w, r, http.StatusOK, title, clientsview.ViewPage(v))
}

func (h *Handler) ClientEditPage(w http.ResponseWriter, r *http.Request) {
	c, err := h.clientOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	v := contact.FormValues(c.Contact)
	href := clientsview.ClientHref(c.ID)
	h.renderClientForm(w, r, http.StatusOK, clientsview.Form{ID: c.ID, Action: href + "/edit", CancelHref: href, Values: v, Errors: map[string]string{}})
}

func (h *Handler) ClientUpdatePage(w http.ResponseWriter, r *http.Request) {
	c, err := h.clientOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.saveClientForm(w, r, c.ID)
}

func (h *Handler) ClientDeletePage(w http.ResponseWriter, r *http.Request) {
	c, err := h.clientOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	href := clientsview.ClientHref(c.ID)
	label := "#" + strconv.FormatInt(c.ID, 10) + " " + c.CustomerName
	if c.CompanyName != "" {
		label += " — " + c.CompanyName
	}
	h.web.Page(w, r, http.StatusOK, web.T(r, "clientsPage.deleteTitle"), components.Confirm(components.ConfirmModel{
		Title: web.T(r, "clientsPage.deleteTitle"), Message: web.T(r, "clientsPage.deleteMessage"),
		Items: []components.Link{{Href: href, Label: label}}, Action: href + "/delete",
		Confirm: web.T(r, "leadsPage.deleteConfirm"), CancelHref: href, Cancel: web.T(r, "leadsPage.cancel"), Danger: true}))
}

func (h *Handler) ClientDeleteSubmit(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if err := web.Scope(r).DeleteClient(r.Context(), id); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.documents.RemoveFiles(r, store.EntityClient, id)
	h.web.Flash(r, "clients.deleted")
	http.Redirect(w, r, "/clients", http.StatusSeeOther)
}

// LeadConvertPage converts a lead from its page and opens the new client; a lead
// converted already leads to its client with the refusal as the message.
func (h *Handler) LeadConvertPage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	scope := web.Scope(r)
	lead, err := scope.LeadView(r.Context(), id)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	c, err := scope.ConvertLead(r.Context(), lead.ID)
	if errors.Is(err, store.ErrAlreadyConverted) {
		if prev, err2 := scope.ClientOfLead(r.Context(), lead.ID); err2 == nil {
			h.web.Flash(r, "clients.alreadyConverted")
			http.Redirect(w, r, clientsview.ClientHref(prev.ID), http.StatusSeeOther)
			return
		}
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "clients.converted")
	http.Redirect(w, r, clientsview.ClientHref(c.ID), http.StatusSeeOther)
}

// --- The client list -------------------------------------------------------------------

// The client list works as the lead list does (app/leads/list_pages.go): the URL holds the
// state, htmx swaps only the results, and the bulk actions post the selected rows.
