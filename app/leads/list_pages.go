package leads

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
	"crm/views/components"
	leadsview "crm/views/leads"
)

// leadList loads everything the list page shows for a query string.
func (h *Handler) leadList(r *http.Request, in url.Values) (*leadsview.List, error) {
	ctx := r.Context()
	p := web.CallerFrom(ctx)
	scope := p.Scope()
	q, norm, errs := Query(in)
	if l := norm.Get("limit"); l != "" && !slices.Contains(leadsview.PageSizes, l) {
		q.Limit = 0 // the page offers its own page sizes only
		norm.Del("limit")
	}
	page, err := scope.ListLeads(ctx, q)
	var ve validate.Errors
	if errors.As(err, &ve) && q.After != "" {
		// A cursor of another sort, or a mangled one: start from the first page.
		q.After = ""
		norm.Del("after")
		page, err = scope.ListLeads(ctx, q)
	}
	if err != nil {
		return nil, err
	}
	m := &leadsview.List{Query: norm, Page: page, Errors: errs, Choices: map[string][]components.Option{},
		CanCreate: p.Perms.Allows(auth.FeatureLeads, auth.Create), CanUpdate: p.Perms.Allows(auth.FeatureLeads, auth.Update),
		CanDelete: p.Perms.Allows(auth.FeatureLeads, auth.Delete)}
	m.Sort, m.Desc = store.SortID, true
	switch q.Sort {
	case "", store.SortRecent:
	case store.SortName:
		m.Sort, m.Desc = store.SortCustomer, false
	default:
		m.Sort, m.Desc = q.Sort, false
	}
	if q.Order != "" {
		m.Desc = q.Order == "desc"
	}
	m.Filtered = q.Search != "" || !q.CreatedFrom.IsZero() || !q.CreatedTo.IsZero() || len(errs) > 0
	for _, f := range listFilters {
		m.Filtered = m.Filtered || len(*f.ids(&q)) > 0
		if f.kind == "" {
			continue
		}
		ms, err := scope.Masters(ctx, f.kind)
		if err != nil {
			return nil, err
		}
		for _, mm := range ms {
			m.Choices[f.name] = append(m.Choices[f.name], components.Option{Value: strconv.FormatInt(mm.ID, 10), Label: mm.Name})
		}
	}
	m.Choices["bulk_lead_stage_id"] = m.Choices["stage_id"]
	m.Choices["bulk_lead_status_id"] = m.Choices["status_id"]
	users, err := scope.Users(ctx)
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		o := components.Option{Value: strconv.FormatInt(u.ID, 10), Label: u.Name}
		m.Choices["owner_id"] = append(m.Choices["owner_id"], o)
		if !ownLeadsOnly(p) || u.ID == p.User.ID {
			m.Choices["bulk_owner_id"] = append(m.Choices["bulk_owner_id"], o)
		}
	}
	if m.SavedViews, err = scope.SavedViews(ctx); err != nil {
		return nil, err
	}
	m.Pager = components.Pager{Label: web.T(r, "paging.label"), First: web.T(r, "paging.first"), Next: web.T(r, "paging.next"),
		Target: leadsview.ResultsID}
	if q.After != "" {
		m.Pager.FirstHref = m.Href()
	}
	if page.Next != "" {
		m.Pager.NextHref = m.Href("after", page.Next)
	}
	return m, nil
}

// renderList shows the list page, or only its results when htmx asks for them.
func (h *Handler) renderList(w http.ResponseWriter, r *http.Request, status int, m *leadsview.List) {
	w.Header().Add("Vary", "HX-Request, HX-Target")
	if r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-Target") == leadsview.ResultsID {
		h.web.Render(w, r, status, leadsview.ResultsFragment(*m))
		return
	}
	h.web.Page(w, r, status, web.T(r, "leadsPage.title"), leadsview.ListPage(*m))
}

func (h *Handler) LeadsPage(w http.ResponseWriter, r *http.Request) {
	m, err := h.leadList(r, r.URL.Query())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.renderList(w, r, http.StatusOK, m)
}

// atList makes a refused post render as the list page it came from (its address is what
// the language switch returns to).
func atList(r *http.Request, back string) (*http.Request, url.Values) {
	u, err := url.Parse(back)
	if err != nil || u.Path != "/leads" {
		u = &url.URL{Path: "/leads"}
	}
	r2 := r.Clone(r.Context())
	r2.URL = u
	r2.Header.Del("HX-Request")
	return r2, u.Query()
}

// listRefusal re-renders the list at back with a message where the refused form was.
func (h *Handler) listRefusal(w http.ResponseWriter, r *http.Request, back string, set func(*leadsview.List)) {
	r2, q := atList(r, back)
	m, err := h.leadList(r2, q)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	set(m)
	h.renderList(w, r2, http.StatusUnprocessableEntity, m)
}

// bulkFields are the fields a bulk change may set.
var bulkFields = map[string]store.LeadField{"lead_stage_id": store.FieldStage, "lead_status_id": store.FieldStatus, "owner_id": store.FieldOwner}

func (h *Handler) LeadsBulkUpdate(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	back := web.SafeNext(r.PostFormValue("back"), "/leads")
	ids, err := web.FormIDs(r, "ids")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	name := r.PostFormValue("field")
	field, ok := bulkFields[name]
	value, _ := strconv.ParseInt(r.PostFormValue(name), 10, 64)
	refuse := func(msg string) {
		h.listRefusal(w, r, back, func(m *leadsview.List) { m.BulkError = msg })
	}
	switch {
	case len(ids) == 0:
		refuse(web.T(r, "leadsPage.selectNone"))
		return
	case !ok || value <= 0:
		refuse(web.T(r, "leadsPage.chooseValue"))
		return
	}
	n, err := web.Scope(r).BulkSetLeadField(r.Context(), ids, field, value)
	var ve validate.Errors
	if errors.As(err, &ve) {
		for _, key := range ve {
			refuse(web.T(r, "validation."+key))
			return
		}
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "leads.bulkUpdated", "Count", n)
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// handleLeadsBulkDelete deletes the selected leads in two steps: the first post shows
// what would go, the confirmed one deletes.
func (h *Handler) LeadsBulkDelete(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	back := web.SafeNext(r.PostFormValue("back"), "/leads")
	ids, err := web.FormIDs(r, "ids")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if len(ids) == 0 {
		h.listRefusal(w, r, back, func(m *leadsview.List) { m.BulkError = web.T(r, "leadsPage.selectNone") })
		return
	}
	if len(ids) > store.MaxBulk {
		h.listRefusal(w, r, back, func(m *leadsview.List) { m.BulkError = web.T(r, "validation.maxlength") })
		return
	}
	scope := web.Scope(r)
	if r.PostFormValue("confirm") != "1" {
		c := components.ConfirmModel{Title: web.T(r, "leadsPage.bulkDeleteTitle"), Action: "/leads/bulk/delete",
			Confirm: web.T(r, "leadsPage.deleteConfirm"), CancelHref: back, Cancel: web.T(r, "leadsPage.cancel"), Danger: true,
			Hidden: []components.Hidden{{Name: "back", Value: back}, {Name: "confirm", Value: "1"}}}
		for _, id := range ids {
			l, err := scope.LeadView(r.Context(), id)
			if errors.Is(err, store.ErrNotFound) {
				continue
			} else if err != nil {
				h.web.Fail(w, r, err)
				return
			}
			label := "#" + strconv.FormatInt(l.ID, 10) + " " + l.CustomerName
			if l.CompanyName != "" {
				label += " — " + l.CompanyName
			}
			c.Items = append(c.Items, components.Link{Href: leadsview.LeadHref(l.ID), Label: label})
			c.Hidden = append(c.Hidden, components.Hidden{Name: "ids", Value: strconv.FormatInt(l.ID, 10)})
		}
		if len(c.Items) == 0 {
			h.web.Fail(w, r, web.ErrNotFound)
			return
		}
		c.Message = web.T(r, "leadsPage.deleteMessage", "Count", len(c.Items))
		h.web.Page(w, r, http.StatusOK, c.Title, components.Confirm(c))
		return
	}
	deleted, err := scope.DeleteLeads(r.Context(), ids)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	for _, id := range deleted {
		h.documents.RemoveFiles(r, store.EntityLead, id)
	}
	h.web.Flash(r, "leads.bulkDeleted", "Count", len(deleted))
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// --- Saved views ---------------------------------------------------------------------
