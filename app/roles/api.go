package roles

import (
	"context"
	"net/http"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/web"
)

// rolePayload creates or renames a role; permissions are optional on create.
type rolePayload struct {
	Name        string                      `json:"name"`
	Permissions map[auth.Feature]auth.Grant `json:"permissions,omitempty"`
}

// permissionsPayload replaces a role's matrix, read at version.
type permissionsPayload struct {
	Version     int64                       `json:"version"`
	Permissions map[auth.Feature]auth.Grant `json:"permissions"`
}

// RoleList is GET /v1/api/list-role-master: the roles with their user counts.
func (h *Handler) RoleList(w http.ResponseWriter, r *http.Request) {
	rows, err := web.Scope(r).Roles(r.Context())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", rows)
}

// RoleView is GET /v1/api/view-role-master/{id} (and view-role-permission/{id}): a role
// with its matrix.
func (h *Handler) RoleView(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusOK, "ok", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		return s.Role(ctx, id)
	})
}

// RoleCreate is POST /v1/api/create-role-master.
func (h *Handler) RoleCreate(w http.ResponseWriter, r *http.Request) {
	web.ServeJSON(h.web, w, r, http.StatusCreated, "roles.created", func(ctx context.Context, s store.Scope, p rolePayload) (any, error) {
		if err := checkFeatures(p.Permissions); err != nil {
			return nil, err
		}
		role, err := s.CreateRole(ctx, p.Name, p.Permissions)
		if err != nil {
			return nil, err
		}
		return s.Role(ctx, role.ID)
	})
}

// RoleUpdate is PUT /v1/api/update-role-master/{id}: renames a role.
func (h *Handler) RoleUpdate(w http.ResponseWriter, r *http.Request) {
	web.ServeJSONByID(h.web, w, r, http.StatusOK, "roles.updated", func(ctx context.Context, s store.Scope, id int64, p roleUpdatePayload) (any, error) {
		// The name and the two-factor requirement; the matrix is update-role-permission's.
		if p.RequireTwoFactor != nil {
			if _, err := s.SetRoleTwoFactor(ctx, id, *p.RequireTwoFactor); err != nil {
				return nil, err
			}
			if p.Name == "" {
				return s.Role(ctx, id)
			}
			if old, err := s.Role(ctx, id); err != nil || old.Name == p.Name {
				return old, err
			}
		}
		return s.RenameRole(ctx, id, p.Name)
	})
}

// RoleDelete is DELETE /v1/api/delete-role-master/{id}?move_to=N: a role in use needs the
// role its users move to.
func (h *Handler) RoleDelete(w http.ResponseWriter, r *http.Request) {
	moveTo := web.IntParam(r, "move_to")
	h.web.ServeByID(w, r, http.StatusOK, "roles.deleted", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		return nil, s.DeleteRole(ctx, id, moveTo)
	})
}

// PermissionList is GET /v1/api/list-role-permission: every role's matrix, with the
// features, actions and scopes a matrix has.
func (h *Handler) PermissionList(w http.ResponseWriter, r *http.Request) {
	scope := web.Scope(r)
	rows, err := scope.Roles(r.Context())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	roles := make([]*store.RoleDetail, 0, len(rows))
	for _, row := range rows {
		d, err := scope.Role(r.Context(), row.ID)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		roles = append(roles, d)
	}
	h.web.OK(w, r, http.StatusOK, "ok", map[string]any{"features": auth.Features, "actions": auth.Actions,
		"scopes": auth.Scopes, "roles": roles})
}

// PermissionUpdate is PUT /v1/api/update-role-permission/{id}: replaces a role's matrix if
// it is still at the version sent (else 409, and nothing changes).
func (h *Handler) PermissionUpdate(w http.ResponseWriter, r *http.Request) {
	web.ServeJSONByID(h.web, w, r, http.StatusOK, "roles.saved", func(ctx context.Context, s store.Scope, id int64, p permissionsPayload) (any, error) {
		if err := checkFeatures(p.Permissions); err != nil {
			return nil, err
		}
		return s.SetRolePermissions(ctx, id, p.Version, p.Permissions)
	})
}

// roleUpdatePayload renames a role and sets whether it requires two-factor sign-in
// (either may be left out when the other is sent).
type roleUpdatePayload struct {
	Name             string `json:"name"`
	RequireTwoFactor *bool  `json:"require_two_factor"`
}

// teamPayload renames a role, or creates or renames a team.
type teamPayload struct {
	Name string `json:"name"`
}

// memberPayload names a user to add to or remove from a team.
type memberPayload struct {
	UserID int64 `json:"user_id"`
}

// TeamList is GET /v1/api/list-team-master.
func (h *Handler) TeamList(w http.ResponseWriter, r *http.Request) {
	rows, err := web.Scope(r).Teams(r.Context())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", rows)
}

// TeamView is GET /v1/api/view-team-master/{id}: a team with its members.
func (h *Handler) TeamView(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusOK, "ok", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		return s.TeamView(ctx, id)
	})
}

// TeamCreate is POST /v1/api/create-team-master.
func (h *Handler) TeamCreate(w http.ResponseWriter, r *http.Request) {
	web.ServeJSON(h.web, w, r, http.StatusCreated, "teams.created", func(ctx context.Context, s store.Scope, p teamPayload) (any, error) {
		return s.CreateTeam(ctx, p.Name)
	})
}

// TeamUpdate is PUT /v1/api/update-team-master/{id}: renames a team.
func (h *Handler) TeamUpdate(w http.ResponseWriter, r *http.Request) {
	web.ServeJSONByID(h.web, w, r, http.StatusOK, "teams.updated", func(ctx context.Context, s store.Scope, id int64, p teamPayload) (any, error) {
		return s.RenameTeam(ctx, id, p.Name)
	})
}

// TeamDelete is DELETE /v1/api/delete-team-master/{id}.
func (h *Handler) TeamDelete(w http.ResponseWriter, r *http.Request) {
	h.web.ServeByID(w, r, http.StatusOK, "teams.deleted", func(ctx context.Context, s store.Scope, id int64) (any, error) {
		return nil, s.DeleteTeam(ctx, id)
	})
}

// TeamAddMember is POST /v1/api/add-team-member/{id}.
func (h *Handler) TeamAddMember(w http.ResponseWriter, r *http.Request) {
	web.ServeJSONByID(h.web, w, r, http.StatusOK, "teams.memberAdded", func(ctx context.Context, s store.Scope, id int64, p memberPayload) (any, error) {
		return s.AddTeamMember(ctx, id, p.UserID)
	})
}

// TeamRemoveMember is POST /v1/api/remove-team-member/{id}.
func (h *Handler) TeamRemoveMember(w http.ResponseWriter, r *http.Request) {
	web.ServeJSONByID(h.web, w, r, http.StatusOK, "teams.memberRemoved", func(ctx context.Context, s store.Scope, id int64, p memberPayload) (any, error) {
		return s.RemoveTeamMember(ctx, id, p.UserID)
	})
}
