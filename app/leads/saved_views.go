package leads

import (
	"context"
	"net/http"

	"crm/app/store"
	"crm/app/web"
)

func (h *Handler) SavedViewList(w http.ResponseWriter, r *http.Request) {
	views, err := web.Scope(r).SavedViews(r.Context())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", web.List[store.SavedView]{Result: views, Total: int64(len(views)), Page: 1, Limit: len(views)})
}

type savedViewPayload struct {
	Name  string `json:"name"`
	Query string `json:"query"`
}

func (h *Handler) SavedViewCreate(w http.ResponseWriter, r *http.Request) {
	web.ServeJSON(h.web, w, r, http.StatusCreated, "views.saved", func(ctx context.Context, s store.Scope, p savedViewPayload) (any, error) {
		return s.SaveView(ctx, p.Name, p.Query)
	})
}

func (h *Handler) SavedViewDelete(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusOK, "views.deleted", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		if err := s.DeleteSavedView(ctx, id); err != nil {
			return nil, err
		}
		return nil, nil
	})
}
