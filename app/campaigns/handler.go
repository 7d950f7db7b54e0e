// Package campaigns serves email templates and bulk email to leads (issue 12): the
// template master (/settings/templates, list/view/create/update/delete/dropdown-template-master,
// the live preview against a lead or a client) and the bulk send of a template to a
// selection of the lead list or every lead its filters match (/leads/bulk/email,
// /emails/sends/{id}, send-bulk-email, view-bulk-email). Rendering is the store's
// (store.RenderTemplate); delivery is app/mail's.
package campaigns

import (
	"context"
	"log/slog"
	"sync"

	"crm/app/web"
)

// Handler serves templates and bulk sends.
type Handler struct {
	web  *web.Kit
	wake func() // asks the mail sender for a sweep now
	runs sync.WaitGroup
}

// New is the handler; wake is the mail sender's (nil: none).
func New(kit *web.Kit, wake func()) *Handler {
	if wake == nil {
		wake = func() {}
	}
	return &Handler{web: kit, wake: wake}
}

// start runs a bulk send in the background, batch by batch, waking the sender after each
// batch so the first messages leave while the rest are enqueued. It uses the system's view
// of the tenant: the recipients were fixed, within the caller's reach, when it was created.
func (h *Handler) start(tenantID, userID, sendID int64) {
	h.runs.Add(1)
	go func() {
		defer h.runs.Done()
		ctx := context.Background()
		// Each batch queued wakes the sender; a failure is recorded on the send.
		if err := h.web.DB.System(tenantID, userID).RunEmailSend(ctx, sendID, h.wake); err != nil {
			slog.Warn("bulk email send failed", "send", sendID, "err", err)
		}
	}()
}

// Wait waits for the sends under way (tests, shutdown).
func (h *Handler) Wait() { h.runs.Wait() }
