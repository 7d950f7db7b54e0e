package store

import (
	"context"
	"strings"

	"crm/app/auth"
	"crm/app/validate"
)

// Names of the roles every tenant starts with.
const (
	RoleAdministrator = "Administrator"
	RoleSales         = "Sales"
)

// builtinGrants are the starting permissions of the built-in roles. Administrator has every
// action on every feature over all records; Sales views, creates, updates, exports and
// imports its own leads and sees its own dashboard (what it could do before export and
// import were actions of their own: exports rode on view, imports on create).
func builtinGrants(role string) map[auth.Feature]auth.Grant {
	if role == RoleAdministrator {
		g := map[auth.Feature]auth.Grant{}
		for _, f := range auth.Features {
			g[f] = auth.Full
		}
		return g
	}
	return map[auth.Feature]auth.Grant{
		auth.FeatureLeads:     auth.Uniform(auth.ScopeOwn, auth.View, auth.Create, auth.Update, auth.Export, auth.Import),
		auth.FeatureDashboard: auth.Uniform(auth.ScopeOwn, auth.View, auth.Export),
	}
}

// Refusals of the role rules (409 with their message).
var (
	// ErrBuiltinRole refuses a change of the Administrator role's rights, or deleting a
	// built-in role: the tenant cannot lock itself out.
	ErrBuiltinRole error = &ruleError{text: "built-in role", msgID: "roles.builtinRefused"}
	// ErrLastRolesAdmin refuses taking the right to change roles from the last role that has it.
	ErrLastRolesAdmin error = &ruleError{text: "last role that may change roles", msgID: "roles.lastAdminRefused"}
	// ErrRoleVersion refuses a save of a role's rights read before another save.
	ErrRoleVersion error = &ruleError{text: "role changed meanwhile", msgID: "roles.conflict"}
	// ErrRoleInUse refuses deleting a role that users have, without a role to move them to.
	ErrRoleInUse error = &ruleError{text: "role in use", msgID: "roles.inUse"}
)

// EnsureBuiltinRoles creates the Administrator and Sales roles if missing and gives
// Administrator every feature, including features added since the tenant was created.
func (s Scope) EnsureBuiltinRoles(ctx context.Context) error {
	return s.Tx(ctx, func(tx Scope) error {
		for _, name := range []string{RoleAdministrator, RoleSales} {
			role := &Role{}
			err := tx.Select(role).Where("name = ?", name).Scan(ctx)
			switch notFound(err) {
			case nil:
			case ErrNotFound:
				role = &Role{Name: name, Builtin: true, Version: 1}
				if _, err := tx.Insert(role).Returning("id").Exec(ctx); err != nil {
					return err
				}
			default:
				return err
			}
			for f, g := range builtinGrants(name) {
				rp := newRolePermission(role.ID, f, g)
				q := tx.Insert(rp).On("CONFLICT (tenant_id, role_id, feature) DO NOTHING")
				if name == RoleAdministrator {
					q = tx.Insert(rp).On("CONFLICT (tenant_id, role_id, feature) DO UPDATE").
						Set("view_scope = EXCLUDED.view_scope, create_scope = EXCLUDED.create_scope").
						Set("update_scope = EXCLUDED.update_scope, delete_scope = EXCLUDED.delete_scope").
						Set("export_scope = EXCLUDED.export_scope, import_scope = EXCLUDED.import_scope").
						Set("can_view = EXCLUDED.can_view, can_create = EXCLUDED.can_create").
						Set("can_update = EXCLUDED.can_update, can_delete = EXCLUDED.can_delete, scope = EXCLUDED.scope")
				}
				if _, err := q.Exec(ctx); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// RoleByName finds a role of the tenant by its name.
func (s Scope) RoleByName(ctx context.Context, name string) (*Role, error) {
	r := &Role{}
	err := s.Select(r).Where("name = ?", name).Scan(ctx)
	return r, notFound(err)
}

// Permissions loads a role's grants.
func (s Scope) Permissions(ctx context.Context, roleID int64) (auth.Permissions, error) {
	var rows []RolePermission
	if err := s.Select(&rows).Where("role_id = ?", roleID).Scan(ctx); err != nil {
		return nil, err
	}
	p := auth.Permissions{}
	for _, r := range rows {
		p[auth.Feature(r.Feature)] = r.Grant()
	}
	return p, nil
}

// checkRoleName validates a role's name.
func checkRoleName(name string) validate.Errors {
	errs := validate.Errors{}
	errs.Check(validate.Required(name), "name", validate.KeyRequired)
	errs.Check(validate.NoHTML(name), "name", validate.KeyHTMLNotAllowed)
	errs.Check(validate.MaxLen(name, 100), "name", validate.KeyMaxLength)
	return errs
}

// checkGrants refuses unknown features and scopes.
func checkGrants(grants map[auth.Feature]auth.Grant, errs validate.Errors) {
	for f, g := range grants {
		errs.Check(auth.KnownFeature(f), "permissions", validate.KeyInvalid)
		errs.Check(g.Valid(), "permissions", validate.KeyInvalid)
	}
}

// CreateRole adds a role with the given grants; a name already used is a validation error.
func (s Scope) CreateRole(ctx context.Context, name string, grants map[auth.Feature]auth.Grant) (*Role, error) {
	name = strings.TrimSpace(name)
	errs := checkRoleName(name)
	checkGrants(grants, errs)
	if len(errs) > 0 {
		return nil, errs
	}
	role := &Role{Name: name, Version: 1}
	err := s.Tx(ctx, func(tx Scope) error {
		if _, err := tx.RoleByName(ctx, name); err == nil {
			return validate.Errors{"name": validate.KeyTaken}
		}
		if _, err := tx.Insert(role).Returning("id, created_at").Exec(ctx); err != nil {
			return err
		}
		if err := tx.writeGrants(ctx, role.ID, grants); err != nil {
			return err
		}
		return tx.roleChanged(ctx, role.ID, name, "create", nil, map[string]any{"name": name, "grants": grants})
	})
	if err != nil {
		return nil, err
	}
	return role, nil
}

// writeGrants replaces a role's grant rows.
func (s Scope) writeGrants(ctx context.Context, roleID int64, grants map[auth.Feature]auth.Grant) error {
	if _, err := s.Delete((*RolePermission)(nil)).Where("role_id = ?", roleID).Exec(ctx); err != nil {
		return err
	}
	for f, g := range grants {
		if !g.Any() {
			continue
		}
		if _, err := s.Insert(newRolePermission(roleID, f, g)).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// RoleSummary is a role as the list shows it.
type RoleSummary struct {
	Role  `bun:",extend"`
	Users int64 `bun:"users" json:"users"`
}

// Roles lists the tenant's roles by name, with how many users have each.
func (s Scope) Roles(ctx context.Context) ([]RoleSummary, error) {
	out := []RoleSummary{}
	err := s.Select(&out).ColumnExpr("r.*").
		ColumnExpr("(SELECT COUNT(*) FROM users AS u WHERE u.tenant_id = r.tenant_id AND u.role_id = r.id AND u.deleted_at IS NULL) AS users").
		OrderExpr("lower(r.name), r.id").Scan(ctx)
	return out, err
}

// RoleDetail is one role with its grants.
type RoleDetail struct {
	RoleSummary
	Permissions auth.Permissions `json:"permissions"`
}

// Role loads one role of the tenant with its grants (ErrNotFound for another tenant's).
func (s Scope) Role(ctx context.Context, id int64) (*RoleDetail, error) {
	d := &RoleDetail{}
	err := s.Select(&d.RoleSummary).ColumnExpr("r.*").
		ColumnExpr("(SELECT COUNT(*) FROM users AS u WHERE u.tenant_id = r.tenant_id AND u.role_id = r.id AND u.deleted_at IS NULL) AS users").
		Where("r.id = ?", id).Scan(ctx)
	if err != nil {
		return nil, notFound(err)
	}
	if d.Permissions, err = s.Permissions(ctx, id); err != nil {
		return nil, err
	}
	full := auth.Permissions{}
	for _, f := range auth.Features {
		full[f] = d.Permissions[f].Normal()
	}
	d.Permissions = full
	return d, nil
}

// RenameRole changes a role's name (the built-in roles keep theirs).
func (s Scope) RenameRole(ctx context.Context, id int64, name string) (*RoleDetail, error) {
	name = strings.TrimSpace(name)
	if errs := checkRoleName(name); len(errs) > 0 {
		return nil, errs
	}
	err := s.Tx(ctx, func(tx Scope) error {
		old, err := tx.Role(ctx, id)
		if err != nil {
			return err
		}
		if old.Builtin {
			return ErrBuiltinRole
		}
		if other, err := tx.RoleByName(ctx, name); err == nil && other.ID != id {
			return validate.Errors{"name": validate.KeyTaken}
		}
		if _, err := tx.Update((*Role)(nil)).Set("name = ?", name).Where("id = ?", id).Exec(ctx); err != nil {
			return err
		}
		return tx.roleChanged(ctx, id, name, "update", map[string]any{"name": old.Name}, map[string]any{"name": name})
	})
	if err != nil {
		return nil, err
	}
	return s.Role(ctx, id)
}

// SetRolePermissions replaces a role's grants, if the role is still at version (the one its
// matrix was read at): a save made meanwhile by someone else refuses this one
// (ErrRoleVersion), so no change is lost. The Administrator's rights cannot change, and the
// last role that may change roles keeps that right, so the tenant cannot lock itself out.
func (s Scope) SetRolePermissions(ctx context.Context, id, version int64, grants map[auth.Feature]auth.Grant) (*RoleDetail, error) {
	errs := validate.Errors{}
	checkGrants(grants, errs)
	if len(errs) > 0 {
		return nil, errs
	}
	err := s.Tx(ctx, func(tx Scope) error {
		old, err := tx.Role(ctx, id)
		if err != nil {
			return err
		}
		if old.Name == RoleAdministrator && old.Builtin {
			return ErrBuiltinRole
		}
		res, err := tx.Update((*Role)(nil)).Set("version = version + 1").Where("id = ? AND version = ?", id, version).Exec(ctx)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return ErrRoleVersion
		}
		if old.Permissions.Allows(auth.FeatureRoles, auth.Update) && !grants[auth.FeatureRoles].Allows(auth.Update) {
			others, err := tx.Select((*RolePermission)(nil)).
				Where("role_id <> ? AND feature = ? AND update_scope <> 'none'", id, string(auth.FeatureRoles)).Exists(ctx)
			if err != nil {
				return err
			}
			if !others {
				return ErrLastRolesAdmin
			}
		}
		if err := tx.writeGrants(ctx, id, grants); err != nil {
			return err
		}
		return tx.roleChanged(ctx, id, old.Name, "permissions", map[string]any{"grants": old.Permissions}, map[string]any{"grants": grants})
	})
	if err != nil {
		return nil, err
	}
	return s.Role(ctx, id)
}

// DeleteRole deletes a role that is not built in. Its users move to moveTo (another role of
// the tenant); a role in use without one is refused (ErrRoleInUse). Deleting the last role
// that may change roles is refused too.
func (s Scope) DeleteRole(ctx context.Context, id, moveTo int64) error {
	return s.Tx(ctx, func(tx Scope) error {
		old, err := tx.Role(ctx, id)
		if err != nil {
			return err
		}
		if old.Builtin {
			return ErrBuiltinRole
		}
		if old.Permissions.Allows(auth.FeatureRoles, auth.Update) {
			others, err := tx.Select((*RolePermission)(nil)).
				Where("role_id <> ? AND feature = ? AND update_scope <> 'none'", id, string(auth.FeatureRoles)).Exists(ctx)
			if err != nil {
				return err
			}
			if !others {
				return ErrLastRolesAdmin
			}
		}
		if old.Users > 0 {
			if moveTo == 0 || moveTo == id {
				return ErrRoleInUse
			}
			if _, err := tx.Role(ctx, moveTo); err != nil {
				return validate.Errors{"move_to": validate.KeyInvalid}
			}
			if _, err := tx.Update((*User)(nil)).Set("role_id = ?", moveTo).Where("role_id = ?", id).Exec(ctx); err != nil {
				return err
			}
		}
		if _, err := tx.Delete((*Role)(nil)).Where("id = ?", id).Exec(ctx); err != nil {
			return err
		}
		return tx.roleChanged(ctx, id, old.Name, "delete", map[string]any{"name": old.Name, "move_to": moveTo}, nil)
	})
}
