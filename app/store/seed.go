package store

import (
	"context"
	"errors"
)

// The demo tenant's fixed identity, printed by `crm serve --demo`.
const (
	DemoTenantName    = "Demo Company"
	DemoAdminEmail    = "admin@demo.test"
	DemoAdminPassword = "Admin@12345"
	DemoSalesEmail    = "sales@demo.test"
	DemoSalesPassword = "Sales@12345"
)

// demoMastersLocale names the demo's masters: the spec's own values (section 4: stages
// Leads, Deals, Won; statuses New lead, Attempt to contact, Converted), which the demo
// shows and the browser tests rely on, whatever the demo tenant's language.
const demoMastersLocale = "en_US"

// SeedDemo creates the demo tenant with an admin and a sales user, unless it exists.
// It reports whether anything was created; a second run changes nothing.
func (db *DB) SeedDemo(ctx context.Context) (*Tenant, bool, error) {
	if t, err := db.TenantByName(ctx, DemoTenantName); err == nil {
		return t, false, nil
	} else if !errors.Is(err, ErrNotFound) {
		return nil, false, err
	}
	var tenant *Tenant
	err := db.bun.RunInTx(ctx, nil, func(ctx context.Context, tx bunTx) error {
		t := &Tenant{Name: DemoTenantName, DefaultLocale: DefaultLocale}
		if _, err := tx.NewInsert().Model(t).Returning("id, created_at").Exec(ctx); err != nil {
			return err
		}
		s := db.scopeIn(tx, t.ID)
		if err := s.EnsureBuiltinRoles(ctx); err != nil {
			return err
		}
		if err := s.EnsureDefaultMasters(ctx, demoMastersLocale); err != nil {
			return err
		}
		admin, err := s.CreateUser(ctx, NewUser{Email: DemoAdminEmail, Name: "Alex Admin", Phone: "0612345678",
			Password: DemoAdminPassword, Role: RoleAdministrator})
		if err != nil {
			return err
		}
		s.UserID = admin.ID
		sales, err := s.CreateUser(ctx, NewUser{Email: DemoSalesEmail, Name: "Sam Sales", Phone: "0698765432",
			Password: DemoSalesPassword, Role: RoleSales})
		if err != nil {
			return err
		}
		salesScope := s
		salesScope.UserID = sales.ID
		if err := seedDemoLeads(ctx, s, salesScope); err != nil {
			return err
		}
		tenant = t
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return tenant, true, nil
}
