// Package leads serves leads: the JSON API (create, view, update, stage/status/owner
// changes, bulk changes, delete, journey, duplicates, dropdown, list), the admin pages
// (list with search, filters, sorts and bulk actions; new, view, edit, delete; saved
// views) and the pipeline board.
package leads

import (
	"crm/app/documents"
	"crm/app/listpage"
	"crm/app/reminders"
	"crm/app/web"
	leadsview "crm/views/leads"
)

// Handler serves leads.
type Handler struct {
	web       *web.Kit
	documents *documents.Handler
	reminders *reminders.Handler
	list      *listpage.List[*leadsview.List]
}

// New is the leads handler; a lead page shows its documents and reminders, and deleting a
// lead removes its document files.
func New(kit *web.Kit, docs *documents.Handler, rem *reminders.Handler) *Handler {
	h := &Handler{web: kit, documents: docs, reminders: rem}
	h.list = h.newList()
	return h
}
