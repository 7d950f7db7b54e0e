package web

import (
	"context"
	"net/http"

	"crm/app/auth"
	"crm/app/store"
)

// Principal is the authenticated caller: who, in which tenant, allowed to do what.
type Principal struct {
	Tenant *store.Tenant
	User   *store.User
	Perms  auth.Permissions
	Token  string // the API token used, if the call came with one
	scope  store.Scope
}

// NewPrincipal is the caller seen through db: its scope carries the caller's tenant and
// record scopes into every query.
func NewPrincipal(db *store.DB, t *store.Tenant, u *store.User, perms auth.Permissions) *Principal {
	return &Principal{Tenant: t, User: u, Perms: perms, scope: db.Tenant(t.ID, u.ID).WithPermissions(perms)}
}

// Scope is the caller's tenant-scoped view of the database.
func (p *Principal) Scope() store.Scope { return p.scope }

// Allows reports whether the caller may do the action on the feature.
func (p *Principal) Allows(f auth.Feature, a auth.Action) bool { return p.Perms.Allows(f, a) }

// AllowsAny reports whether the caller has any of the needs.
func (p *Principal) AllowsAny(needs ...Need) bool {
	for _, n := range needs {
		if p.Perms.Allows(n.Feature, n.Action) {
			return true
		}
	}
	return false
}

// OwnOnly reports whether the caller reaches only their own records of the feature (with
// the view action).
func (p *Principal) OwnOnly(f auth.Feature) bool {
	return p.Perms.ScopeFor(f, auth.View) == auth.ScopeOwn
}

type principalKey struct{}

// WithPrincipal is ctx carrying the caller.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// CallerFrom is the caller in ctx, or nil before sign-in.
func CallerFrom(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// Caller is the request's caller, or nil before sign-in.
func Caller(r *http.Request) *Principal { return CallerFrom(r.Context()) }

// Scope is the signed-in caller's tenant-scoped view of the database. Only routes behind
// RequireAuth call it.
func Scope(r *http.Request) store.Scope { return Caller(r).Scope() }
