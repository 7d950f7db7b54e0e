package leads

import (
	"context"
	"net/http"

	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
)

// leadInput turns the payload into the store's input (admin rules: no client id).
func (p leadPayload) input() store.LeadInput {
	return store.LeadInput{Contact: p.Contact, LeadTypeID: p.LeadTypeID, LeadSourceID: p.LeadSourceID,
		LeadStatusID: p.LeadStatusID, LeadStageID: p.LeadStageID, CreatedAt: p.CreatedAt}
}

func (h *Handler) LeadUpdate(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	var p leadPayload
	if _, err := web.ReadJSON(w, r, &p, maxLeadCreate); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if p.ClientID != "" {
		h.web.Fail(w, r, validate.Errors{"client_id": validate.KeyInvalid})
		return
	}
	in := p.input()
	if p.CompanyLogo != "" {
		if in.Logo, err = parseLogo(p.CompanyLogo); err != nil {
			h.web.Fail(w, r, err)
			return
		}
	}
	lead, err := web.Scope(r).UpdateLead(r.Context(), id, in)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "leads.updated", toLeadJSON(lead))
}

type fieldChange struct {
	LeadStageID  int64 `json:"lead_stage_id"`
	LeadStatusID int64 `json:"lead_status_id"`
	OwnerID      int64 `json:"owner_id"`
}

// LeadSetField serves the single-lead quick changes (update-stage-customer-lead …).
func (h *Handler) LeadSetField(field store.LeadField) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := web.PathID(r, "id")
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		var body fieldChange
		if err := web.DecodeJSON(w, r, &body); err != nil {
			h.web.Fail(w, r, err)
			return
		}
		scope := web.Scope(r)
		if err := scope.SetLeadField(r.Context(), id, field, body.value(field)); err != nil {
			h.web.Fail(w, r, err)
			return
		}
		lead, err := scope.LeadView(r.Context(), id)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		h.web.OK(w, r, http.StatusOK, "leads.updated", toLeadJSON(lead))
	}
}

func (c fieldChange) value(f store.LeadField) int64 {
	switch f {
	case store.FieldStage:
		return c.LeadStageID
	case store.FieldStatus:
		return c.LeadStatusID
	}
	return c.OwnerID
}

type bulkChange struct {
	IDs          []int64 `json:"ids"`
	LeadStageID  int64   `json:"lead_stage_id"`
	LeadStatusID int64   `json:"lead_status_id"`
	OwnerID      int64   `json:"owner_id"`
}

// LeadBulkUpdate changes the stage, status or owner of many leads at once.
func (h *Handler) LeadBulkUpdate(w http.ResponseWriter, r *http.Request) {
	var b bulkChange
	if err := web.DecodeJSON(w, r, &b); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	var field store.LeadField
	var value int64
	set := 0
	for f, v := range map[store.LeadField]int64{store.FieldStage: b.LeadStageID, store.FieldStatus: b.LeadStatusID, store.FieldOwner: b.OwnerID} {
		if v != 0 {
			field, value = f, v
			set++
		}
	}
	if set != 1 {
		h.web.Fail(w, r, validate.Errors{"field": "oneChange"})
		return
	}
	n, err := web.Scope(r).BulkSetLeadField(r.Context(), b.IDs, field, value)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Counted(w, r, "leads.bulkUpdated", n)
}

// LeadDeleteMany deletes the leads named by `ids=[…]`.
func (h *Handler) LeadDeleteMany(w http.ResponseWriter, r *http.Request) {
	h.documents.DeleteRecords(w, r, store.EntityLead, "leads.bulkDeleted", func(ctx context.Context, s store.Scope, ids []int64) ([]int64, error) {
		return s.DeleteLeads(ctx, ids)
	})
}

func (h *Handler) LeadJourney(w http.ResponseWriter, r *http.Request) {
	id := web.IntParam(r, "lead_id")
	page, limit := int(web.IntParam(r, "page")), int(web.IntParam(r, "limit"))
	if page < 1 {
		page = 1
	}
	if limit < 1 || limit > 100 {
		limit = 20
	}
	rows, total, err := web.Scope(r).Journey(r.Context(), id, page, limit)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if rows == nil {
		rows = []store.JourneyEntry{}
	}
	h.web.OK(w, r, http.StatusOK, "ok", web.List[store.JourneyEntry]{Result: rows, Total: total, Page: page, Limit: limit})
}

// LeadDuplicates names reachable leads with the same email or phone.
func (h *Handler) LeadDuplicates(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	dups, err := web.Scope(r).DuplicateLeads(r.Context(), q.Get("email"), q.Get("phone"), web.IntParam(r, "except_id"))
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", dups)
}

// LeadDropdown offers leads as label/value pairs, filtered by an optional search.
func (h *Handler) LeadDropdown(w http.ResponseWriter, r *http.Request) {
	page, err := web.Scope(r).ListLeads(r.Context(),
		store.LeadQuery{Page: 1, Limit: 20, Search: r.URL.Query().Get("search"), Sort: "name"})
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	out := make([]web.DropdownItem, 0, len(page.Rows))
	for _, l := range page.Rows {
		label := l.CustomerName
		if l.CompanyName != "" {
			label += " — " + l.CompanyName
		}
		out = append(out, web.DropdownItem{Label: label, Value: l.ID})
	}
	h.web.OK(w, r, http.StatusOK, "ok", out)
}
