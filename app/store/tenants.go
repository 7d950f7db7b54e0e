package store

import (
	"context"
	"strings"

	"crm/app/validate"
)

// DefaultLocale is the spec's default user locale (fr-FR) for a new tenant.
const DefaultLocale = "fr_FR"

// NewTenant is what it takes to open a tenant: its name and its first administrator.
type NewTenant struct {
	Name          string
	DefaultLocale string
	AdminEmail    string
	AdminName     string
	AdminPassword string
}

// CreateTenant opens a tenant with the built-in roles and its administrator, all or nothing.
func (db *DB) CreateTenant(ctx context.Context, n NewTenant) (*Tenant, *User, error) {
	n.Name = strings.TrimSpace(n.Name)
	errs := validate.Errors{}
	errs.Check(validate.Required(n.Name), "name", validate.KeyRequired)
	errs.Check(validate.NoHTML(n.Name), "name", validate.KeyHTMLNotAllowed)
	admin := NewUser{Email: n.AdminEmail, Name: n.AdminName, Password: n.AdminPassword, Role: RoleAdministrator}
	for f, k := range admin.normalise() {
		errs.Add(f, k)
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	if n.DefaultLocale == "" {
		n.DefaultLocale = DefaultLocale
	}
	t := &Tenant{Name: n.Name, DefaultLocale: n.DefaultLocale}
	var u *User
	err := db.bun.RunInTx(ctx, nil, func(ctx context.Context, tx bunTx) error {
		if _, err := tx.NewInsert().Model(t).Returning("id, created_at").Exec(ctx); err != nil {
			return err
		}
		s := db.scopeIn(tx, t.ID)
		if err := s.EnsureBuiltinRoles(ctx); err != nil {
			return err
		}
		if err := s.EnsureDefaultMasters(ctx, n.DefaultLocale); err != nil {
			return err
		}
		var err error
		u, err = s.CreateUser(ctx, admin)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return t, u, nil
}

// TenantByID loads a tenant.
func (db *DB) TenantByID(ctx context.Context, id int64) (*Tenant, error) {
	t := &Tenant{}
	err := db.bun.NewSelect().Model(t).Where("id = ?", id).Scan(ctx)
	return t, notFound(err)
}

// tenantIDs lists every tenant, for the workers' sweeps.
func (db *DB) tenantIDs(ctx context.Context) ([]int64, error) {
	var ids []int64
	err := db.bun.NewSelect().Table("tenants").Column("id").OrderExpr("id").Scan(ctx, &ids)
	return ids, err
}

// TenantByName finds a tenant by its exact name (used by the demo seed to stay idempotent).
func (db *DB) TenantByName(ctx context.Context, name string) (*Tenant, error) {
	t := &Tenant{}
	err := db.bun.NewSelect().Model(t).Where("name = ?", name).OrderExpr("id").Limit(1).Scan(ctx)
	return t, notFound(err)
}

// Counts are the numbers the home page shows for a tenant.
type Counts struct {
	Users int64 `json:"users"`
	Roles int64 `json:"roles"`
}

// Counts counts the tenant's records for the home page.
func (s Scope) Counts(ctx context.Context) (Counts, error) {
	var c Counts
	var err error
	if c.Users, err = s.Select((*User)(nil)).Count(ctx); err != nil {
		return c, err
	}
	c.Roles, err = s.Select((*Role)(nil)).Count(ctx)
	return c, err
}
