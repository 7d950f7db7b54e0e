package clients

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/a-h/templ"

	"crm/app/auth"
	"crm/app/listpage"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	clientsview "crm/views/clients"
	"crm/views/components"
)

// newList is the client list page as the list kit serves it.
func (h *Handler) newList() *listpage.List[*clientsview.List] {
	return &listpage.List[*clientsview.List]{Kit: h.web, Path: clientsview.ListPath, Results: clientsview.ResultsID,
		TitleID: "clientsPage.title", Load: h.clientList,
		Page:     func(m *clientsview.List) templ.Component { return clientsview.ListPage(*m) },
		Fragment: func(m *clientsview.List) templ.Component { return clientsview.ResultsFragment(*m) },
		SetError: func(m *clientsview.List, msg string) { m.BulkError = msg }}
}

// clientList loads everything the list page shows for a query string.
func (h *Handler) clientList(r *http.Request, in url.Values) (*clientsview.List, error) {
	ctx := r.Context()
	p := web.CallerFrom(ctx)
	scope := p.Scope()
	q, norm, errs := Query(in)
	if !listpage.LimitOffered(norm) {
		q.Limit = 0 // the page offers its own page sizes only
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
	sort, desc := listpage.Sort(q.Sort, q.Order)
	m := &clientsview.List{ListState: clientsview.State(norm, errs, sort, desc), Page: page, Choices: map[string][]components.Option{},
		CanCreate: p.Perms.Allows(auth.FeatureClients, auth.Create), CanUpdate: p.Perms.Allows(auth.FeatureClients, auth.Update),
		CanDelete: p.Perms.Allows(auth.FeatureClients, auth.Delete), CanExport: p.Perms.Allows(auth.FeatureClients, auth.Export)}
	m.Filtered = q.Search != "" || len(q.OwnerIDs) > 0 || q.Converted != nil || !q.CreatedFrom.IsZero() || !q.CreatedTo.IsZero() || len(errs) > 0
	if m.Choices["owner_id"], m.Choices["bulk_owner_id"], err = listpage.Owners(r, auth.FeatureClients); err != nil {
		return nil, err
	}
	m.Pager = m.ListState.Pager(ctx, web.T(r, "clientsPage.pages"), false, page.Prev, page.Next)
	return m, nil
}

func (h *Handler) ClientsPage(w http.ResponseWriter, r *http.Request) { h.list.Serve(w, r) }

// ClientsBulkOwner gives the ticked clients the chosen owner.
func (h *Handler) ClientsBulkOwner(w http.ResponseWriter, r *http.Request) {
	h.list.BulkChange(w, r, listpage.BulkChange{Fields: []string{"owner_id"},
		NoneID: "clientsList.selectNone", DoneID: "clientsList.bulkUpdated",
		Apply: func(r *http.Request, ids []int64, _ string, owner int64) (int, error) {
			return web.Scope(r).BulkSetClientOwner(r.Context(), ids, owner)
		}})
}

// ClientsBulkDelete deletes the ticked clients and their document files, after a
// confirmation step.
func (h *Handler) ClientsBulkDelete(w http.ResponseWriter, r *http.Request) {
	h.list.BulkDelete(w, r, listpage.BulkDelete{Action: "/clients/bulk/delete", TitleID: "clientsList.bulkDeleteTitle",
		MessageID: "clientsList.deleteMessage", NoneID: "clientsList.selectNone", DoneID: "clientsList.bulkDeleted",
		Find: func(r *http.Request, id int64) (components.Record, error) {
			c, err := web.Scope(r).ClientView(r.Context(), id)
			if err != nil {
				return components.Record{}, err
			}
			return components.Record{ID: c.ID, Href: clientsview.ClientHref(c.ID), Name: c.CustomerName, Detail: c.CompanyName}, nil
		},
		Delete: func(r *http.Request, ids []int64) (int, error) {
			deleted, err := web.Scope(r).DeleteClients(r.Context(), ids)
			if err != nil {
				return 0, err
			}
			for _, id := range deleted {
				h.documents.RemoveFiles(r, store.EntityClient, id)
			}
			return len(deleted), nil
		}})
}
