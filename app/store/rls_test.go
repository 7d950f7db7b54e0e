package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"crm/app/store"
	"crm/app/store/storetest"
)

// The tenant tables a new tenant has rows in, whatever the rest of the suite adds.
var seededTenantTables = []string{"roles", "role_permissions", "users", "lead_masters"}

// TestQueryWithoutTenantFilterSeesOnlyItsTenant: the store's helpers add the tenant filter on
// both engines; on PostgreSQL a statement written without one, through the server's own
// connection, still returns only the scope's tenant's rows (row-level security).
func TestQueryWithoutTenantFilterSeesOnlyItsTenant(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a, _ := newTenant(t, db, "A", "a@rls.test")
		b, _ := newTenant(t, db, "B", "b@rls.test")
		for _, tn := range []*store.Tenant{a, b} {
			var roles []store.Role
			if err := db.System(tn.ID, 0).Select(&roles).Scan(ctx); err != nil {
				t.Fatal(err)
			}
			if len(roles) == 0 {
				t.Fatalf("tenant %d: no roles", tn.ID)
			}
			for _, r := range roles {
				if r.TenantID != tn.ID {
					t.Fatalf("tenant %d's scope returned a role of tenant %d", tn.ID, r.TenantID)
				}
			}
		}
		if db.Dialect != store.Postgres {
			return // SQLite has no row-level security: the Scope is the wall there
		}
		for _, tn := range []*store.Tenant{a, b} {
			s := db.Tenant(tn.ID, 0)
			for _, table := range seededTenantTables {
				var tenants []int64
				if err := s.Raw("SELECT DISTINCT tenant_id FROM "+table).Scan(ctx, &tenants); err != nil {
					t.Fatalf("%s: %v", table, err)
				}
				if len(tenants) != 1 || tenants[0] != tn.ID {
					t.Errorf("tenant %d, unfiltered SELECT on %s saw tenants %v", tn.ID, table, tenants)
				}
			}
			// The same inside a transaction the scope opens.
			err := s.Tx(ctx, func(tx store.Scope) error {
				var n int
				if err := tx.Raw("SELECT count(*) FROM users WHERE tenant_id <> ?", tn.ID).Scan(ctx, &n); err != nil {
					return err
				}
				if n != 0 {
					t.Errorf("tenant %d, in a transaction: %d users of other tenants", tn.ID, n)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		// The owner, whom the policies do not bind, sees both: the rows are there.
		var n int
		if err := storetest.Owner(t, db).System(a.ID, 0).Raw("SELECT count(DISTINCT tenant_id) FROM users").Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		if n < 2 {
			t.Fatalf("owner sees users of %d tenants, want both", n)
		}
	})
}

// TestRowLevelSecurityRefusesForeignWrites: a statement of tenant A cannot write a row of
// tenant B, nor change or delete B's rows.
func TestRowLevelSecurityRefusesForeignWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.Open(t, store.Postgres)
	a, _ := newTenant(t, db, "A", "a@rls.test")
	b, _ := newTenant(t, db, "B", "b@rls.test")
	s := db.Tenant(a.ID, 0)
	_, err := s.Raw("INSERT INTO roles (tenant_id, name) VALUES (?, 'Intruder')", b.ID).Exec(ctx)
	if err == nil || !strings.Contains(err.Error(), "row-level security") {
		t.Fatalf("insert of a row of another tenant: %v, want a row-level security refusal", err)
	}
	// Moving an own row to another tenant is refused as well.
	_, err = s.Raw("UPDATE roles SET tenant_id = ? WHERE tenant_id = ?", b.ID, a.ID).Exec(ctx)
	if err == nil || !strings.Contains(err.Error(), "row-level security") {
		t.Fatalf("update moving rows to another tenant: %v, want a row-level security refusal", err)
	}
	// Updates and deletes without a tenant filter reach no foreign row.
	res, err := s.Raw("UPDATE users SET locale = 'de_DE' WHERE tenant_id = ?", b.ID).Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 0 {
		t.Fatalf("tenant A updated %d users of tenant B", n)
	}
	res, err = s.Raw("DELETE FROM saved_views").Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var users int
	if err := db.Tenant(b.ID, 0).Raw("SELECT count(*) FROM users WHERE locale = 'de_DE'").Scan(ctx, &users); err != nil {
		t.Fatal(err)
	}
	if users != 0 {
		t.Fatalf("tenant B's users changed by tenant A: %d", users)
	}
}

// TestNoTenantSeesNothing: a statement outside any Scope (no tenant set) sees no tenant row
// and can write none, even on a connection that just served a tenant, including after
// that tenant's transaction rolled back.
func TestNoTenantSeesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.Open(t, store.Postgres)
	a, _ := newTenant(t, db, "A", "a@rls.test")
	db.SetMaxOpenConns(1) // every statement below shares one connection
	none := func(when string) {
		t.Helper()
		for _, table := range seededTenantTables {
			var n int
			if err := db.Raw("SELECT count(*) FROM "+table).Scan(ctx, &n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Errorf("%s: %d rows of %s visible without a tenant", when, n, table)
			}
		}
	}
	none("fresh connection")
	var n int
	if err := db.Tenant(a.ID, 0).Raw("SELECT count(*) FROM users").Scan(ctx, &n); err != nil || n == 0 {
		t.Fatalf("tenant A sees %d users (%v)", n, err)
	}
	none("after a statement of tenant A")
	rollback := errors.New("roll back")
	err := db.Tenant(a.ID, 0).Tx(ctx, func(tx store.Scope) error {
		if err := tx.Raw("SELECT count(*) FROM users").Scan(ctx, &n); err != nil {
			return err
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatal(err)
	}
	none("after tenant A's transaction rolled back")
	if _, err := db.Raw("INSERT INTO roles (tenant_id, name) VALUES (?, 'Nobody')", a.ID).Exec(ctx); err == nil ||
		!strings.Contains(err.Error(), "row-level security") {
		t.Fatalf("insert without a tenant: %v, want a row-level security refusal", err)
	}
	// A tenant created in one transaction (begun without a tenant) gets its rows all the same.
	b, _ := newTenant(t, db, "B", "b@rls.test")
	if err := db.Tenant(b.ID, 0).Raw("SELECT count(*) FROM roles").Scan(ctx, &n); err != nil || n == 0 {
		t.Fatalf("tenant B sees %d roles (%v)", n, err)
	}
	none("after creating tenant B")
}

// TestServerRoleIsBoundByRowLevelSecurity: the tests' server connection passes the check
// `crm serve` makes, and the owner's connection fails it.
func TestServerRoleIsBoundByRowLevelSecurity(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.Postgres)
	if err := db.CheckAppRole(context.Background()); err != nil {
		t.Fatalf("application role: %v", err)
	}
	if err := storetest.Owner(t, db).CheckAppRole(context.Background()); !errors.Is(err, store.ErrOwnerConnection) {
		t.Fatalf("owner role passed the check: %v", err)
	}
}
