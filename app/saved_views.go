package app

import (
	"net/http"

	"crm/app/store"
)

func (s *server) handleSavedViewList(w http.ResponseWriter, r *http.Request) {
	views, err := principalFrom(r.Context()).Scope(s.db).SavedViews(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.ok(w, r, http.StatusOK, "ok", listData[store.SavedView]{Result: views, Total: int64(len(views)), Page: 1, Limit: len(views)})
}

type savedViewPayload struct {
	Name  string `json:"name"`
	Query string `json:"query"`
}

func (s *server) handleSavedViewCreate(w http.ResponseWriter, r *http.Request) {
	var p savedViewPayload
	if err := decodeJSON(w, r, &p); err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := principalFrom(r.Context()).Scope(s.db).SaveView(r.Context(), p.Name, p.Query)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.ok(w, r, http.StatusCreated, "views.saved", v)
}

func (s *server) handleSavedViewDelete(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if err := principalFrom(r.Context()).Scope(s.db).DeleteSavedView(r.Context(), id); err != nil {
		s.fail(w, r, err)
		return
	}
	s.ok(w, r, http.StatusOK, "views.deleted", nil)
}
