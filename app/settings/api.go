package settings

import (
	"context"
	"net/http"

	"crm/app/store"
	"crm/app/web"
)

// Dropdown lists one kind of master as label/value pairs, in display order.
func (h *Handler) Dropdown(kind store.MasterKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ms, err := web.Scope(r).Masters(r.Context(), kind)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		out := make([]web.DropdownItem, 0, len(ms))
		for _, m := range ms {
			out = append(out, web.DropdownItem{Label: m.Name, Value: m.ID})
		}
		h.web.OK(w, r, http.StatusOK, "ok", out)
	}
}

// DropdownOne is the dropdown entry of one master (a list of one, like Dropdown's): the
// label of a chosen value; an id that is not one of the tenant's entries is not found.
func (h *Handler) DropdownOne(kind store.MasterKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := web.PathID(r, "id")
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		m, err := web.Scope(r).Master(r.Context(), kind, id)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		h.web.OK(w, r, http.StatusOK, "ok", []web.DropdownItem{{Label: m.Name, Value: m.ID}})
	}
}

// MasterFamily is one master list and the path name the spec gives it.
type MasterFamily struct {
	Path string
	Kind store.MasterKind
}

// MasterFamilies are the master lists of the Settings area, with their API path names.
var MasterFamilies = []MasterFamily{
	{"lead-stage-master", store.KindStage},
	{"lead-status-master", store.KindStatus},
	{"lead-source-master", store.KindSource},
	{"lead-type-master", store.KindType},
	{"personal-title", store.KindTitle},
	{"business-type-master", store.KindBusinessType},
	{"event-type", store.KindEventType},
}

type masterJSON struct {
	*store.Master
	LeadCount int64 `json:"lead_count"`
}

func (h *Handler) MasterList(kind store.MasterKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		scope := web.Scope(r)
		ms, err := scope.Masters(r.Context(), kind)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		uses, err := scope.MasterUsages(r.Context(), kind, ms)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		out := make([]masterJSON, 0, len(ms))
		for i := range ms {
			out = append(out, masterJSON{Master: &ms[i], LeadCount: uses[ms[i].ID]})
		}
		h.web.OK(w, r, http.StatusOK, "ok", web.List[masterJSON]{Result: out, Total: int64(len(out)), Page: 1, Limit: len(out)})
	}
}

func (h *Handler) MasterView(kind store.MasterKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := web.PathID(r, "id")
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		scope := web.Scope(r)
		m, err := scope.Master(r.Context(), kind, id)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		n, err := scope.MasterUsage(r.Context(), m)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		h.web.OK(w, r, http.StatusOK, "ok", masterJSON{Master: m, LeadCount: n})
	}
}

type masterPayload struct {
	Name string `json:"name"`
}

func (h *Handler) MasterCreate(kind store.MasterKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		web.ServeJSON(h.web, w, r, http.StatusCreated, "masters.created", func(ctx context.Context, s store.Scope, p masterPayload) (any, error) {
			m, err := s.CreateMaster(ctx, kind, p.Name)
			if err != nil {
				return nil, err
			}
			return masterJSON{Master: m}, nil
		})
	}
}

func (h *Handler) MasterUpdate(kind store.MasterKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		web.ServeJSONByID(h.web, w, r, http.StatusOK, "masters.updated", func(ctx context.Context, s store.Scope, id int64, p masterPayload) (any, error) {
			m, err := s.UpdateMaster(ctx, kind, id, p.Name)
			if err != nil {
				return nil, err
			}
			return masterJSON{Master: m}, nil
		})
	}
}

func (h *Handler) MasterDelete(kind store.MasterKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h.web.ServeByID(w, r, http.StatusOK, "masters.deleted", func(ctx context.Context, s store.Scope, id int64) (any, error) {
			if err := s.DeleteMaster(ctx, kind, id); err != nil {
				return nil, err
			}
			return nil, nil
		})
	}
}

type orderPayload struct {
	IDs []int64 `json:"ids"`
}

func (h *Handler) StageOrder(w http.ResponseWriter, r *http.Request) {
	var p orderPayload
	if err := web.DecodeJSON(w, r, &p); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if err := web.Scope(r).ReorderMasters(r.Context(), store.KindStage, p.IDs); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "stages.reordered", nil)
}

func (h *Handler) StageSettingsView(w http.ResponseWriter, r *http.Request) {
	st, err := web.Scope(r).StageSettings(r.Context())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", st)
}

func (h *Handler) StageSettingsUpdate(w http.ResponseWriter, r *http.Request) {
	var st store.StageSettings
	if err := web.DecodeJSON(w, r, &st); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	st, err := web.Scope(r).UpdateStageSettings(r.Context(), st)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "stages.settingsSaved", st)
}
