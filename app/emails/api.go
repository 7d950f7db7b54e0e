package emails

import (
	"context"
	"net/http"
	"time"

	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
)

// ViewSettings is GET /v1/api/view-mail-setting.
func (h *Handler) ViewSettings(w http.ResponseWriter, r *http.Request) {
	out, err := h.settings(r.Context(), web.Scope(r))
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", out)
}

// UpdateSettings is PUT /v1/api/update-mail-setting (password write-only: blank keeps it).
func (h *Handler) UpdateSettings(w http.ResponseWriter, r *http.Request) {
	web.ServeJSON(h.web, w, r, http.StatusOK, "mail.saved", func(ctx context.Context, s store.Scope, in SettingsInput) (any, error) {
		if err := h.save(ctx, s, in); err != nil {
			return nil, err
		}
		return h.settings(ctx, s)
	})
}

type testInput struct {
	To string `json:"to"`
}

// SendTest is POST /v1/api/send-test-email: a test message to "to" (default: the caller),
// queued; its state is in the answer and the history.
func (h *Handler) SendTest(w http.ResponseWriter, r *http.Request) {
	web.ServeJSON(h.web, w, r, http.StatusCreated, "mail.testQueued", func(ctx context.Context, s store.Scope, in testInput) (any, error) {
		id, err := h.sendTest(ctx, s, in.To)
		if err != nil {
			return nil, err
		}
		e, err := s.Email(ctx, id)
		if err != nil {
			return nil, err
		}
		return toJSON(e, false), nil
	})
}

// emailJSON is a message of the history; the bodies only in the detail.
type emailJSON struct {
	ID            int64      `json:"id"`
	Kind          string     `json:"kind"`
	Purpose       string     `json:"purpose"`
	ToAddress     string     `json:"to_address"`
	ToName        string     `json:"to_name"`
	FromAddress   string     `json:"from_address"`
	FromName      string     `json:"from_name"`
	Subject       string     `json:"subject"`
	Status        string     `json:"status"`
	Attempts      int        `json:"attempts"`
	LastError     string     `json:"last_error"`
	NextAttemptAt *time.Time `json:"next_attempt_at"`
	SentAt        *time.Time `json:"sent_at"`
	LeadID        *int64     `json:"lead_id"`
	ClientID      *int64     `json:"client_id"`
	CreatedBy     *int64     `json:"created_by"`
	MessageID     string     `json:"message_id"`
	CreatedAt     time.Time  `json:"created_at"`
	BodyText      *string    `json:"body_text,omitempty"`
	BodyHTML      *string    `json:"body_html,omitempty"`
}

func toJSON(e *store.Email, bodies bool) emailJSON {
	out := emailJSON{ID: e.ID, Kind: e.Kind, Purpose: e.Purpose, ToAddress: e.ToAddress, ToName: e.ToName,
		FromAddress: e.FromAddress, FromName: e.FromName, Subject: e.Subject, Status: e.Status, Attempts: e.Attempts,
		LastError: e.LastError, SentAt: e.SentAt, LeadID: e.LeadID, ClientID: e.ClientID, CreatedBy: e.CreatedBy,
		MessageID: e.MessageID, CreatedAt: e.CreatedAt}
	if e.Status == store.EmailQueued {
		next := e.NextAttemptAt
		out.NextAttemptAt = &next
	}
	if bodies {
		out.BodyText, out.BodyHTML = &e.BodyText, &e.BodyHTML
	}
	return out
}

// historyData is a page of the history: keyset cursors (null at either end).
type historyData struct {
	web.List[emailJSON]
	TotalCapped bool   `json:"total_capped"`
	Next        *int64 `json:"next"`
	Prev        *int64 `json:"prev"`
}

// History is GET /v1/api/list-email-history: every message of the tenant, newest first,
// filtered by status, kind, lead_id, client_id and search, paged with after/before.
func (h *Handler) History(w http.ResponseWriter, r *http.Request) {
	q, _, errs := Query(r.URL.Query())
	if len(errs) > 0 {
		h.web.Fail(w, r, validate.Errors(errs))
		return
	}
	page, err := web.Scope(r).ListEmails(r.Context(), q)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	out := historyData{List: web.List[emailJSON]{Result: make([]emailJSON, 0, len(page.Rows)), Total: page.Total, Page: 1, Limit: q.Limit},
		TotalCapped: page.Capped}
	if out.Limit == 0 {
		out.Limit = 20
	}
	if page.Next != 0 {
		out.Next = &page.Next
	}
	if page.Prev != 0 {
		out.Prev = &page.Prev
	}
	for i := range page.Rows {
		out.Result = append(out.Result, toJSON(&page.Rows[i], false))
	}
	h.web.OK(w, r, http.StatusOK, "ok", out)
}

// View is GET /v1/api/view-email-history/{id}: one message with its bodies.
func (h *Handler) View(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	e, err := web.Scope(r).Email(r.Context(), id)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", toJSON(e, true))
}
