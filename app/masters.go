package app

import (
	"net/http"

	"crm/app/store"
	"crm/app/web"
)

// dropdownItem is the spec's dropdown shape.
type dropdownItem struct {
	Label string `json:"label"`
	Value int64  `json:"value"`
}

// handleDropdown lists one kind of master as label/value pairs, in display order.
func (s *server) handleDropdown(kind store.MasterKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ms, err := web.Scope(r).Masters(r.Context(), kind)
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		out := make([]dropdownItem, 0, len(ms))
		for _, m := range ms {
			out = append(out, dropdownItem{Label: m.Name, Value: m.ID})
		}
		s.web.OK(w, r, http.StatusOK, "ok", out)
	}
}

// masterFamily is one master list and the path name the spec gives it.
type masterFamily struct {
	path string
	kind store.MasterKind
}

// masterFamilies are the master lists of the Settings area, with their API path names.
var masterFamilies = []masterFamily{
	{"lead-stage-master", store.KindStage},
	{"lead-status-master", store.KindStatus},
	{"lead-source-master", store.KindSource},
	{"lead-type-master", store.KindType},
	{"personal-title", store.KindTitle},
	{"business-type-master", store.KindBusinessType},
}

type masterJSON struct {
	*store.Master
	LeadCount int64 `json:"lead_count"`
}

func (s *server) handleMasterList(kind store.MasterKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		scope := web.Scope(r)
		ms, err := scope.Masters(r.Context(), kind)
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		out := make([]masterJSON, 0, len(ms))
		for i := range ms {
			n, err := scope.MasterUsage(r.Context(), &ms[i])
			if err != nil {
				s.web.Fail(w, r, err)
				return
			}
			out = append(out, masterJSON{Master: &ms[i], LeadCount: n})
		}
		s.web.OK(w, r, http.StatusOK, "ok", web.List[masterJSON]{Result: out, Total: int64(len(out)), Page: 1, Limit: len(out)})
	}
}

func (s *server) handleMasterView(kind store.MasterKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := web.PathID(r, "id")
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		scope := web.Scope(r)
		m, err := scope.Master(r.Context(), kind, id)
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		n, err := scope.MasterUsage(r.Context(), m)
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		s.web.OK(w, r, http.StatusOK, "ok", masterJSON{Master: m, LeadCount: n})
	}
}

type masterPayload struct {
	Name string `json:"name"`
}

func (s *server) handleMasterCreate(kind store.MasterKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var p masterPayload
		if err := web.DecodeJSON(w, r, &p); err != nil {
			s.web.Fail(w, r, err)
			return
		}
		m, err := web.Scope(r).CreateMaster(r.Context(), kind, p.Name)
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		s.web.OK(w, r, http.StatusCreated, "masters.created", masterJSON{Master: m})
	}
}

func (s *server) handleMasterUpdate(kind store.MasterKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := web.PathID(r, "id")
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		var p masterPayload
		if err := web.DecodeJSON(w, r, &p); err != nil {
			s.web.Fail(w, r, err)
			return
		}
		m, err := web.Scope(r).UpdateMaster(r.Context(), kind, id, p.Name)
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		s.web.OK(w, r, http.StatusOK, "masters.updated", masterJSON{Master: m})
	}
}

func (s *server) handleMasterDelete(kind store.MasterKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := web.PathID(r, "id")
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		if err := web.Scope(r).DeleteMaster(r.Context(), kind, id); err != nil {
			s.web.Fail(w, r, err)
			return
		}
		s.web.OK(w, r, http.StatusOK, "masters.deleted", nil)
	}
}

type orderPayload struct {
	IDs []int64 `json:"ids"`
}

func (s *server) handleStageOrder(w http.ResponseWriter, r *http.Request) {
	var p orderPayload
	if err := web.DecodeJSON(w, r, &p); err != nil {
		s.web.Fail(w, r, err)
		return
	}
	if err := web.Scope(r).ReorderMasters(r.Context(), store.KindStage, p.IDs); err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.web.OK(w, r, http.StatusOK, "stages.reordered", nil)
}

func (s *server) handleStageSettingsView(w http.ResponseWriter, r *http.Request) {
	st, err := web.Scope(r).StageSettings(r.Context())
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.web.OK(w, r, http.StatusOK, "ok", st)
}

func (s *server) handleStageSettingsUpdate(w http.ResponseWriter, r *http.Request) {
	var st store.StageSettings
	if err := web.DecodeJSON(w, r, &st); err != nil {
		s.web.Fail(w, r, err)
		return
	}
	st, err := web.Scope(r).UpdateStageSettings(r.Context(), st)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.web.OK(w, r, http.StatusOK, "stages.settingsSaved", st)
}
