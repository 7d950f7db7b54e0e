// Package exports serves the CSV export of the lead list and the client list with their
// current search, filters and sort: /leads/export.csv and /v1/api/lead/export-customer-lead,
// /clients/export.csv and /v1/api/client/export-customer-client.
package exports

import "crm/app/web"

// Handler serves exports.
type Handler struct {
	web *web.Kit
}

// New is the exports handler.
func New(kit *web.Kit) *Handler { return &Handler{web: kit} }
