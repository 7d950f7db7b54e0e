// Package dashboard serves the home page (the tenant's key counts, the user's due
// reminders and the dashboard of a period) and the dashboard API of leads and clients.
package dashboard

import "crm/app/web"

// Handler serves the home page and the dashboards.
type Handler struct {
	web *web.Kit
}

// New is the dashboard handler.
func New(kit *web.Kit) *Handler { return &Handler{web: kit} }
