// Package reminders serves a lead's reminders ("remainders" in the spec's paths): the
// JSON API, the reminder forms of the lead page, and /notifications, the user's due
// reminders.
package reminders

import "crm/app/web"

// Handler serves reminders.
type Handler struct {
	web *web.Kit
}

// New is the reminders handler.
func New(kit *web.Kit) *Handler { return &Handler{web: kit} }
