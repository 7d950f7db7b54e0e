package leads

import (
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
	var p savedViewPayload
	if err := web.DecodeJSON(w, r, &p); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	v, err := web.Scope(r).SaveView(r.Context(), p.Name, p.Query)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusCreated, "views.saved", v)
}

func (h *Handler) SavedViewDelete(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if err := web.Scope(r).DeleteSavedView(r.Context(), id); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "views.deleted", nil)
}
