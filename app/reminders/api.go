package reminders

import (
	"net/http"
	"time"

	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
)

// reminderPayload is a reminder as the API takes it; due_at is an RFC 3339 time.
type reminderPayload struct {
	LeadID     int64  `json:"lead_id"`
	Title      string `json:"title"`
	Note       string `json:"note"`
	DueAt      string `json:"due_at"`
	AssigneeID int64  `json:"assignee_id"`
	Done       bool   `json:"done"`
}

func (p reminderPayload) input() (store.ReminderInput, error) {
	in := store.ReminderInput{Title: p.Title, Note: p.Note, AssigneeID: p.AssigneeID, Done: p.Done}
	if p.DueAt != "" {
		t, err := time.Parse(time.RFC3339, p.DueAt)
		if err != nil {
			return in, validate.Errors{"due_at": validate.KeyInvalidDate}
		}
		in.DueAt = t
	}
	return in, nil
}

func (h *Handler) ReminderCreate(w http.ResponseWriter, r *http.Request) {
	var p reminderPayload
	if err := web.DecodeJSON(w, r, &p); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	in, err := p.input()
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if p.LeadID == 0 {
		h.web.Fail(w, r, validate.Errors{"lead_id": validate.KeyRequired})
		return
	}
	rm, err := web.Scope(r).CreateReminder(r.Context(), p.LeadID, in)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusCreated, "reminders.created", rm)
}

func (h *Handler) ReminderUpdate(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	var p reminderPayload
	if err := web.DecodeJSON(w, r, &p); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	in, err := p.input()
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	rm, err := web.Scope(r).UpdateReminder(r.Context(), id, in)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "reminders.updated", rm)
}

func (h *Handler) ReminderView(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	rm, err := web.Scope(r).ReminderView(r.Context(), id)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", rm)
}

func (h *Handler) ReminderDelete(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if err := web.Scope(r).DeleteReminder(r.Context(), id); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "reminders.deleted", nil)
}

func (h *Handler) ReminderList(w http.ResponseWriter, r *http.Request) {
	rows, err := web.Scope(r).Reminders(r.Context(), web.IntParam(r, "lead_id"))
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", web.List[store.ReminderView]{Result: rows, Total: int64(len(rows)), Page: 1, Limit: len(rows)})
}

// handleNotifications lists the caller's due reminders (the header's notifications).
func (h *Handler) Notifications(w http.ResponseWriter, r *http.Request) {
	rows, err := web.Scope(r).DueReminders(r.Context(), 50)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", web.List[store.ReminderView]{Result: rows, Total: int64(len(rows)), Page: 1, Limit: 50})
}
