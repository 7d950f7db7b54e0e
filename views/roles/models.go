// Package roles holds the team administration pages: roles with their permission matrix,
// and teams with their members.
package roles

import (
	"strconv"

	"crm/app/auth"
	"crm/app/store"
	"crm/views/components"
)

// Href is a role's page.
func Href(id int64) string { return "/roles/" + strconv.FormatInt(id, 10) }

// TeamHref is a team's page.
func TeamHref(id int64) string { return "/teams/" + strconv.FormatInt(id, 10) }

// List is the roles page: the roles and the form adding one.
type List struct {
	Roles     []store.RoleSummary
	CanCreate bool
	AddName   string
	AddError  string // a validation key for the new role's name
}

// Matrix is one role's page: its name and its permission matrix.
type Matrix struct {
	Role      *store.RoleDetail
	ReadOnly  bool // the built-in Administrator, or a caller without roles update
	Fixed     bool // the built-in Administrator: its rights never change
	CanUpdate bool
	CanDelete bool
	NameInput string
	NameError string
	Error     string // a refusal of the last save (a concurrent change), already translated
}

// Cell is one select of the matrix.
type Cell struct {
	Feature auth.Feature
	Action  auth.Action
	Scope   auth.RecordScope
}

// Name is the form field of a cell.
func (c Cell) Name() string { return "p." + string(c.Feature) + "." + string(c.Action) }

// Cells is the row of a feature.
func (m Matrix) Cells(f auth.Feature) []Cell {
	g := m.Role.Permissions[f]
	out := make([]Cell, len(auth.Actions))
	for i, a := range auth.Actions {
		out[i] = Cell{Feature: f, Action: a, Scope: g.For(a)}
	}
	return out
}

// DeleteRole is the role deletion's confirmation step: a role in use asks which role its
// users move to.
type DeleteRole struct {
	Role    *store.RoleDetail
	MoveTo  []components.Option
	Error   string
	Refused bool // a built-in role or the last role that may change roles: no button
}

// Teams is the teams page.
type Teams struct {
	Teams     []store.Team
	CanCreate bool
	AddName   string
	AddError  string
}

// Team is a team's page: rename, members, add a member.
type Team struct {
	Team      *store.TeamDetail
	Others    []components.Option // users not in the team, to add
	CanUpdate bool
	CanDelete bool
	NameInput string
	NameError string
}
