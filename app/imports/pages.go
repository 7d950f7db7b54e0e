package imports

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"crm/app/importer"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	"crm/views/components"
	importsview "crm/views/imports"
)

func (h *Handler) ImportsPage(w http.ResponseWriter, r *http.Request) {
	p := web.Caller(r)
	list, err := p.Scope().Imports(r.Context(), 100)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	m := importsview.ListPage{CanNew: canImport(p)}
	for i := range list {
		m.Imports = append(m.Imports, &list[i])
	}
	h.web.Page(w, r, http.StatusOK, web.T(r, "imports.title"), importsview.List(m))
}

func (h *Handler) ImportNewPage(w http.ResponseWriter, r *http.Request) {
	if !canImport(web.Caller(r)) {
		h.web.Fail(w, r, web.ErrForbidden)
		return
	}
	m := importsview.NewPage{Entities: importEntities(r, r.URL.Query().Get("entity"))}
	h.web.Page(w, r, http.StatusOK, web.T(r, "imports.new"), importsview.New(m))
}

func (h *Handler) ImportUploadPage(w http.ResponseWriter, r *http.Request) {
	if !canImport(web.Caller(r)) {
		h.web.Fail(w, r, web.ErrForbidden)
		return
	}
	entity, name, data, err := readUpload(w, r)
	if err == nil {
		var im *store.Import
		if im, err = h.uploadImport(r, entity, name, data); err == nil {
			http.Redirect(w, r, importsview.Href(im.ID), http.StatusSeeOther)
			return
		}
	}
	var fe *fileError
	if !errors.As(err, &fe) {
		h.web.Fail(w, r, err)
		return
	}
	m := importsview.NewPage{Entities: importEntities(r, entity), Error: fe.MsgID, Args: fe.Args}
	h.web.Page(w, r, fe.Status, web.T(r, "imports.new"), importsview.New(m))
}

// importPage builds an import's page: the mapping form (with a refused mapping's errors)
// or the progress and report.
func (h *Handler) importPage(r *http.Request, im *store.Import, mapping []string, mode, matchKey string, errs validate.Errors) (importsview.ImportPage, error) {
	m := importsview.ImportPage{Import: im, Fields: importer.Fields(im.Entity), Mode: mode, MatchKey: matchKey, Errors: errs}
	if im.Status == store.ImportUploaded {
		if mapping == nil {
			mapping = im.Mapping
		}
		if m.Mode == "" {
			m.Mode = store.ModeCreate
		}
		if m.MatchKey == "" {
			m.MatchKey = store.MatchEmail
		}
		for i, h := range im.Header {
			c := importsview.Column{Index: i, Header: h, Error: errs["mapping."+strconv.Itoa(i)]}
			if c.Header == "" {
				c.Header = web.T(r, "imports.columnN", "N", i+1)
			}
			if i < len(mapping) {
				c.Selected = mapping[i]
			}
			for _, row := range im.Preview {
				if i < len(row) && strings.TrimSpace(row[i]) != "" && len(c.Samples) < 3 {
					c.Samples = append(c.Samples, row[i])
				}
			}
			m.Columns = append(m.Columns, c)
		}
		return m, nil
	}
	st, err := h.importStatus(r, im)
	m.Status = st
	return m, err
}

// importStatus is the progress of an import, or its report with the first problem rows.
func (h *Handler) importStatus(r *http.Request, im *store.Import) (importsview.StatusModel, error) {
	p := web.Caller(r)
	m := importsview.StatusModel{Import: im, CanUndo: im.Undoable() && p.Scope().MayImport(im.Entity, im.Mode, true)}
	if im.Active() {
		return m, nil
	}
	rows, err := p.Scope().ImportRows(r.Context(), im.ID, 0, reportProblems+1, store.OutcomeSkipped, store.OutcomeFailed)
	if err != nil {
		return m, err
	}
	if len(rows) > reportProblems {
		rows, m.More = rows[:reportProblems], true
	}
	for _, row := range rows {
		pr := importsview.Problem{Row: row.RowNo, Outcome: row.Outcome, Reason: importsview.ReasonText(r.Context(), im, row.Reason)}
		if row.Reason != nil {
			pr.RecordID = row.Reason.ID
		}
		m.Problems = append(m.Problems, pr)
	}
	return m, nil
}

func (h *Handler) ImportPage(w http.ResponseWriter, r *http.Request) {
	im, err := h.importOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	m, err := h.importPage(r, im, nil, "", "", nil)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Page(w, r, http.StatusOK, im.FileName, importsview.Page(m))
}

func (h *Handler) ImportRunPage(w http.ResponseWriter, r *http.Request) {
	im, err := h.importOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if err := r.ParseForm(); err != nil {
		h.web.Fail(w, r, web.BadRequest("error.form", err))
		return
	}
	mapping := make([]string, len(im.Header))
	for i := range mapping {
		mapping[i] = strings.TrimSpace(r.PostFormValue("map." + strconv.Itoa(i)))
	}
	mode, matchKey := r.PostFormValue("mode"), r.PostFormValue("match_key")
	if _, err := h.runImport(r, im, mapping, mode, matchKey); err != nil {
		var ve validate.Errors
		if !errors.As(err, &ve) {
			h.web.Fail(w, r, err)
			return
		}
		m, err := h.importPage(r, im, mapping, mode, matchKey, ve)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		h.web.Page(w, r, http.StatusUnprocessableEntity, im.FileName, importsview.Page(m))
		return
	}
	h.web.Flash(r, "imports.started")
	http.Redirect(w, r, importsview.Href(im.ID), http.StatusSeeOther)
}

// ImportProgress is the status fragment htmx polls; it stops polling by answering
// with the report.
func (h *Handler) ImportProgress(w http.ResponseWriter, r *http.Request) {
	im, err := h.importOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if r.Header.Get("HX-Request") != "true" {
		http.Redirect(w, r, importsview.Href(im.ID), http.StatusSeeOther)
		return
	}
	m, err := h.importStatus(r, im)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	h.web.Render(w, r, http.StatusOK, importsview.Status(m))
}

func (h *Handler) ImportUndoPage(w http.ResponseWriter, r *http.Request) {
	im, err := h.importOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if !web.Scope(r).MayImport(im.Entity, im.Mode, true) {
		h.web.Fail(w, r, store.ErrForbidden)
		return
	}
	c := components.ConfirmModel{Title: web.T(r, "imports.undoTitle", "Name", im.FileName),
		Message: web.T(r, "imports.undoMessage", "Created", im.Created, "Updated", im.Updated),
		Action:  importsview.Href(im.ID) + "/undo", Confirm: web.T(r, "imports.undo"),
		CancelHref: importsview.Href(im.ID), Cancel: web.T(r, "imports.cancel"), Danger: true}
	if !im.Undoable() {
		c.Error = web.T(r, "imports.error.notUndoable")
	}
	h.web.Page(w, r, http.StatusOK, c.Title, components.Confirm(c))
}

func (h *Handler) ImportUndoSubmit(w http.ResponseWriter, r *http.Request) {
	im, err := h.importOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if _, err := h.undoImport(r, im); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "imports.undoStarted")
	http.Redirect(w, r, importsview.Href(im.ID), http.StatusSeeOther)
}
