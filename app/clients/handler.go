// Package clients serves clients: the JSON API (create, view, update, delete, list, bulk
// owner change and delete, lead conversion) and the admin pages (list with search,
// filters, sorts and bulk actions; new, view, edit, delete; converting a lead).
package clients

import (
	"crm/app/documents"
	"crm/app/listpage"
	"crm/app/reminders"
	"crm/app/web"
	clientsview "crm/views/clients"
)

// Handler serves clients.
type Handler struct {
	web       *web.Kit
	documents *documents.Handler
	reminders *reminders.Handler
	list      *listpage.List[*clientsview.List]
}

// New is the clients handler; a client page shows its documents, and deleting a client
// removes its document files; it shows its reminders too (app/reminders' section).
func New(kit *web.Kit, docs *documents.Handler) *Handler {
	h := &Handler{web: kit, documents: docs, reminders: reminders.New(kit)}
	h.list = h.newList()
	return h
}
