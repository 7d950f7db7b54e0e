package roles

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/a-h/templ"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	"crm/views/components"
	rolesview "crm/views/roles"
)

// nameError is the key of a validation error of a name form, if err is one.
func nameError(err error) (string, bool) {
	var ve validate.Errors
	if !errors.As(err, &ve) {
		return "", false
	}
	if key := ve.First("name"); key != "" {
		return key, true
	}
	return validate.KeyInvalid, true
}

// RolesPage is GET /roles.
func (h *Handler) RolesPage(w http.ResponseWriter, r *http.Request) {
	h.renderRoles(w, r, http.StatusOK, "", "")
}

func (h *Handler) renderRoles(w http.ResponseWriter, r *http.Request, status int, name, key string) {
	p := web.Caller(r)
	rows, err := p.Scope().Roles(r.Context())
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	m := rolesview.List{Roles: rows, CanCreate: p.Allows(auth.FeatureRoles, auth.Create), AddName: name, AddError: key}
	h.web.Page(w, r, status, web.T(r, "roles.title"), rolesview.ListPage(m, p.Allows(auth.FeatureUsers, auth.View)))
}

// RoleCreatePage is POST /roles: a new role without rights, then its matrix.
func (h *Handler) RoleCreatePage(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	name := r.PostFormValue("name")
	role, err := web.Scope(r).CreateRole(r.Context(), name, nil)
	if key, ok := nameError(err); ok {
		h.renderRoles(w, r, http.StatusUnprocessableEntity, name, key)
		return
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "roles.created")
	http.Redirect(w, r, rolesview.Href(role.ID), http.StatusSeeOther)
}

// matrix is a role page's model.
func (h *Handler) matrix(r *http.Request, id int64) (*rolesview.Matrix, error) {
	p := web.Caller(r)
	role, err := p.Scope().Role(r.Context(), id)
	if err != nil {
		return nil, err
	}
	fixed := role.Builtin && role.Name == store.RoleAdministrator
	update := p.Allows(auth.FeatureRoles, auth.Update)
	return &rolesview.Matrix{Role: role, Fixed: fixed, ReadOnly: fixed || !update, CanUpdate: update,
		CanDelete: p.Allows(auth.FeatureRoles, auth.Delete), NameInput: role.Name}, nil
}

// RolePage is GET /roles/{id}: the role's matrix.
func (h *Handler) RolePage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	m, err := h.matrix(r, id)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Page(w, r, http.StatusOK, m.Role.Name+" · "+web.T(r, "roles.title"), rolesview.MatrixPage(*m))
}

// RoleRenamePage is POST /roles/{id}.
func (h *Handler) RoleRenamePage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	name := r.PostFormValue("name")
	_, err = web.Scope(r).RenameRole(r.Context(), id, name)
	if key, ok := nameError(err); ok {
		m, err := h.matrix(r, id)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		m.NameInput, m.NameError = name, key
		h.web.Page(w, r, http.StatusUnprocessableEntity, m.Role.Name, rolesview.MatrixPage(*m))
		return
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "roles.updated")
	http.Redirect(w, r, rolesview.Href(id), http.StatusSeeOther)
}

// RolePermissionsPage is POST /roles/{id}/permissions: saves the matrix. A refusal (a save
// made meanwhile, the Administrator, the last role that may change roles) shows the
// matrix as it now is, with the reason, under the refusal's status (409).
func (h *Handler) RolePermissionsPage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	grants, err := formGrants(r.PostForm)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	version, _ := strconv.ParseInt(r.PostFormValue("version"), 10, 64)
	_, err = web.Scope(r).SetRolePermissions(r.Context(), id, version, grants)
	var refusal store.Refusal
	if errors.As(err, &refusal) {
		m, merr := h.matrix(r, id)
		if merr != nil {
			h.web.Fail(w, r, merr)
			return
		}
		status, msgID, args, _ := web.Classify(err)
		m.Error = web.T(r, msgID, args...)
		h.web.Page(w, r, status, m.Role.Name, rolesview.MatrixPage(*m))
		return
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "roles.saved")
	http.Redirect(w, r, rolesview.Href(id), http.StatusSeeOther)
}

// deleteModel is the role deletion's confirmation: the other roles to move its users to.
func (h *Handler) deleteModel(r *http.Request, id int64) (*rolesview.DeleteRole, error) {
	scope := web.Scope(r)
	role, err := scope.Role(r.Context(), id)
	if err != nil {
		return nil, err
	}
	rows, err := scope.Roles(r.Context())
	if err != nil {
		return nil, err
	}
	m := &rolesview.DeleteRole{Role: role}
	for _, o := range rows {
		if o.ID != id {
			m.MoveTo = append(m.MoveTo, components.Option{Value: strconv.FormatInt(o.ID, 10), Label: o.Name})
		}
	}
	if role.Builtin {
		m.Refused, m.Error = true, web.T(r, "roles.builtinRefused")
	}
	return m, nil
}

// RoleDeletePage is GET /roles/{id}/delete: the confirmation step.
func (h *Handler) RoleDeletePage(w http.ResponseWriter, r *http.Request) {
	web.PageByID(h.web, w, r, h.deleteModel, roleDeletePage(r))
}

// RoleDeleteSubmit is POST /roles/{id}/delete: deletes the role, its users moving to
// move_to; a refusal shows the confirmation again with the reason.
func (h *Handler) RoleDeleteSubmit(w http.ResponseWriter, r *http.Request) {
	web.MoveAndDelete[*rolesview.DeleteRole]{
		Field:  "move_to",
		Delete: func(r *http.Request, id, moveTo int64) error { return web.Scope(r).DeleteRole(r.Context(), id, moveTo) },
		Load:   h.deleteModel,
		Refused: func(_ *http.Request, m *rolesview.DeleteRole, err error, reason string) {
			m.Error = reason
			m.Refused = m.Refused || errors.Is(err, store.ErrLastRolesAdmin)
		},
		Page:  roleDeletePage(r),
		Flash: "roles.deleted",
		Done:  "/roles",
	}.Serve(h.web, w, r)
}

func roleDeletePage(r *http.Request) func(*rolesview.DeleteRole) (string, templ.Component) {
	return func(m *rolesview.DeleteRole) (string, templ.Component) {
		return web.T(r, "roles.deleteTitle", "Name", m.Role.Name), rolesview.DeletePage(*m)
	}
}

// RoleTwoFactorPage is POST /roles/{id}/two-factor: whether the role's users must sign in
// with two factors.
func (h *Handler) RoleTwoFactorPage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if _, err := web.Scope(r).SetRoleTwoFactor(r.Context(), id, r.PostFormValue("require_two_factor") != ""); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "roles.updated")
	http.Redirect(w, r, rolesview.Href(id), http.StatusSeeOther)
}
