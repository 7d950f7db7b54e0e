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
	ViewScope     sql.NullString `bun:"rp_view_scope"`
	CreateScope   sql.NullString `bun:"rp_create_scope"`
	UpdateScope   sql.NullString `bun:"rp_update_scope"`
	DeleteScope   sql.NullString `bun:"rp_delete_scope"`
	ExportScope   sql.NullString `bun:"rp_export_scope"`
	ImportScope   sql.NullString `bun:"rp_import_scope"`
}

// Caller loads who makes a request — the user, the tenant and the user's permissions — in
// one statement: it runs before every signed-in request, where three lookups cost three
// round trips. ErrNotFound when the user does not exist in that tenant.
//
// The answer is kept in the process's caller cache (callercache.go) until a caller table
// changes or the cache bound passes; each call gets its own copy of the user and tenant
// (the permissions are shared and never changed).
func (db *DB) Caller(ctx context.Context, tenantID, userID int64) (*User, *Tenant, auth.Permissions, error) {
	now := time.Now()
	key := callerKey{tenantID, userID}
	if e, ok := db.callers.caller(key, now); ok {
		u, t := e.user, e.tenant
		return &u, &t, e.perms, nil
	}
	gen := callerGen.Load() // before the read: a change during it makes the entry stale
	u, t, perms, err := db.readCaller(ctx, tenantID, userID)
	if err != nil {
		return nil, nil, nil, err
	}
	db.callers.putCaller(key, callerEntry{user: *u, tenant: *t, perms: perms, gen: gen, at: now})
	return u, t, perms, nil
}

// readCaller is Caller's one statement.
func (db *DB) readCaller(ctx context.Context, tenantID, userID int64) (*User, *Tenant, auth.Permissions, error) {
	var rows []callerRow
	err := db.System(tenantID, userID).Select(&rows).
		ColumnExpr("u.*, ro.require_2fa AS role_require_2fa").
		ColumnExpr("tn.name AS tenant_name, tn.default_locale AS tenant_default_locale, tn.created_at AS tenant_created_at").
		ColumnExpr("rp.feature AS rp_feature, rp.view_scope AS rp_view_scope, rp.create_scope AS rp_create_scope").
		ColumnExpr("rp.update_scope AS rp_update_scope, rp.delete_scope AS rp_delete_scope").
		ColumnExpr("rp.export_scope AS rp_export_scope, rp.import_scope AS rp_import_scope").
		Join("JOIN tenants AS tn ON tn.id = u.tenant_id").
		Join("JOIN roles AS ro ON ro.tenant_id = u.tenant_id AND ro.id = u.role_id").
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
		perms[auth.Feature(r.Feature.String)] = auth.Grant{View: auth.RecordScope(r.ViewScope.String),
			Create: auth.RecordScope(r.CreateScope.String), Update: auth.RecordScope(r.UpdateScope.String),
			Delete: auth.RecordScope(r.DeleteScope.String), Export: auth.RecordScope(r.ExportScope.String),
			Import: auth.RecordScope(r.ImportScope.String)}.Normal()
	}
	return &u, t, perms, nil
}
