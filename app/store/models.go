package store

import (
	"time"

	"github.com/uptrace/bun"

	"crm/app/auth"
)

// Tenant is a customer company; its rows are isolated from every other tenant's.
type Tenant struct {
	bun.BaseModel `bun:"table:tenants,alias:tn"`

	ID            int64     `bun:"id,pk,autoincrement" json:"id"`
	Name          string    `bun:"name,notnull" json:"name"`
	DefaultLocale string    `bun:"default_locale,notnull" json:"default_locale"`
	CreatedAt     time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp" json:"created_at"`
}

// Role is a named set of permissions within a tenant.
type Role struct {
	bun.BaseModel `bun:"table:roles,alias:r"`
	Owned

	ID      int64  `bun:"id,pk,autoincrement" json:"id"`
	Name    string `bun:"name,notnull" json:"name"`
	Builtin bool   `bun:"builtin,notnull" json:"builtin"`
	Version int64  `bun:"version,notnull,default:1" json:"version"`
	// Require2FA will make the role's users enrol in two-factor sign-in (not enforced yet:
	// two-factor sign-in is still to be built, issue 11).
	Require2FA bool      `bun:"require_2fa,notnull" json:"-"`
	CreatedAt  time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp" json:"created_at"`
}

// RolePermission is one role's grant on one feature.
type RolePermission struct {
	bun.BaseModel `bun:"table:role_permissions,alias:rp"`
	Owned

	RoleID  int64  `bun:"role_id,pk"`
	Feature string `bun:"feature,pk"`
	// The record scope of each action (none, own, team, all).
	ViewScope   string `bun:"view_scope,notnull"`
	CreateScope string `bun:"create_scope,notnull"`
	UpdateScope string `bun:"update_scope,notnull"`
	DeleteScope string `bun:"delete_scope,notnull"`
	ExportScope string `bun:"export_scope,notnull"`
	ImportScope string `bun:"import_scope,notnull"`
	// The columns of the first model (one scope a feature), still written so a reader of
	// the old shape sees the same rights: an action granted at all, and the widest scope.
	CanView   bool   `bun:"can_view,notnull"`
	CanCreate bool   `bun:"can_create,notnull"`
	CanUpdate bool   `bun:"can_update,notnull"`
	CanDelete bool   `bun:"can_delete,notnull"`
	Scope     string `bun:"scope,notnull"`
}

// newRolePermission is the row of a role's grant on a feature.
func newRolePermission(roleID int64, f auth.Feature, g auth.Grant) *RolePermission {
	g = g.Normal()
	widest := auth.ScopeOwn
	for _, a := range auth.Actions {
		if g.For(a).Rank() > widest.Rank() {
			widest = g.For(a)
		}
	}
	return &RolePermission{RoleID: roleID, Feature: string(f),
		ViewScope: string(g.View), CreateScope: string(g.Create), UpdateScope: string(g.Update),
		DeleteScope: string(g.Delete), ExportScope: string(g.Export), ImportScope: string(g.Import),
		CanView: g.Allows(auth.View), CanCreate: g.Allows(auth.Create), CanUpdate: g.Allows(auth.Update),
		CanDelete: g.Allows(auth.Delete), Scope: string(widest)}
}

// Grant is the row's grant.
func (rp *RolePermission) Grant() auth.Grant {
	return auth.Grant{View: auth.RecordScope(rp.ViewScope), Create: auth.RecordScope(rp.CreateScope),
		Update: auth.RecordScope(rp.UpdateScope), Delete: auth.RecordScope(rp.DeleteScope),
		Export: auth.RecordScope(rp.ExportScope), Import: auth.RecordScope(rp.ImportScope)}.Normal()
}

// User is a member of a tenant's staff who signs in.
type User struct {
	bun.BaseModel `bun:"table:users,alias:u"`
	Owned

	ID           int64      `bun:"id,pk,autoincrement" json:"id"`
	Email        string     `bun:"email,notnull" json:"email"`
	Name         string     `bun:"name,notnull" json:"name"`
	Title        string     `bun:"title,notnull" json:"title"`
	Phone        string     `bun:"phone,notnull" json:"phone"`
	PasswordHash string     `bun:"password_hash,notnull" json:"-"`
	RoleID       int64      `bun:"role_id,notnull" json:"role_id"`
	Locale       string     `bun:"locale,notnull" json:"locale"`
	Active       bool       `bun:"active,notnull" json:"active"`
	TimeZone     string     `bun:"time_zone,notnull" json:"time_zone"`
	LastSignInAt *time.Time `bun:"last_sign_in_at" json:"last_sign_in_at"`
	DeletedAt    *time.Time `bun:"deleted_at" json:"-"`
	CreatedAt    time.Time  `bun:"created_at,nullzero,notnull,default:current_timestamp" json:"created_at"`
	UpdatedAt    time.Time  `bun:"updated_at,nullzero,notnull,default:current_timestamp" json:"updated_at"`
}

// userDirectory maps a login email to its tenant and user; the only lookup made before
// the tenant is known.
type userDirectory struct {
	bun.BaseModel `bun:"table:user_directory"`

	Email    string `bun:"email,pk"`
	TenantID int64  `bun:"tenant_id,notnull"`
	UserID   int64  `bun:"user_id,notnull"`
}

// APIToken is a revocable bearer token; only the hash of its secret is stored.
type APIToken struct {
	bun.BaseModel `bun:"table:api_tokens,alias:tok"`
	Owned

	ID         int64      `bun:"id,pk,autoincrement"`
	UserID     int64      `bun:"user_id,notnull"`
	TokenHash  string     `bun:"token_hash,notnull"`
	CreatedAt  time.Time  `bun:"created_at,nullzero,notnull,default:current_timestamp"`
	LastUsedAt *time.Time `bun:"last_used_at"`
	RevokedAt  *time.Time `bun:"revoked_at"`
}

// AuditEntry is one recorded change: who, when, what, and the values before and after.
type AuditEntry struct {
	bun.BaseModel `bun:"table:audit_log,alias:al"`
	Owned

	ID          int64     `bun:"id,pk,autoincrement" json:"id"`
	ActorUserID *int64    `bun:"actor_user_id" json:"actor_user_id"`
	Entity      string    `bun:"entity,notnull" json:"entity"`
	EntityID    int64     `bun:"entity_id,notnull" json:"entity_id"`
	Action      string    `bun:"action,notnull" json:"action"`
	Before      *string   `bun:"before" json:"before"`
	After       *string   `bun:"after" json:"after"`
	CreatedAt   time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp" json:"created_at"`
}
