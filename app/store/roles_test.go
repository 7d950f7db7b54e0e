package store_test

import (
	"context"
	"io/fs"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/store/storetest"
	migrations "crm/sql"
)

// TestScopeMigrationKeepsEveryRight replays the data step of the migration that gave each
// action its own scope on rows written in the old shape (one scope a feature, a flag an
// action): every granted action keeps the feature's scope (own stays own), export follows
// view and import follows create; nothing else is granted.
func TestScopeMigrationKeepsEveryRight(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tn, admin := newTenant(t, db, "Acme", "boss@acme.test")
		s := db.System(tn.ID, admin.ID)
		role, err := s.CreateRole(ctx, "Old", nil)
		if err != nil {
			t.Fatal(err)
		}
		src, err := fs.ReadFile(migrations.FS, string(db.Dialect)+"/20261123000700_role_scopes_teams.tx.up.sql")
		if err != nil {
			t.Fatal(err)
		}
		stmt := string(src)[strings.Index(string(src), "UPDATE role_permissions"):]
		stmt = stmt[:strings.Index(stmt, ";")]
		// Old-shape rows are written around the store, as the owner (row-level security binds
		// the test's own connection).
		err = storetest.Owner(t, db).RunInTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			for _, row := range []string{
				"(?, ?, 'leads', true, true, true, false, 'own')",
				"(?, ?, 'clients', true, false, false, false, 'all')",
				"(?, ?, 'dashboard', false, false, false, false, 'all')",
			} {
				if _, err := tx.NewRaw("INSERT INTO role_permissions (tenant_id, role_id, feature, can_view, can_create, can_update, can_delete, scope) VALUES "+row,
					tn.ID, role.ID).Exec(ctx); err != nil {
					return err
				}
			}
			_, err := tx.ExecContext(ctx, stmt)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.Permissions(ctx, role.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := auth.Permissions{
			auth.FeatureLeads:     auth.Grant{View: auth.ScopeOwn, Create: auth.ScopeOwn, Update: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn}.Normal(),
			auth.FeatureClients:   auth.Grant{View: auth.ScopeAll, Export: auth.ScopeAll}.Normal(),
			auth.FeatureDashboard: auth.Grant{}.Normal(),
		}
		for f, g := range want {
			if p[f] != g {
				t.Errorf("%s after the migration: %+v, want %+v", f, p[f], g)
			}
		}
	})
}

// TestRoleRulesKeepTheTenantIn: the Administrator never changes, and the last role that may
// update roles keeps that right (the Administrator always has it, so the rule is checked on
// a tenant whose Administrator grants were removed by hand).
func TestRoleRulesKeepTheTenantIn(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tn, admin := newTenant(t, db, "Acme", "boss@acme.test")
		s := db.System(tn.ID, admin.ID)
		adminRole, err := s.RoleByName(ctx, store.RoleAdministrator)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetRolePermissions(ctx, adminRole.ID, adminRole.Version, nil); err != store.ErrBuiltinRole {
			t.Errorf("changing the Administrator: %v", err)
		}
		if err := s.DeleteRole(ctx, adminRole.ID, 0); err != store.ErrBuiltinRole {
			t.Errorf("deleting the Administrator: %v", err)
		}
		keeper, err := s.CreateRole(ctx, "Keeper", map[auth.Feature]auth.Grant{auth.FeatureRoles: auth.Full})
		if err != nil {
			t.Fatal(err)
		}
		// Another role (the Administrator) may still change roles: Keeper may lose it.
		if _, err := s.SetRolePermissions(ctx, keeper.ID, 1, nil); err != nil {
			t.Errorf("Keeper giving up roles: %v", err)
		}
		if _, err := s.SetRolePermissions(ctx, keeper.ID, 1, nil); err != store.ErrRoleVersion {
			t.Errorf("a stale version: %v", err)
		}
		// Without the Administrator's grant, Keeper is the last one and keeps it.
		if _, err := s.SetRolePermissions(ctx, keeper.ID, 2, map[auth.Feature]auth.Grant{auth.FeatureRoles: auth.Full}); err != nil {
			t.Fatal(err)
		}
		if err := storetest.Owner(t, db).RunInTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			_, err := tx.NewDelete().Table("role_permissions").Where("tenant_id = ? AND role_id = ?", tn.ID, adminRole.ID).Exec(ctx)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetRolePermissions(ctx, keeper.ID, 3, nil); err != store.ErrLastRolesAdmin {
			t.Errorf("the last role giving up roles update: %v", err)
		}
		if err := s.DeleteRole(ctx, keeper.ID, 0); err != store.ErrLastRolesAdmin {
			t.Errorf("deleting the last role that may change roles: %v", err)
		}
	})
}
