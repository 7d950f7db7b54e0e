package store

import (
	"context"
	"time"

	"crm/app/auth"
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
	t := &APIToken{}
	err = db.System(tenantID, 0).Select(t).Where("token_hash = ? AND revoked_at IS NULL", hash).Scan(ctx)
	if err != nil {
		return 0, 0, notFound(err)
	}
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
