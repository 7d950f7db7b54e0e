package documents

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	clientsview "crm/views/clients"
	"crm/views/components"
)

// The documents and reminders of a lead (and the documents of a client) as admin pages:
// sections of the lead and client pages, the upload form, rename/retag and delete steps of
// a document, the reminder forms (with the date-time picker), and /notifications, the
// user's due reminders. They use the same store calls as the JSON API.

func docRecords(docs []store.Document) []clientsview.Doc {
	out := make([]clientsview.Doc, 0, len(docs))
	for i := range docs {
		pr := preview(&docs[i])
		out = append(out, clientsview.Doc{ID: pr.ID, Name: pr.Name, Tag: pr.Tag, Size: pr.Size, MediaType: pr.MediaType, URL: pr.URL, Thumbnail: pr.Thumbnail})
	}
	return out
}

// Section loads an entity's documents section.
func (h *Handler) Section(r *http.Request, entity string, id int64, base string) (clientsview.Documents, error) {
	p := web.Caller(r)
	f := store.EntityNamed(entity).Feature
	d := clientsview.Documents{Entity: entity, EntityID: id, Base: base, MaxFiles: maxFilesPerUpload, MaxKB: maxFileBytes / 1024,
		CanCreate: p.Perms.Allows(f, auth.Create), CanUpdate: p.Perms.Allows(f, auth.Update), CanDelete: p.Perms.Allows(f, auth.Delete)}
	docs, err := p.Scope().Documents(r.Context(), entity, id)
	if err != nil {
		return d, err
	}
	d.Docs = docRecords(docs)
	return d, nil
}

// entityBase is the page of a lead or client.
func entityBase(entity string, id int64) string { return store.EntityNamed(entity).Href(id) }

// uploadRefusal is the translated reason an upload was refused.
func uploadRefusal(r *http.Request, err error) (int, string) {
	status, msgID, args, fields := web.Classify(err)
	if key := fields["files"]; key != "" {
		return status, web.T(r, "validation."+key)
	}
	return status, web.T(r, msgID, args...)
}

// DocumentUploadPage takes the upload form of a lead or client page; a refused
// upload shows the documents again with the reason, and nothing is kept.
func (h *Handler) DocumentUploadPage(entity string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		scope, id, err := owner(r, entity)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		base := entityBase(entity, id)
		docs, err := h.receiveUpload(w, r, scope, entity, id)
		if err != nil {
			status, msg := uploadRefusal(r, err)
			if status >= 500 || status == http.StatusNotFound || status == http.StatusForbidden {
				h.web.Fail(w, r, err)
				return
			}
			d, lerr := h.Section(r, entity, id, base)
			if lerr != nil {
				h.web.Fail(w, r, lerr)
				return
			}
			d.Error = msg
			h.web.Page(w, r, status, web.T(r, "documentsPage.title"), clientsview.DocumentsBack(base, d))
			return
		}
		h.web.Flash(r, "documentsPage.uploadedCount", "Count", len(docs))
		http.Redirect(w, r, base+"#documents", http.StatusSeeOther)
	}
}

// documentOf loads the document named by the path, of the entity named by the path.
func (h *Handler) documentOf(r *http.Request, entity string) (*store.Document, error) {
	id, err := web.PathID(r, "id")
	if err != nil {
		return nil, err
	}
	docID, err := strconv.ParseInt(chi.URLParam(r, "docID"), 10, 64)
	if err != nil {
		return nil, web.ErrNotFound
	}
	d, err := web.Scope(r).Document(r.Context(), entity, docID)
	if err != nil {
		return nil, err
	}
	if d.EntityID != id {
		return nil, store.ErrNotFound
	}
	return d, nil
}

func (h *Handler) DocumentEditPage(entity string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d, err := h.documentOf(r, entity)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		base := entityBase(entity, d.EntityID)
		action := base + "/documents/" + strconv.FormatInt(d.ID, 10) + "/edit"
		if r.Method == http.MethodGet {
			h.web.Page(w, r, http.StatusOK, web.T(r, "documentsPage.editTitle"), clientsview.DocumentEditPage(action, base+"#documents", d.Name, d.Tag, map[string]string{}))
			return
		}
		if err := web.ReadForm(w, r); err != nil {
			h.web.Fail(w, r, err)
			return
		}
		name, tag := r.PostFormValue("name"), r.PostFormValue("tag")
		_, err = web.Scope(r).UpdateDocument(r.Context(), entity, d.ID, name, tag)
		var ve validate.Errors
		if errors.As(err, &ve) {
			h.web.Page(w, r, http.StatusUnprocessableEntity, web.T(r, "documentsPage.editTitle"), clientsview.DocumentEditPage(action, base+"#documents", name, tag, ve))
			return
		}
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		h.web.Flash(r, "documents.updated")
		http.Redirect(w, r, base+"#documents", http.StatusSeeOther)
	}
}

func (h *Handler) DocumentDeletePage(entity string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d, err := h.documentOf(r, entity)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		base := entityBase(entity, d.EntityID)
		action := base + "/documents/" + strconv.FormatInt(d.ID, 10) + "/delete"
		if r.Method == http.MethodGet {
			h.web.Page(w, r, http.StatusOK, web.T(r, "documentsPage.deleteTitle"), components.Confirm(components.ConfirmModel{
				Title: web.T(r, "documentsPage.deleteTitle"), Message: web.T(r, "documentsPage.deleteMessage"),
				Items: []components.Link{{Label: d.Name + " (" + sizeKB(d.SizeBytes) + ")"}}, Action: action,
				Confirm: web.T(r, "leadsPage.deleteConfirm"), CancelHref: base + "#documents", Cancel: web.T(r, "leadsPage.cancel"), Danger: true}))
			return
		}
		key, err := web.Scope(r).DeleteDocument(r.Context(), entity, d.ID)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		if err := h.files.Delete(r.Context(), key); err != nil {
			h.web.Logger(r).Warn("document file not removed", "key", key, "err", err)
		}
		h.web.Flash(r, "documents.deleted")
		http.Redirect(w, r, base+"#documents", http.StatusSeeOther)
	}
}
