package store

import (
	"context"
	"database/sql"
	"time"

	"crm/app/auth"
)

// callerRow is one row of Caller's query: the user, its tenant, and one of its role's
// grants (none when the role has no grant).
type callerRow struct {
	User `bun:",extend"`

	TenantName    string         `bun:"tenant_name"`
	TenantLocale  string         `bun:"tenant_default_locale"`
	TenantCreated time.Time      `bun:"tenant_created_at"`
	Feature       sql.NullString `bun:"rp_feature"`
	CanView       sql.NullBool   `bun:"rp_can_view"`
	CanCreate     sql.NullBool   `bun:"rp_can_create"`
	CanUpdate     sql.NullBool   `bun:"rp_can_update"`
	CanDelete     sql.NullBool   `bun:"rp_can_delete"`
	GrantScope    sql.NullString `bun:"rp_scope"`
}

// Caller loads who makes a request — the user, the tenant and the user's permissions — in
// one statement: it runs before every signed-in request, where three lookups cost three
// round trips. ErrNotFound when the user does not exist in that tenant.
func (db *DB) Caller(ctx context.Context, tenantID, userID int64) (*User, *Tenant, auth.Permissions, error) {
	var rows []callerRow
	err := db.System(tenantID, userID).Select(&rows).
		ColumnExpr("u.*").
		ColumnExpr("tn.name AS tenant_name, tn.default_locale AS tenant_default_locale, tn.created_at AS tenant_created_at").
		ColumnExpr("rp.feature AS rp_feature, rp.can_view AS rp_can_view, rp.can_create AS rp_can_create").
		ColumnExpr("rp.can_update AS rp_can_update, rp.can_delete AS rp_can_delete, rp.scope AS rp_scope").
		Join("JOIN tenants AS tn ON tn.id = u.tenant_id").
		Join("LEFT JOIN role_permissions AS rp ON rp.tenant_id = u.tenant_id AND rp.role_id = u.role_id").
		Where("u.id = ?", userID).
		Scan(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(rows) == 0 {
		return nil, nil, nil, ErrNotFound
	}
	first := rows[0]
	u := first.User
	t := &Tenant{ID: u.TenantID, Name: first.TenantName, DefaultLocale: first.TenantLocale, CreatedAt: first.TenantCreated}
	perms := auth.Permissions{}
	for _, r := range rows {
		if !r.Feature.Valid {
			continue
		}
		perms[auth.Feature(r.Feature.String)] = auth.Grant{View: r.CanView.Bool, Create: r.CanCreate.Bool,
			Update: r.CanUpdate.Bool, Delete: r.CanDelete.Bool, Scope: auth.RecordScope(r.GrantScope.String)}
	}
	return &u, t, perms, nil
}
