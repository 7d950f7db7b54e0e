package store

import (
	"context"
	"slices"
	"strings"
	"time"

	"crm/app/auth"
	"crm/app/validate"
)

// CreateToken issues an API token for a user of the tenant and returns it; only its hash is kept.
func (s Scope) CreateToken(ctx context.Context, userID int64) (string, error) {
	token, hash := auth.NewToken(s.TenantID)
	err := s.Tx(ctx, func(tx Scope) error {
		if _, err := tx.Insert(&APIToken{UserID: userID, TokenHash: hash}).Exec(ctx); err != nil {
			return err
		}
		return tx.LogSecurity(ctx, SecTokenCreated, userID, "")
	})
	if err != nil {
		return "", err
	}
	return token, nil
}

// TokenUser resolves a live token to its tenant and user; ErrNotFound if unknown or revoked.
func (db *DB) TokenUser(ctx context.Context, token string) (tenantID, userID int64, err error) {
	tenantID, hash, err := auth.ParseToken(token)
	if err != nil {
		return 0, 0, ErrNotFound
	}
	now := time.Now().UTC()
	// A token read a moment ago and unchanged since is not read again (callercache.go).
	if e, ok := db.callers.token(hash, now); ok && e.tenantID == tenantID {
		return e.tenantID, e.userID, nil
	}
	gen := callerGen.Load()
	t := &APIToken{}
	s := db.System(tenantID, 0)
	err = s.Select(t).Where("token_hash = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)", hash, now).Scan(ctx)
	if err != nil {
		return 0, 0, notFound(err)
	}
	// The last use, to the minute: written when it is older than that, not on every call
	// (nor is the token cached meanwhile: this write changes nothing the cache keeps).
	if t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) > time.Minute {
		if _, err := s.Update((*APIToken)(nil)).Set("last_used_at = ?", now).Where("id = ?", t.ID).Exec(quietWrite(ctx)); err != nil {
			return 0, 0, err
		}
	}
	db.callers.putToken(hash, tokenEntry{tenantID: tenantID, userID: t.UserID, expires: t.ExpiresAt, gen: gen, at: now})
	return tenantID, t.UserID, nil
}

// RevokeToken ends a token of this tenant; revoking an unknown token is not an error.
func (s Scope) RevokeToken(ctx context.Context, token string) error {
	tenantID, hash, err := auth.ParseToken(token)
	if err != nil || tenantID != s.TenantID {
		return nil
	}
	return s.Tx(ctx, func(tx Scope) error {
		t := &APIToken{}
		err := tx.Select(t).Where("token_hash = ? AND revoked_at IS NULL", hash).Scan(ctx)
		if err != nil {
			return ignoreNotFound(notFound(err))
		}
		if _, err := tx.Update((*APIToken)(nil)).Set("revoked_at = ?", time.Now().UTC()).
			Where("token_hash = ? AND revoked_at IS NULL", hash).Exec(ctx); err != nil {
			return err
		}
		return tx.LogSecurity(ctx, SecTokenRevoked, t.UserID, "")
	})
}

// keepHash is the stored hash of an API token of the tenant, or "" for none or another's.
func keepHash(token string, tenantID int64) string {
	if token == "" {
		return ""
	}
	t, hash, err := auth.ParseToken(token)
	if err != nil || t != tenantID {
		return ""
	}
	return hash
}

// TokenLifetimes are the lifetimes a named token may be given, in days (0: never expires).
var TokenLifetimes = []int{30, 90, 365, 0}

// NewAPIToken is a token a user makes on their profile: a name and a lifetime in days
// (one of TokenLifetimes).
type NewAPIToken struct {
	Name string `json:"name"`
	Days int    `json:"expires_in_days"`
}

// CreatedAPIToken is a new named token with its secret, shown this once.
type CreatedAPIToken struct {
	APIToken
	Token string `json:"token"`
}

// CreateAPIToken makes a named API token for the scope's user; only its hash is kept.
func (s Scope) CreateAPIToken(ctx context.Context, in NewAPIToken) (*CreatedAPIToken, error) {
	in.Name = strings.TrimSpace(in.Name)
	errs := validate.Errors{}
	errs.Check(validate.Required(in.Name), "name", validate.KeyRequired)
	errs.Check(validate.NoHTML(in.Name), "name", validate.KeyHTMLNotAllowed)
	errs.Check(validate.MaxLen(in.Name, 100), "name", validate.KeyMaxLength)
	errs.Check(slices.Contains(TokenLifetimes, in.Days), "expires_in_days", validate.KeyInvalid)
	if len(errs) > 0 {
		return nil, errs
	}
	token, hash := auth.NewToken(s.TenantID)
	t := &APIToken{UserID: s.UserID, TokenHash: hash, Name: in.Name}
	if in.Days > 0 {
		exp := time.Now().UTC().Add(time.Duration(in.Days) * 24 * time.Hour)
		t.ExpiresAt = &exp
	}
	err := s.Tx(ctx, func(tx Scope) error {
		if _, err := tx.Insert(t).Returning("id, created_at").Exec(ctx); err != nil {
			return err
		}
		return tx.LogSecurity(ctx, SecTokenCreated, tx.UserID, in.Name)
	})
	if err != nil {
		return nil, err
	}
	return &CreatedAPIToken{APIToken: *t, Token: token}, nil
}

// APITokens lists the scope's user's named tokens that have not been revoked, newest
// first (expired ones too, marked by their expiry, until revoked).
func (s Scope) APITokens(ctx context.Context) ([]APIToken, error) {
	out := []APIToken{}
	err := s.Select(&out).Where("user_id = ? AND name <> '' AND revoked_at IS NULL", s.UserID).
		OrderExpr("tok.created_at DESC, tok.id DESC").Limit(200).Scan(ctx)
	return out, err
}

// APIToken is one of the scope's user's named tokens (ErrNotFound for anyone else's).
func (s Scope) APIToken(ctx context.Context, id int64) (*APIToken, error) {
	t := &APIToken{}
	err := s.Select(t).Where("id = ? AND user_id = ? AND name <> '' AND revoked_at IS NULL", id, s.UserID).Scan(ctx)
	return t, notFound(err)
}

// RevokeAPIToken revokes one of the scope's user's named tokens; ErrNotFound for another
// user's, another tenant's or one already revoked.
func (s Scope) RevokeAPIToken(ctx context.Context, id int64) error {
	return s.Tx(ctx, func(tx Scope) error {
		t, err := tx.APIToken(ctx, id)
		if err != nil {
			return err
		}
		if _, err := tx.Update((*APIToken)(nil)).Set("revoked_at = ?", time.Now().UTC()).Where("id = ?", t.ID).Exec(ctx); err != nil {
			return err
		}
		return tx.LogSecurity(ctx, SecTokenRevoked, tx.UserID, t.Name)
	})
}
