package settings

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	"crm/views/components"
	settingsview "crm/views/settings"
)

// The Settings area's pages: the master lists of leads (stages, statuses, sources, types,
// personal titles, business types) and the stage settings. They call the same store
// functions as the JSON API.

func (h *Handler) SettingsHome(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, settingsview.Href(store.KindStage), http.StatusSeeOther)
}

// pathKind reads the {kind} URL parameter; an unknown kind is not found.
func pathKind(r *http.Request) (store.MasterKind, error) {
	k := store.MasterKind(chi.URLParam(r, "kind"))
	if !slices.Contains(settingsview.Kinds, k) {
		return "", web.ErrNotFound
	}
	return k, nil
}

// mastersModel loads a master list with the number of leads using each entry.
func (h *Handler) mastersModel(r *http.Request, kind store.MasterKind) (*settingsview.Masters, error) {
	p := web.Caller(r)
	scope := p.Scope()
	ms, err := scope.Masters(r.Context(), kind)
	if err != nil {
		return nil, err
	}
	m := &settingsview.Masters{Kind: kind, Ordered: kind == store.KindStage,
		CanCreate: p.Perms.Allows(auth.FeatureSettings, auth.Create), CanUpdate: p.Perms.Allows(auth.FeatureSettings, auth.Update),
		CanDelete: p.Perms.Allows(auth.FeatureSettings, auth.Delete)}
	uses, err := scope.MasterUsages(r.Context(), kind, ms)
	if err != nil {
		return nil, err
	}
	for _, master := range ms {
		m.Rows = append(m.Rows, settingsview.MasterRow{ID: master.ID, Name: master.Name, IsDefault: master.IsDefault, IsWon: master.IsWon,
			IsLost: master.IsLost, Count: uses[master.ID], Input: master.Name})
	}
	return m, nil
}

// renderMasters shows a master list; the stage list carries board.js for ordering by drag.
func (h *Handler) renderMasters(w http.ResponseWriter, r *http.Request, status int, m *settingsview.Masters) {
	title := web.T(r, "settingsPage.kind."+string(m.Kind)) + " · " + web.T(r, "settingsPage.title")
	if m.Ordered && m.CanUpdate {
		h.web.PageWithScript(w, r, status, title, settingsview.MastersPage(*m), "board.js")
		return
	}
	h.web.Page(w, r, status, title, settingsview.MastersPage(*m))
}

func (h *Handler) MastersPage(w http.ResponseWriter, r *http.Request) {
	kind, err := pathKind(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	m, err := h.mastersModel(r, kind)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.renderMasters(w, r, http.StatusOK, m)
}

// fieldError is the key of a validation error for field (or of any field), if err is one.
func fieldError(err error, field string) (string, bool) {
	var ve validate.Errors
	if !errors.As(err, &ve) {
		return "", false
	}
	if key := ve.First(field); key != "" {
		return key, true
	}
	return validate.KeyInvalid, true
}

func (h *Handler) MasterAddPage(w http.ResponseWriter, r *http.Request) {
	h.saveMaster(w, r, "masters.created", func(ctx context.Context, s store.Scope, kind store.MasterKind, name string) error {
		_, err := s.CreateMaster(ctx, kind, name)
		return err
	}, func(m *settingsview.Masters, name, key string) { m.AddName, m.AddError = name, key })
}

func (h *Handler) MasterRenamePage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.saveMaster(w, r, "masters.updated", func(ctx context.Context, s store.Scope, kind store.MasterKind, name string) error {
		_, err := s.UpdateMaster(ctx, kind, id, name)
		return err
	}, func(m *settingsview.Masters, name, key string) {
		for i := range m.Rows {
			if m.Rows[i].ID == id {
				m.Rows[i].Input, m.Rows[i].Error = name, key
			}
		}
	})
}

// saveMaster takes a master form's name and saves it: back to the list with doneID, or the
// list again (422) with the name and its error where the form was (refused places them).
func (h *Handler) saveMaster(w http.ResponseWriter, r *http.Request, doneID string,
	save func(ctx context.Context, s store.Scope, kind store.MasterKind, name string) error,
	refused func(m *settingsview.Masters, name, key string)) {
	kind, err := pathKind(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	name := r.PostFormValue("name")
	err = save(r.Context(), web.Scope(r), kind, name)
	if key, isRefusal := fieldError(err, "name"); isRefusal {
		m, err := h.mastersModel(r, kind)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		refused(m, name, key)
		h.renderMasters(w, r, http.StatusUnprocessableEntity, m)
		return
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, doneID)
	http.Redirect(w, r, settingsview.Href(kind), http.StatusSeeOther)
}

// MasterMovePage moves a stage one place up or down: the way to order stages
// without dragging.
func (h *Handler) MasterMovePage(w http.ResponseWriter, r *http.Request) {
	kind, err := pathKind(r)
	if err != nil || kind != store.KindStage {
		h.web.Fail(w, r, web.ErrNotFound)
		return
	}
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	scope := web.Scope(r)
	ms, err := scope.Masters(r.Context(), kind)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	ids := make([]int64, len(ms))
	at := -1
	for i, m := range ms {
		ids[i] = m.ID
		if m.ID == id {
			at = i
		}
	}
	if at < 0 {
		h.web.Fail(w, r, web.ErrNotFound)
		return
	}
	to := at - 1
	if r.PostFormValue("dir") == "down" {
		to = at + 1
	}
	if to >= 0 && to < len(ids) {
		ids[at], ids[to] = ids[to], ids[at]
		if err := scope.ReorderMasters(r.Context(), kind, ids); err != nil {
			h.web.Fail(w, r, err)
			return
		}
		h.web.Flash(r, "stages.reordered")
	}
	http.Redirect(w, r, settingsview.Href(kind), http.StatusSeeOther)
}

// masterConfirm is the confirmation step of deleting a master, or its refusal.
func (h *Handler) masterConfirm(r *http.Request, kind store.MasterKind, m *store.Master, refusal string) templ.Component {
	back := settingsview.Href(kind)
	return components.Confirm(components.ConfirmModel{
		Title:   web.T(r, "settingsPage.deleteTitle", "Name", m.Name),
		Message: web.T(r, "settingsPage.deleteMessage", "Name", m.Name),
		Error:   refusal, Action: back + "/" + strconv.FormatInt(m.ID, 10) + "/delete",
		Confirm: web.T(r, "settingsPage.delete"), CancelHref: back, Cancel: web.T(r, "settingsPage.back"), Danger: true})
}

// masterOf loads the master named by the path.
func (h *Handler) masterOf(r *http.Request) (store.MasterKind, *store.Master, error) {
	kind, err := pathKind(r)
	if err != nil {
		return "", nil, err
	}
	id, err := web.PathID(r, "id")
	if err != nil {
		return "", nil, err
	}
	m, err := web.Scope(r).Master(r.Context(), kind, id)
	return kind, m, err
}

// deleteRefusal says why a master cannot go, or "" if it can.
func deleteRefusal(r *http.Request, err error) (string, int) {
	var inUse *store.InUseError
	if errors.As(err, &inUse) {
		id, args := inUse.Refusal()
		return web.T(r, id, args...), http.StatusConflict
	}
	if key, refused := fieldError(err, "id"); refused {
		return web.T(r, "validation."+key), http.StatusUnprocessableEntity
	}
	return "", 0
}

func (h *Handler) MasterDeletePage(w http.ResponseWriter, r *http.Request) {
	kind, m, err := h.masterOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	// Say up front when the entry is still in use, rather than after the click.
	use, err := web.Scope(r).MasterUses(r.Context(), m)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	refusal, _ := deleteRefusal(r, use)
	if use.Leads == 0 && use.Clients == 0 {
		refusal = ""
	}
	h.web.Page(w, r, http.StatusOK, web.T(r, "settingsPage.deleteTitle", "Name", m.Name), h.masterConfirm(r, kind, m, refusal))
}

func (h *Handler) MasterDeleteSubmit(w http.ResponseWriter, r *http.Request) {
	kind, m, err := h.masterOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	err = web.Scope(r).DeleteMaster(r.Context(), kind, m.ID)
	if refusal, status := deleteRefusal(r, err); refusal != "" {
		h.web.Page(w, r, status, web.T(r, "settingsPage.deleteTitle", "Name", m.Name), h.masterConfirm(r, kind, m, refusal))
		return
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "masters.deleted")
	http.Redirect(w, r, settingsview.Href(kind), http.StatusSeeOther)
}

// stageSettingsFields are the stage settings form's fields.
var stageSettingsFields = []string{"default_stage_id", "won_stage_id", "lost_stage_id"}

func (h *Handler) renderStageSettings(w http.ResponseWriter, r *http.Request, status int, values, errs map[string]string) {
	p := web.Caller(r)
	stages, err := p.Scope().Masters(r.Context(), store.KindStage)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Page(w, r, status, web.T(r, "settingsPage.stageSettings")+" · "+web.T(r, "settingsPage.title"),
		settingsview.StageSettingsPage(settingsview.StageSettings{Stages: stages, Values: values, Errors: errs,
			CanUpdate: p.Perms.Allows(auth.FeatureSettings, auth.Update)}))
}

func (h *Handler) StageSettingsPage(w http.ResponseWriter, r *http.Request) {
	st, err := web.Scope(r).StageSettings(r.Context())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.renderStageSettings(w, r, http.StatusOK, map[string]string{"default_stage_id": strconv.FormatInt(st.DefaultStageID, 10),
		"won_stage_id": strconv.FormatInt(st.WonStageID, 10), "lost_stage_id": strconv.FormatInt(st.LostStageID, 10)}, nil)
}

func (h *Handler) StageSettingsSubmit(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	values := map[string]string{}
	ids := map[string]int64{}
	for _, f := range stageSettingsFields {
		values[f] = r.PostFormValue(f)
		ids[f], _ = strconv.ParseInt(values[f], 10, 64)
	}
	_, err := web.Scope(r).UpdateStageSettings(r.Context(), store.StageSettings{
		DefaultStageID: ids["default_stage_id"], WonStageID: ids["won_stage_id"], LostStageID: ids["lost_stage_id"]})
	var ve validate.Errors
	if errors.As(err, &ve) {
		h.renderStageSettings(w, r, http.StatusUnprocessableEntity, values, ve)
		return
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "stages.settingsSaved")
	http.Redirect(w, r, "/settings/stages", http.StatusSeeOther)
}
