package store

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"crm/app/validate"
)

// TenantSSO is a tenant's OpenID Connect provider. ClientSecret is sealed (the sso
// package seals and opens it); the store never sees it in clear.
type TenantSSO struct {
	bun.BaseModel `bun:"table:tenant_sso,alias:ts"`
	Owned

	ProviderName string    `bun:"provider_name,notnull"`
	Issuer       string    `bun:"issuer,notnull"`
	ClientID     string    `bun:"client_id,notnull"`
	ClientSecret string    `bun:"client_secret,notnull"`
	OnlySSO      bool      `bun:"only_sso,notnull"`
	UpdatedAt    time.Time `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
}

// SSO loads the tenant's provider (ErrNotFound when none is configured).
func (s Scope) SSO(ctx context.Context) (*TenantSSO, error) {
	c := &TenantSSO{}
	err := s.Select(c).Scan(ctx)
	return c, notFound(err)
}

// SaveSSO sets the tenant's provider. An empty sealed secret keeps the one stored.
func (s Scope) SaveSSO(ctx context.Context, c TenantSSO) error {
	c.ProviderName, c.Issuer, c.ClientID = strings.TrimSpace(c.ProviderName), strings.TrimSpace(c.Issuer), strings.TrimSpace(c.ClientID)
	errs := validate.Errors{}
	errs.Check(validate.Required(c.ProviderName), "provider_name", validate.KeyRequired)
	errs.Check(validate.NoHTML(c.ProviderName), "provider_name", validate.KeyHTMLNotAllowed)
	errs.Check(strings.HasPrefix(c.Issuer, "https://") || strings.HasPrefix(c.Issuer, "http://"), "issuer", validate.KeyInvalid)
	errs.Check(validate.Required(c.ClientID), "client_id", validate.KeyRequired)
	return s.Tx(ctx, func(tx Scope) error {
		old, err := tx.SSO(ctx)
		if err != nil && err != ErrNotFound {
			return err
		}
		if c.ClientSecret == "" && err == nil {
			c.ClientSecret = old.ClientSecret
		}
		errs.Check(c.ClientSecret != "", "client_secret", validate.KeyRequired)
		if len(errs) > 0 {
			return errs
		}
		c.UpdatedAt = time.Now()
		if _, err := tx.Insert(&c).On("CONFLICT (tenant_id) DO UPDATE").
			Set("provider_name = EXCLUDED.provider_name, issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id").
			Set("client_secret = EXCLUDED.client_secret, only_sso = EXCLUDED.only_sso, updated_at = EXCLUDED.updated_at").
			Exec(ctx); err != nil {
			return err
		}
		return tx.Record(ctx, "tenant_sso", s.TenantID, "update", nil,
			map[string]any{"provider_name": c.ProviderName, "issuer": c.Issuer, "client_id": c.ClientID, "only_sso": c.OnlySSO})
	})
}

// PasswordAllowed reports whether the login may sign in with a password: always, unless
// its tenant signs in only through its provider; then only users of the built-in
// Administrator role may (the break-glass way in when the provider is down or misconfigured).
func (db *DB) PasswordAllowed(ctx context.Context, l *Login) (bool, error) {
	s := db.System(l.TenantID, 0)
	c, err := s.SSO(ctx)
	switch {
	case err == ErrNotFound:
		return true, nil
	case err != nil:
		return false, err
	case !c.OnlySSO:
		return true, nil
	}
	role := &Role{}
	if err := s.Select(role).Where("r.id = ?", l.User.RoleID).Scan(ctx); err != nil {
		return false, notFound(err)
	}
	return role.Builtin && role.Name == RoleAdministrator, nil
}
