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
// feature; Sales works its own leads and sees the dashboard.
func builtinGrants(role string) map[auth.Feature]auth.Grant {
	if role == RoleAdministrator {
		g := map[auth.Feature]auth.Grant{}
		for _, f := range auth.Features {
			g[f] = auth.Full
		}
		return g
	}
	return map[auth.Feature]auth.Grant{
		auth.FeatureLeads:     {View: true, Create: true, Update: true, Scope: auth.ScopeOwn},
		auth.FeatureDashboard: {View: true, Scope: auth.ScopeOwn},
	}
}

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
				role = &Role{Name: name, Builtin: true}
				if _, err := tx.Insert(role).Returning("id").Exec(ctx); err != nil {
					return err
				}
			default:
				return err
			}
			for f, g := range builtinGrants(name) {
				rp := &RolePermission{RoleID: role.ID, Feature: string(f), CanView: g.View,
					CanCreate: g.Create, CanUpdate: g.Update, CanDelete: g.Delete, Scope: string(g.Scope)}
				q := tx.Insert(rp).On("CONFLICT (tenant_id, role_id, feature) DO NOTHING")
				if name == RoleAdministrator {
					q = tx.Insert(rp).On("CONFLICT (tenant_id, role_id, feature) DO UPDATE").
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
		p[auth.Feature(r.Feature)] = auth.Grant{View: r.CanView, Create: r.CanCreate,
			Update: r.CanUpdate, Delete: r.CanDelete, Scope: auth.RecordScope(r.Scope)}
	}
	return p, nil
}

// CreateRole adds a role with the given grants; a name already used is a validation error.
func (s Scope) CreateRole(ctx context.Context, name string, grants map[auth.Feature]auth.Grant) (*Role, error) {
	name = strings.TrimSpace(name)
	errs := validate.Errors{}
	errs.Check(validate.Required(name), "name", validate.KeyRequired)
	errs.Check(validate.NoHTML(name), "name", validate.KeyHTMLNotAllowed)
	for f := range grants {
		errs.Check(auth.KnownFeature(f), "permissions", validate.KeyInvalid)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	role := &Role{Name: name}
	err := s.Tx(ctx, func(tx Scope) error {
		if _, err := tx.RoleByName(ctx, name); err == nil {
			return validate.Errors{"name": validate.KeyTaken}
		}
		if _, err := tx.Insert(role).Returning("id, created_at").Exec(ctx); err != nil {
			return err
		}
		for f, g := range grants {
			scope := g.Scope
			if scope == "" {
				scope = auth.ScopeAll
			}
			rp := &RolePermission{RoleID: role.ID, Feature: string(f), CanView: g.View, CanCreate: g.Create,
				CanUpdate: g.Update, CanDelete: g.Delete, Scope: string(scope)}
			if _, err := tx.Insert(rp).Exec(ctx); err != nil {
				return err
			}
		}
		return tx.Record(ctx, "role", role.ID, "create", nil, map[string]any{"name": name, "grants": grants})
	})
	if err != nil {
		return nil, err
	}
	return role, nil
}
