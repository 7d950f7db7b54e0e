// Package settings serves the Settings area: the masters (lead stages, statuses, sources
// and types, personal titles, business types) as admin pages and as the JSON API with
// their dropdowns, the stage order and the stage settings.
package settings

import "crm/app/web"

// Handler serves the Settings area.
type Handler struct {
	web *web.Kit
}

// New is the settings handler.
func New(kit *web.Kit) *Handler { return &Handler{web: kit} }
