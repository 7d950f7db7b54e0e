// Package roles serves team administration: roles with their permission matrix (features ×
// actions, a record scope a cell) and teams with their members, as admin pages and as the
// JSON API (list/view/create/update/delete-role-master, list/view/update-role-permission,
// and the team calls). Roles need the roles feature; teams the users feature.
package roles

import "crm/app/web"

// Handler serves roles and teams.
type Handler struct {
	web *web.Kit
}

// New is the roles and teams handler.
func New(kit *web.Kit) *Handler { return &Handler{web: kit} }
