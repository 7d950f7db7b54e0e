package leads

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"crm/app/validate"
	"crm/app/web"
	leadsview "crm/views/leads"
)

func (h *Handler) SavedViewSavePage(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	name, query := r.PostFormValue("name"), strings.TrimPrefix(r.PostFormValue("query"), "?")
	_, norm, _ := Query(parseQuery(query))
	norm.Del("after")
	v, err := web.Scope(r).SaveView(r.Context(), name, norm.Encode())
	var ve validate.Errors
	if errors.As(err, &ve) {
		h.list.Refuse(w, r, web.QueryHref(leadsview.ListPath, norm), func(m *leadsview.List) {
			m.SaveName = name
			m.SaveError = ve.First("name")
		})
		return
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "views.saved")
	http.Redirect(w, r, leadsview.SavedViewHref(*v), http.StatusSeeOther)
}

func parseQuery(q string) url.Values {
	v, _ := url.ParseQuery(q)
	return v
}

func (h *Handler) SavedViewDeletePage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if err := web.Scope(r).DeleteSavedView(r.Context(), id); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "views.deleted")
	http.Redirect(w, r, "/leads", http.StatusSeeOther)
}

// --- The pipeline board --------------------------------------------------------------
