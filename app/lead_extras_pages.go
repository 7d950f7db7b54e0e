package app

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
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

func entityFeature(entity string) auth.Feature {
	if entity == store.EntityClient {
		return auth.FeatureClients
	}
	return auth.FeatureLeads
}

// documentsSection loads an entity's documents section.
func (s *server) documentsSection(r *http.Request, entity string, id int64, base string) (clientsview.Documents, error) {
	p := web.Caller(r)
	f := entityFeature(entity)
	d := clientsview.Documents{Entity: entity, EntityID: id, Base: base, MaxFiles: maxFilesPerUpload, MaxKB: maxFileBytes / 1024,
		CanCreate: p.Perms.Allows(f, auth.Create), CanUpdate: p.Perms.Allows(f, auth.Update), CanDelete: p.Perms.Allows(f, auth.Delete)}
	docs, err := p.Scope().Documents(r.Context(), entity, id)
	if err != nil {
		return d, err
	}
	d.Docs = docRecords(docs)
	return d, nil
}

func reminderRows(rows []store.ReminderView) []clientsview.Reminder {
	out := make([]clientsview.Reminder, 0, len(rows))
	for _, rm := range rows {
		out = append(out, clientsview.Reminder{ID: rm.ID, LeadID: rm.LeadID, LeadName: rm.LeadName, Title: rm.Title, Note: rm.Note,
			Due: rm.DueAt.UTC(), Assignee: rm.AssigneeName, Done: rm.DoneAt != nil, Overdue: rm.Overdue})
	}
	return out
}

// reminderForm builds the add or edit form of a reminder.
func (s *server) reminderForm(r *http.Request, action, cancel string, values, errs map[string]string, edit bool) (clientsview.ReminderForm, error) {
	p := web.Caller(r)
	f := clientsview.ReminderForm{Action: action, CancelHref: cancel, Values: values, Errors: errs, Edit: edit}
	if f.Values["assignee_id"] == "" {
		f.Values["assignee_id"] = strconv.FormatInt(p.User.ID, 10)
	}
	users, err := p.Scope().Users(r.Context())
	if err != nil {
		return f, err
	}
	for _, u := range users {
		f.Assignees = append(f.Assignees, components.Option{Value: strconv.FormatInt(u.ID, 10), Label: u.Name})
	}
	// The due date-time: the shared picker field, whose bundle the admin shell's script loads
	// as soon as the field is on the page (islands/lib/lazy.ts); the page names no script.
	f.Picker = components.Picker{ID: "f-due-at", Name: "due_at", Label: web.T(r, "remindersPage.field.due"),
		Value: values["due_at"], WithTime: true, Required: true, Error: errs["due_at"], TestID: "due-picker"}
	return f, nil
}

// leadExtras renders the client, documents and reminders sections of a lead page.
func (s *server) leadExtras(r *http.Request, lead *store.LeadView) (templ.Component, error) {
	p := web.Caller(r)
	scope := p.Scope()
	base := "/leads/" + strconv.FormatInt(lead.ID, 10)
	x := clientsview.LeadExtras{LeadID: lead.ID,
		CanConvert: p.Perms.Allows(auth.FeatureClients, auth.Create) && p.Perms.Allows(auth.FeatureLeads, auth.Update),
		CanRemind:  p.Perms.Allows(auth.FeatureLeads, auth.Create),
		CanUpdate:  p.Perms.Allows(auth.FeatureLeads, auth.Update), CanDelete: p.Perms.Allows(auth.FeatureLeads, auth.Delete)}
	if c, err := scope.ClientOfLead(r.Context(), lead.ID); err == nil {
		x.ClientID = c.ID
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	var err error
	if x.Documents, err = s.documentsSection(r, store.EntityLead, lead.ID, base); err != nil {
		return nil, err
	}
	rows, err := scope.Reminders(r.Context(), lead.ID)
	if err != nil {
		return nil, err
	}
	x.Reminders = reminderRows(rows)
	if x.CanRemind {
		if x.NewForm, err = s.reminderForm(r, base+"/reminders", "", map[string]string{}, map[string]string{}, false); err != nil {
			return nil, err
		}
	}
	return clientsview.LeadSections(x), nil
}

// entityBase is the page of a lead or client.
func entityBase(entity string, id int64) string {
	if entity == store.EntityClient {
		return clientsview.ClientHref(id)
	}
	return "/leads/" + strconv.FormatInt(id, 10)
}

// uploadRefusal is the translated reason an upload was refused.
func uploadRefusal(r *http.Request, err error) (int, string) {
	status, msgID, args, fields := web.Classify(err)
	if key := fields["files"]; key != "" {
		return status, web.T(r, "validation."+key)
	}
	return status, web.T(r, msgID, args...)
}

// handleDocumentUploadPage takes the upload form of a lead or client page; a refused
// upload shows the documents again with the reason, and nothing is kept.
func (s *server) handleDocumentUploadPage(entity string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, err := web.PathID(r, "id")
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		scope := web.Scope(r)
		if err := scope.Reachable(r.Context(), entity, id); err != nil {
			s.web.Fail(w, r, err)
			return
		}
		base := entityBase(entity, id)
		docs, err := s.receiveUpload(w, r, scope, entity, id)
		if err != nil {
			status, msg := uploadRefusal(r, err)
			if status >= 500 || status == http.StatusNotFound || status == http.StatusForbidden {
				s.web.Fail(w, r, err)
				return
			}
			d, lerr := s.documentsSection(r, entity, id, base)
			if lerr != nil {
				s.web.Fail(w, r, lerr)
				return
			}
			d.Error = msg
			s.web.Page(w, r, status, web.T(r, "documentsPage.title"), clientsview.DocumentsBack(base, d))
			return
		}
		s.web.Flash(r, "documentsPage.uploadedCount", "Count", len(docs))
		http.Redirect(w, r, base+"#documents", http.StatusSeeOther)
	}
}

// documentOf loads the document named by the path, of the entity named by the path.
func (s *server) documentOf(r *http.Request, entity string) (*store.Document, error) {
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

func (s *server) handleDocumentEditPage(entity string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d, err := s.documentOf(r, entity)
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		base := entityBase(entity, d.EntityID)
		action := base + "/documents/" + strconv.FormatInt(d.ID, 10) + "/edit"
		if r.Method == http.MethodGet {
			s.web.Page(w, r, http.StatusOK, web.T(r, "documentsPage.editTitle"), clientsview.DocumentEditPage(action, base+"#documents", d.Name, d.Tag, map[string]string{}))
			return
		}
		if err := web.ReadForm(w, r); err != nil {
			s.web.Fail(w, r, err)
			return
		}
		name, tag := r.PostFormValue("name"), r.PostFormValue("tag")
		_, err = web.Scope(r).UpdateDocument(r.Context(), entity, d.ID, name, tag)
		var ve validate.Errors
		if errors.As(err, &ve) {
			s.web.Page(w, r, http.StatusUnprocessableEntity, web.T(r, "documentsPage.editTitle"), clientsview.DocumentEditPage(action, base+"#documents", name, tag, ve))
			return
		}
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		s.web.Flash(r, "documents.updated")
		http.Redirect(w, r, base+"#documents", http.StatusSeeOther)
	}
}

func (s *server) handleDocumentDeletePage(entity string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d, err := s.documentOf(r, entity)
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		base := entityBase(entity, d.EntityID)
		action := base + "/documents/" + strconv.FormatInt(d.ID, 10) + "/delete"
		if r.Method == http.MethodGet {
			s.web.Page(w, r, http.StatusOK, web.T(r, "documentsPage.deleteTitle"), components.Confirm(components.ConfirmModel{
				Title: web.T(r, "documentsPage.deleteTitle"), Message: web.T(r, "documentsPage.deleteMessage"),
				Items: []components.Link{{Label: d.Name + " (" + sizeKB(d.SizeBytes) + ")"}}, Action: action,
				Confirm: web.T(r, "leadsPage.deleteConfirm"), CancelHref: base + "#documents", Cancel: web.T(r, "leadsPage.cancel"), Danger: true}))
			return
		}
		key, err := web.Scope(r).DeleteDocument(r.Context(), entity, d.ID)
		if err != nil {
			s.web.Fail(w, r, err)
			return
		}
		if err := s.files.Delete(r.Context(), key); err != nil {
			s.web.Logger(r).Warn("document file not removed", "key", key, "err", err)
		}
		s.web.Flash(r, "documents.deleted")
		http.Redirect(w, r, base+"#documents", http.StatusSeeOther)
	}
}

// dueLayouts are what a due date-time field posts: datetime-local (with or without
// seconds), or RFC 3339.
var dueLayouts = []string{"2006-01-02T15:04", "2006-01-02T15:04:05", time.RFC3339}

// parseDue reads a due date-time from a form. The admin shows and takes times in UTC, as
// the lead pages do.
func parseDue(v string) (time.Time, bool) {
	v = strings.TrimSpace(v)
	for _, l := range dueLayouts {
		if t, err := time.ParseInLocation(l, v, time.UTC); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// readReminderForm decodes a posted reminder form.
func readReminderForm(w http.ResponseWriter, r *http.Request) (map[string]string, store.ReminderInput, validate.Errors, error) {
	if err := web.ReadForm(w, r); err != nil {
		return nil, store.ReminderInput{}, nil, err
	}
	v := map[string]string{}
	for _, k := range []string{"title", "note", "due_at", "assignee_id", "done"} {
		v[k] = r.PostFormValue(k)
	}
	errs := validate.Errors{}
	in := store.ReminderInput{Title: v["title"], Note: v["note"], Done: v["done"] == "1"}
	// A due time that does not parse stays zero: the store refuses it with invalidDate,
	// together with whatever else it refuses.
	in.DueAt, _ = parseDue(v["due_at"])
	if a := strings.TrimSpace(v["assignee_id"]); a != "" {
		n, err := strconv.ParseInt(a, 10, 64)
		if err != nil || n <= 0 {
			errs.Add("assignee_id", validate.KeyInvalid)
		}
		in.AssigneeID = n
	}
	return v, in, errs, nil
}

func (s *server) renderReminderForm(w http.ResponseWriter, r *http.Request, status int, title, action, cancel string, v, errs map[string]string, edit bool) {
	f, err := s.reminderForm(r, action, cancel, v, errs, edit)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.web.Page(w, r, status, title, clientsview.ReminderFormPage(title, f))
}

func (s *server) handleReminderCreatePage(w http.ResponseWriter, r *http.Request) {
	lead, err := s.leadOf(r)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	base := "/leads/" + strconv.FormatInt(lead.ID, 10)
	v, in, errs, err := readReminderForm(w, r)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	if len(errs) == 0 {
		_, err = web.Scope(r).CreateReminder(r.Context(), lead.ID, in)
		var ve validate.Errors
		if errors.As(err, &ve) {
			errs = ve
		} else if err != nil {
			s.web.Fail(w, r, err)
			return
		}
	}
	if len(errs) > 0 {
		s.renderReminderForm(w, r, http.StatusUnprocessableEntity, web.T(r, "remindersPage.add"), base+"/reminders", base+"#reminders", v, errs, false)
		return
	}
	s.web.Flash(r, "reminders.created")
	http.Redirect(w, r, base+"#reminders", http.StatusSeeOther)
}

func (s *server) reminderOf(r *http.Request) (*store.ReminderView, error) {
	id, err := web.PathID(r, "id")
	if err != nil {
		return nil, err
	}
	return web.Scope(r).ReminderView(r.Context(), id)
}

func reminderValues(rm *store.ReminderView) map[string]string {
	v := map[string]string{"title": rm.Title, "note": rm.Note, "due_at": rm.DueAt.UTC().Format("2006-01-02T15:04"),
		"assignee_id": strconv.FormatInt(rm.AssigneeID, 10)}
	if rm.DoneAt != nil {
		v["done"] = "1"
	}
	return v
}

func (s *server) handleReminderEditPage(w http.ResponseWriter, r *http.Request) {
	rm, err := s.reminderOf(r)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	action := "/reminders/" + strconv.FormatInt(rm.ID, 10) + "/edit"
	back := "/leads/" + strconv.FormatInt(rm.LeadID, 10) + "#reminders"
	if r.Method == http.MethodGet {
		s.renderReminderForm(w, r, http.StatusOK, web.T(r, "remindersPage.editTitle"), action, back, reminderValues(rm), map[string]string{}, true)
		return
	}
	v, in, errs, err := readReminderForm(w, r)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	if len(errs) == 0 {
		_, err = web.Scope(r).UpdateReminder(r.Context(), rm.ID, in)
		var ve validate.Errors
		if errors.As(err, &ve) {
			errs = ve
		} else if err != nil {
			s.web.Fail(w, r, err)
			return
		}
	}
	if len(errs) > 0 {
		s.renderReminderForm(w, r, http.StatusUnprocessableEntity, web.T(r, "remindersPage.editTitle"), action, back, v, errs, true)
		return
	}
	s.web.Flash(r, "reminders.updated")
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// handleReminderDonePage marks a reminder done and goes back where it came from.
func (s *server) handleReminderDonePage(w http.ResponseWriter, r *http.Request) {
	rm, err := s.reminderOf(r)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	in := store.ReminderInput{Title: rm.Title, Note: rm.Note, DueAt: rm.DueAt, AssigneeID: rm.AssigneeID, Done: true}
	if _, err := web.Scope(r).UpdateReminder(r.Context(), rm.ID, in); err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.web.Flash(r, "reminders.updated")
	back := "/leads/" + strconv.FormatInt(rm.LeadID, 10) + "#reminders"
	if ref := r.Referer(); strings.Contains(ref, "/notifications") {
		back = "/notifications"
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

func (s *server) handleReminderDeletePage(w http.ResponseWriter, r *http.Request) {
	rm, err := s.reminderOf(r)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	back := "/leads/" + strconv.FormatInt(rm.LeadID, 10) + "#reminders"
	if r.Method == http.MethodGet {
		action := "/reminders/" + strconv.FormatInt(rm.ID, 10) + "/delete"
		s.web.Page(w, r, http.StatusOK, web.T(r, "remindersPage.deleteTitle"), components.Confirm(components.ConfirmModel{
			Title: web.T(r, "remindersPage.deleteTitle"), Message: web.T(r, "remindersPage.deleteMessage"),
			Items: []components.Link{{Label: rm.Title + " — " + rm.DueAt.UTC().Format(clientsview.DateTimeFormat)}}, Action: action,
			Confirm: web.T(r, "leadsPage.deleteConfirm"), CancelHref: back, Cancel: web.T(r, "leadsPage.cancel"), Danger: true}))
		return
	}
	if err := web.Scope(r).DeleteReminder(r.Context(), rm.ID); err != nil {
		s.web.Fail(w, r, err)
		return
	}
	s.web.Flash(r, "reminders.deleted")
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// handleNotificationsPage lists the user's due reminders, optionally those due within a
// range of days (from and to, inclusive).
func (s *server) handleNotificationsPage(w http.ResponseWriter, r *http.Request) {
	rows, err := web.Scope(r).DueReminders(r.Context(), 50)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	q := r.URL.Query()
	from, fromOK := parseDay(q.Get("from"))
	to, toOK := parseDay(q.Get("to"))
	if fromOK && toOK && to.Before(from) {
		from, to = to, from
	}
	kept := rows[:0]
	for _, rm := range rows {
		if fromOK && rm.DueAt.Before(from) || toOK && !rm.DueAt.Before(to.AddDate(0, 0, 1)) {
			continue
		}
		kept = append(kept, rm)
	}
	n := clientsview.Notifications{Rows: reminderRows(kept),
		CanUpdate: web.Caller(r).Perms.Allows(auth.FeatureLeads, auth.Update),
		From: components.Picker{ID: "f-due-from", Name: "from", NameTo: "to", Label: web.T(r, "remindersPage.dueBetween"),
			LabelTo: web.T(r, "picker.to"), Value: q.Get("from"), ValueTo: q.Get("to"), Mode: "range", TestID: "due-range"}}
	s.web.Page(w, r, http.StatusOK, web.T(r, "remindersPage.notifications"), clientsview.NotificationsPage(n))
}

func parseDay(v string) (time.Time, bool) {
	t, err := time.ParseInLocation("2006-01-02", strings.TrimSpace(v), time.UTC)
	return t, err == nil
}
