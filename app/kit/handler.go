// Package kit serves keep-in-touch plans (issue 12): the /v1/api/kit API, the "Keep in
// touch" section of the lead and client pages, the /keep-in-touch list, and the meeting
// dashboard (API and the home page's block). A plan belongs to a lead or a client, and the
// caller needs that record's feature: view to see, update to change (the routes admit
// either feature; the store refuses the other record kind with 403).
package kit

import "crm/app/web"

// Handler serves keep-in-touch plans.
type Handler struct {
	web  *web.Kit
	wake func() // asks the mail sender for a sweep now (nil: none)
}

// New is the keep-in-touch handler; wake asks the mail sender to deliver a message just
// queued by "send now".
func New(kit *web.Kit, wake func()) *Handler { return &Handler{web: kit, wake: wake} }

func (h *Handler) woke() {
	if h.wake != nil {
		h.wake()
	}
}
