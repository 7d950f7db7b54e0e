package reminders

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	clientsview "crm/views/clients"
	"crm/views/components"
)

// Rows are reminders as the lists show them.
func Rows(rows []store.ReminderView) []clientsview.Reminder {
	out := make([]clientsview.Reminder, 0, len(rows))
	for _, rm := range rows {
		v := clientsview.Reminder{ID: rm.ID, LeadName: rm.LeadName, ClientName: rm.ClientName, Title: rm.Title, Note: rm.Note,
			Due: rm.DueAt.UTC(), Assignee: rm.AssigneeName, Done: rm.DoneAt != nil, Overdue: rm.Overdue}
		if rm.LeadID != nil {
			v.LeadID = *rm.LeadID
		}
		if rm.ClientID != nil {
			v.ClientID = *rm.ClientID
		}
		out = append(out, v)
	}
	return out
}

// Section is the reminders section of a reachable lead's or client's page (base is the
// record's page): its reminders, and the add form for a role that may create records of
// its kind.
func (h *Handler) Section(r *http.Request, entity string, id int64, base string) (clientsview.Reminders, error) {
	p := web.Caller(r)
	e := store.EntityNamed(entity)
	x := clientsview.Reminders{CanRemind: p.Perms.Allows(e.Feature, auth.Create),
		CanUpdate: p.Perms.Allows(e.Feature, auth.Update), CanDelete: p.Perms.Allows(e.Feature, auth.Delete)}
	rows, err := p.Scope().RemindersOf(r.Context(), entity, id)
	if err != nil {
		return x, err
	}
	x.Rows = Rows(rows)
	if x.CanRemind {
		if x.NewForm, err = h.Form(r, base+"/reminders", "", map[string]string{}, map[string]string{}, false); err != nil {
			return x, err
		}
	}
	return x, nil
}

// back is the reminders section of the record a reminder belongs to.
func backOf(rm *store.ReminderView) string {
	if rm.ClientID != nil {
		return clientsview.ClientHref(*rm.ClientID) + "#reminders"
	}
	return "/leads/" + strconv.FormatInt(*rm.LeadID, 10) + "#reminders"
}

// Form builds the add or edit form of a reminder.
func (h *Handler) Form(r *http.Request, action, cancel string, values, errs map[string]string, edit bool) (clientsview.ReminderForm, error) {
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
		Value: values["due_at"], WithTime: true, Required: true, Error: errs["due_at"], TestID: "due-picker", Load: components.PickerOnIntent}
	return f, nil
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

func (h *Handler) renderReminderForm(w http.ResponseWriter, r *http.Request, status int, title, action, cancel string, v, errs map[string]string, edit bool) {
	f, err := h.Form(r, action, cancel, v, errs, edit)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Page(w, r, status, title, clientsview.ReminderFormPage(title, f))
}

func (h *Handler) ReminderCreatePage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	lead, err := web.Scope(r).LeadView(r.Context(), id)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	base := "/leads/" + strconv.FormatInt(lead.ID, 10)
	h.saveReminderForm(w, r, reminderForm{title: web.T(r, "remindersPage.add"), action: base + "/reminders",
		back: base + "#reminders", doneID: "reminders.created"}, func(ctx context.Context, s store.Scope, in store.ReminderInput) error {
		_, err := s.CreateReminder(ctx, lead.ID, in)
		return err
	})
}

// ClientReminderCreatePage adds a reminder to a client.
func (h *Handler) ClientReminderCreatePage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	c, err := web.Scope(r).ClientView(r.Context(), id)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	base := clientsview.ClientHref(c.ID)
	h.saveReminderForm(w, r, reminderForm{title: web.T(r, "remindersPage.add"), action: base + "/reminders",
		back: base + "#reminders", doneID: "reminders.created"}, func(ctx context.Context, s store.Scope, in store.ReminderInput) error {
		_, err := s.CreateReminderOn(ctx, store.EntityClient, c.ID, in)
		return err
	})
}

// reminderForm is where a posted reminder form goes: its title, action and way back, and
// the message once saved.
type reminderForm struct {
	title, action, back, doneID string
	edit                        bool
}

// saveReminderForm reads a posted reminder form and saves it: back with f.doneID, or the
// form again (422) with the errors next to their fields.
func (h *Handler) saveReminderForm(w http.ResponseWriter, r *http.Request, f reminderForm,
	save func(ctx context.Context, s store.Scope, in store.ReminderInput) error) {
	v, in, errs, err := readReminderForm(w, r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if len(errs) == 0 {
		err = save(r.Context(), web.Scope(r), in)
		var ve validate.Errors
		if errors.As(err, &ve) {
			errs = ve
		} else if err != nil {
			h.web.Fail(w, r, err)
			return
		}
	}
	if len(errs) > 0 {
		h.renderReminderForm(w, r, http.StatusUnprocessableEntity, f.title, f.action, f.back, v, errs, f.edit)
		return
	}
	h.web.Flash(r, f.doneID)
	http.Redirect(w, r, f.back, http.StatusSeeOther)
}

// reminderOf loads the path's reminder for an action: the routes admit a role with the
// action on leads or on clients, and the reminder's record says which one counts (403).
func (h *Handler) reminderOf(r *http.Request, a auth.Action) (*store.ReminderView, error) {
	id, err := web.PathID(r, "id")
	if err != nil {
		return nil, err
	}
	rm, err := web.Scope(r).ReminderView(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if e, _ := rm.Entity(); !web.Caller(r).Perms.Allows(e.Feature, a) {
		return nil, web.ErrForbidden
	}
	return rm, nil
}

func reminderValues(rm *store.ReminderView) map[string]string {
	v := map[string]string{"title": rm.Title, "note": rm.Note, "due_at": rm.DueAt.UTC().Format("2006-01-02T15:04"),
		"assignee_id": strconv.FormatInt(rm.AssigneeID, 10)}
	if rm.DoneAt != nil {
		v["done"] = "1"
	}
	return v
}

func (h *Handler) ReminderEditPage(w http.ResponseWriter, r *http.Request) {
	rm, err := h.reminderOf(r, auth.Update)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	action := "/reminders/" + strconv.FormatInt(rm.ID, 10) + "/edit"
	back := backOf(rm)
	if r.Method == http.MethodGet {
		h.renderReminderForm(w, r, http.StatusOK, web.T(r, "remindersPage.editTitle"), action, back, reminderValues(rm), map[string]string{}, true)
		return
	}
	h.saveReminderForm(w, r, reminderForm{title: web.T(r, "remindersPage.editTitle"), action: action, back: back,
		doneID: "reminders.updated", edit: true}, func(ctx context.Context, s store.Scope, in store.ReminderInput) error {
		_, err := s.UpdateReminder(ctx, rm.ID, in)
		return err
	})
}

// ReminderDonePage marks a reminder done and goes back where it came from.
func (h *Handler) ReminderDonePage(w http.ResponseWriter, r *http.Request) {
	rm, err := h.reminderOf(r, auth.Update)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	in := store.ReminderInput{Title: rm.Title, Note: rm.Note, DueAt: rm.DueAt, AssigneeID: rm.AssigneeID, Done: true}
	if _, err := web.Scope(r).UpdateReminder(r.Context(), rm.ID, in); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "reminders.updated")
	back := backOf(rm)
	if ref := r.Referer(); strings.Contains(ref, "/notifications") {
		back = "/notifications"
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

func (h *Handler) ReminderDeletePage(w http.ResponseWriter, r *http.Request) {
	rm, err := h.reminderOf(r, auth.Delete)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	back := backOf(rm)
	if r.Method == http.MethodGet {
		action := "/reminders/" + strconv.FormatInt(rm.ID, 10) + "/delete"
		h.web.Page(w, r, http.StatusOK, web.T(r, "remindersPage.deleteTitle"), components.Confirm(components.ConfirmModel{
			Title: web.T(r, "remindersPage.deleteTitle"), Message: web.T(r, "remindersPage.deleteMessage"),
			Items: []components.Link{{Label: rm.Title + " — " + rm.DueAt.UTC().Format(clientsview.DateTimeFormat)}}, Action: action,
			Confirm: web.T(r, "leadsPage.deleteConfirm"), CancelHref: back, Cancel: web.T(r, "leadsPage.cancel"), Danger: true}))
		return
	}
	if err := web.Scope(r).DeleteReminder(r.Context(), rm.ID); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "reminders.deleted")
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// NotificationsPage lists the user's due reminders, optionally those due within a
// range of days (from and to, inclusive).
func (h *Handler) NotificationsPage(w http.ResponseWriter, r *http.Request) {
	rows, err := web.Scope(r).DueReminders(r.Context(), 50)
	if err != nil {
		h.web.Fail(w, r, err)
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
	perms := web.Caller(r).Perms
	list := Rows(kept)
	for i := range list {
		f := auth.FeatureLeads
		if list[i].ClientID != 0 {
			f = auth.FeatureClients
		}
		list[i].ReadOnly = !perms.Allows(f, auth.Update)
	}
	n := clientsview.Notifications{Rows: list, CanUpdate: true,
		From: components.Picker{ID: "f-due-from", Name: "from", NameTo: "to", Label: web.T(r, "remindersPage.dueBetween"),
			LabelTo: web.T(r, "picker.to"), Value: q.Get("from"), ValueTo: q.Get("to"), Mode: "range", TestID: "due-range"}}
	h.web.Page(w, r, http.StatusOK, web.T(r, "remindersPage.notifications"), clientsview.NotificationsPage(n))
}

func parseDay(v string) (time.Time, bool) {
	t, err := time.ParseInLocation("2006-01-02", strings.TrimSpace(v), time.UTC)
	return t, err == nil
}
