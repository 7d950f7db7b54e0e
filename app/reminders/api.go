package reminders

import (
	"context"
	"net/http"
	"time"

	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
)

// reminderPayload is a reminder as the API takes it; due_at is an RFC 3339 time.
type reminderPayload struct {
	LeadID     int64  `json:"lead_id"`
	ClientID   int64  `json:"client_id"`
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
	web.ServeJSON(h.web, w, r, http.StatusCreated, "reminders.created", func(ctx context.Context, s store.Scope, p reminderPayload) (any, error) {
		in, err := p.input()
		if err != nil {
			return nil, err
		}
		// Exactly one of lead_id and client_id: the record the reminder belongs to.
		switch {
		case p.LeadID != 0 && p.ClientID != 0:
			return nil, validate.Errors{"client_id": validate.KeyInvalid}
		case p.ClientID != 0:
			return s.CreateReminderOn(ctx, store.EntityClient, p.ClientID, in)
		case p.LeadID == 0:
			return nil, validate.Errors{"lead_id": validate.KeyRequired}
		}
		return s.CreateReminder(ctx, p.LeadID, in)
	})
}

func (h *Handler) ReminderUpdate(w http.ResponseWriter, r *http.Request) {
	web.ServeJSONByID(h.web, w, r, http.StatusOK, "reminders.updated", func(ctx context.Context, s store.Scope, id int64, p reminderPayload) (any, error) {
		in, err := p.input()
		if err != nil {
			return nil, err
		}
		return s.UpdateReminder(ctx, id, in)
	})
}

func (h *Handler) ReminderView(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusOK, "ok", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		return s.ReminderView(ctx, id)
	})
}

func (h *Handler) ReminderDelete(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusOK, "reminders.deleted", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		if err := s.DeleteReminder(ctx, id); err != nil {
			return nil, err
		}
		return nil, nil
	})
}

func (h *Handler) ReminderList(w http.ResponseWriter, r *http.Request) {
	entity, id := store.EntityLead, web.IntParam(r, "lead_id")
	if c := web.IntParam(r, "client_id"); c != 0 {
		entity, id = store.EntityClient, c
	}
	rows, err := web.Scope(r).RemindersOf(r.Context(), entity, id)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", web.List[store.ReminderView]{Result: rows, Total: int64(len(rows)), Page: 1, Limit: len(rows)})
}

// Notifications lists the caller's due reminders (the header's notifications).
func (h *Handler) Notifications(w http.ResponseWriter, r *http.Request) {
	rows, err := web.Scope(r).DueReminders(r.Context(), 50)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", web.List[store.ReminderView]{Result: rows, Total: int64(len(rows)), Page: 1, Limit: 50})
}
