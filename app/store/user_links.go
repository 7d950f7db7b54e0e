package store

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"crm/app/auth"
	"crm/app/validate"
)

// Purposes of a single-use link and how long each lives.
const (
	LinkInvite = "invite"
	LinkReset  = "reset"

	InviteTTL = 7 * 24 * time.Hour
	ResetTTL  = time.Hour
)

// userLink is a single-use link that lets its user set a password; only the hash of its
// secret is kept.
type userLink struct {
	bun.BaseModel `bun:"table:user_links,alias:ul"`
	Owned

	ID        int64      `bun:"id,pk,autoincrement"`
	UserID    int64      `bun:"user_id,notnull"`
	Purpose   string     `bun:"purpose,notnull"`
	TokenHash string     `bun:"token_hash,notnull"`
	ExpiresAt time.Time  `bun:"expires_at,notnull"`
	UsedAt    *time.Time `bun:"used_at"`
	CreatedAt time.Time  `bun:"created_at,nullzero,notnull,default:current_timestamp"`
}

// CreateUserLink issues a link token ("<tenant>.<secret>") for a user of the tenant.
func (s Scope) CreateUserLink(ctx context.Context, userID int64, purpose string) (string, error) {
	ttl := InviteTTL
	if purpose == LinkReset {
		ttl = ResetTTL
	}
	token, hash := auth.NewToken(s.TenantID)
	l := &userLink{UserID: userID, Purpose: purpose, TokenHash: hash, ExpiresAt: time.Now().UTC().Add(ttl)}
	if _, err := s.Insert(l).Exec(ctx); err != nil {
		return "", err
	}
	kind := SecUserInvited
	if purpose == LinkReset {
		kind = "password_reset_requested"
	}
	return token, s.LogSecurity(ctx, kind, userID, "")
}

// UserLinkOwner is the live link's user, or ErrNotFound for an unknown, used or expired link.
func (db *DB) UserLinkOwner(ctx context.Context, token, purpose string) (*User, error) {
	tenantID, hash, err := auth.ParseToken(token)
	if err != nil {
		return nil, ErrNotFound
	}
	s := db.System(tenantID, 0)
	l := &userLink{}
	err = s.Select(l).Where("token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?", hash, purpose, time.Now().UTC()).Scan(ctx)
	if err != nil {
		return nil, notFound(err)
	}
	u, err := s.User(ctx, l.UserID)
	if err != nil || u.DeletedAt != nil {
		return nil, ErrNotFound
	}
	return u, nil
}

// UseUserLink sets the password through a live link and spends it (and every other link
// of the user for the same purpose). ErrNotFound for an unknown, used or expired link.
func (db *DB) UseUserLink(ctx context.Context, token, purpose, password string) (*User, error) {
	if !validate.Password(password) {
		return nil, validate.Errors{"password": validate.KeyInvalidPassword}
	}
	tenantID, hash, err := auth.ParseToken(token)
	if err != nil {
		return nil, ErrNotFound
	}
	pw, err := auth.HashPassword(password)
	if err != nil {
		return nil, err
	}
	var u *User
	err = db.System(tenantID, 0).Tx(ctx, func(tx Scope) error {
		l := &userLink{}
		err := tx.Select(l).Where("token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?", hash, purpose, time.Now().UTC()).
			Scan(ctx)
		if err != nil {
			return notFound(err)
		}
		now := time.Now().UTC()
		res, err := tx.Update((*userLink)(nil)).Set("used_at = ?", now).
			Where("user_id = ? AND purpose = ? AND used_at IS NULL", l.UserID, purpose).Exec(ctx)
		if err := oneRowOrMore(res, err); err != nil {
			return err
		}
		if _, err := tx.Update((*User)(nil)).Set("password_hash = ?", pw).Set("updated_at = ?", now).
			Where("id = ? AND deleted_at IS NULL", l.UserID).Exec(ctx); err != nil {
			return err
		}
		if u, err = tx.User(ctx, l.UserID); err != nil {
			return err
		}
		tx.UserID = l.UserID
		return tx.LogSecurity(ctx, SecPasswordSet, l.UserID, purpose)
	})
	return u, err
}

// oneRowOrMore turns "nothing changed" into ErrNotFound (the link was spent meanwhile).
func oneRowOrMore(res interface{ RowsAffected() (int64, error) }, err error) error {
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}
