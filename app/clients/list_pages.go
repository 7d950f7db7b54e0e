package clients

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	clientsview "crm/views/clients"
	"crm/views/components"
)

// clientList loads everything the list page shows for a query string.
func (h *Handler) clientList(r *http.Request, in url.Values) (*clientsview.List, error) {
	ctx := r.Context()
	p := web.CallerFrom(ctx)
	scope := p.Scope()
	q, norm, errs := Query(in)
	if l := norm.Get("limit"); l != "" && !slices.Contains(clientsview.PageSizes, l) {
		q.Limit = 0 // the page offers its own page sizes only
		norm.Del("limit")
	}
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
func (h *Handler) renderClientList(w http.ResponseWriter, r *http.Request, status int, m *clientsview.List) {
	w.Header().Add("Vary", "HX-Request, HX-Target")
	if r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-Target") == clientsview.ResultsID {
		h.web.Render(w, r, status, clientsview.ResultsFragment(*m))
		return
	}
	h.web.Page(w, r, status, web.T(r, "clientsPage.title"), clientsview.ListPage(*m))
}

func (h *Handler) ClientsPage(w http.ResponseWriter, r *http.Request) {
	m, err := h.clientList(r, r.URL.Query())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.renderClientList(w, r, http.StatusOK, m)
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
func (h *Handler) clientListRefusal(w http.ResponseWriter, r *http.Request, back, msg string) {
	u, _ := url.Parse(back)
	r2 := r.Clone(r.Context())
	r2.URL = u
	r2.Header.Del("HX-Request")
	m, err := h.clientList(r2, u.Query())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	m.BulkError = msg
	h.renderClientList(w, r2, http.StatusUnprocessableEntity, m)
}

// handleClientsBulkOwner gives the selected clients the chosen owner.
func (h *Handler) ClientsBulkOwner(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	back := clientListBack(r)
	ids, err := web.FormIDs(r, "ids")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	owner, _ := strconv.ParseInt(r.PostFormValue("owner_id"), 10, 64)
	switch {
	case len(ids) == 0:
		h.clientListRefusal(w, r, back, web.T(r, "clientsList.selectNone"))
		return
	case owner <= 0:
		h.clientListRefusal(w, r, back, web.T(r, "leadsPage.chooseValue"))
		return
	}
	n, err := web.Scope(r).BulkSetClientOwner(r.Context(), ids, owner)
	var ve validate.Errors
	if errors.As(err, &ve) {
		for _, key := range ve {
			h.clientListRefusal(w, r, back, web.T(r, "validation."+key))
			return
		}
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "clientsList.bulkUpdated", "Count", n)
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// handleClientsBulkDelete deletes the selected clients in two steps: the first post shows
// what would go, the confirmed one deletes.
func (h *Handler) ClientsBulkDelete(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	back := clientListBack(r)
	ids, err := web.FormIDs(r, "ids")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	switch {
	case len(ids) == 0:
		h.clientListRefusal(w, r, back, web.T(r, "clientsList.selectNone"))
		return
	case len(ids) > store.MaxBulk:
		h.clientListRefusal(w, r, back, web.T(r, "validation."+validate.KeyMaxLength))
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
				h.web.Fail(w, r, err)
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
			h.web.Fail(w, r, web.ErrNotFound)
			return
		}
		c.Message = web.T(r, "clientsList.deleteMessage", "Count", len(c.Items))
		h.web.Page(w, r, http.StatusOK, c.Title, components.Confirm(c))
		return
	}
	deleted, err := scope.DeleteClients(r.Context(), ids)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	for _, id := range deleted {
		h.documents.RemoveFiles(r, store.EntityClient, id)
	}
	h.web.Flash(r, "clientsList.bulkDeleted", "Count", len(deleted))
	http.Redirect(w, r, back, http.StatusSeeOther)
}
