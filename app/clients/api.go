package clients

import (
	"context"
	"net/http"

	"crm/app/store"
	"crm/app/web"
)

// clientPayload is a client as the API takes it: the contact block, by its JSON names.
type clientPayload struct {
	store.Contact
}

func (p clientPayload) input() store.ClientInput { return store.ClientInput{Contact: p.Contact} }

func (h *Handler) ClientCreate(w http.ResponseWriter, r *http.Request) {
	web.ServeJSON(h.web, w, r, http.StatusCreated, "clients.created", func(ctx context.Context, s store.Scope, p clientPayload) (any, error) {
		return s.CreateClient(ctx, p.input())
	})
}

func (h *Handler) ClientUpdate(w http.ResponseWriter, r *http.Request) {
	web.ServeJSONByID(h.web, w, r, http.StatusOK, "clients.updated", func(ctx context.Context, s store.Scope, id int64, p clientPayload) (any, error) {
		return s.UpdateClient(ctx, id, p.input())
	})
}

func (h *Handler) ClientView(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusOK, "ok", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		return s.ClientView(ctx, id)
	})
}

func (h *Handler) ClientDelete(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	p := web.Caller(r)
	if err := p.Scope().DeleteClient(r.Context(), id); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.documents.RemoveFiles(r, store.EntityClient, id)
	h.web.OK(w, r, http.StatusOK, "clients.deleted", nil)
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

// ClientList is GET /v1/api/client/list-customer-client: the client list page by
// page, with the query Query reads and `page` for offset paging; `after` or
// `before` page by keyset instead.
func (h *Handler) ClientList(w http.ResponseWriter, r *http.Request) {
	q, err := apiQuery(r.URL.Query())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	q.Page = int(web.IntParam(r, "page"))
	page, err := web.Scope(r).ListClients(r.Context(), q)
	if err != nil {
		h.web.Fail(w, r, err)
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
	h.web.OK(w, r, http.StatusOK, "ok", out)
}

// clientBulkChange is the body of a bulk owner change.
type clientBulkChange struct {
	IDs     []int64 `json:"ids"`
	OwnerID int64   `json:"owner_id"`
}

// ClientBulkUpdate gives many clients another owner at once.
func (h *Handler) ClientBulkUpdate(w http.ResponseWriter, r *http.Request) {
	var b clientBulkChange
	if err := web.DecodeJSON(w, r, &b); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	n, err := web.Scope(r).BulkSetClientOwner(r.Context(), b.IDs, b.OwnerID)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Counted(w, r, "clientsList.bulkUpdated", n)
}

// ClientDeleteMany deletes the clients named by `ids=[…]`, with their documents.
func (h *Handler) ClientDeleteMany(w http.ResponseWriter, r *http.Request) {
	h.documents.DeleteRecords(w, r, store.EntityClient, "clientsList.bulkDeleted", func(ctx context.Context, s store.Scope, ids []int64) ([]int64, error) {
		return s.DeleteClients(ctx, ids)
	})
}

// LeadConvert makes a client from a lead; a second conversion is refused.
func (h *Handler) LeadConvert(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusCreated, "clients.converted", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		return s.ConvertLead(ctx, id)
	})
}
