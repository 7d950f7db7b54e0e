package store

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// Kinds of security log entries.
const (
	SecSignIn          = "sign_in"
	SecSignInFailed    = "sign_in_failed"
	SecUserCreated     = "user_created"
	SecUserInvited     = "user_invited"
	SecUserChanged     = "user_changed"
	SecUserActivated   = "user_activated"
	SecUserDeactivated = "user_deactivated"
	SecUserDeleted     = "user_deleted"
	SecPasswordSet     = "password_set"
	SecTokenCreated    = "token_created"
	SecTokenRevoked    = "token_revoked"
	SecTwoFactor       = "two_factor_changed"
	SecRoleChanged     = "role_changed"
)

// SecurityEntry is one line of the tenant's security log. Failed sign-ins for an email
// without an account have no tenant and are not kept (the throttle still counts them).
type SecurityEntry struct {
	bun.BaseModel `bun:"table:security_log,alias:sl"`
	Owned

	ID            int64     `bun:"id,pk,autoincrement" json:"id"`
	Kind          string    `bun:"kind,notnull" json:"kind"`
	ActorUserID   *int64    `bun:"actor_user_id" json:"actor_user_id"`
	SubjectUserID *int64    `bun:"subject_user_id" json:"subject_user_id"`
	Detail        string    `bun:"detail,notnull" json:"detail"`
	CreatedAt     time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp" json:"created_at"`
}

// LogSecurity writes a security log entry: kind is one of the Sec* kinds (other areas may
// add their own, such as role changes), subjectUserID the user it concerns (0 for none),
// the actor the scope's user.
func (s Scope) LogSecurity(ctx context.Context, kind string, subjectUserID int64, detail string) error {
	e := &SecurityEntry{Kind: kind, Detail: detail}
	if s.UserID != 0 {
		uid := s.UserID
		e.ActorUserID = &uid
	}
	if subjectUserID != 0 {
		e.SubjectUserID = &subjectUserID
	}
	_, err := s.Insert(e).Exec(ctx)
	return err
}

// SecurityLog is one page of the tenant's security log, newest first, and the total.
func (s Scope) SecurityLog(ctx context.Context, page, limit int64) ([]SecurityEntry, int64, error) {
	if limit <= 0 || limit > 100 {
		limit = 50
	}
	if page <= 0 {
		page = 1
	}
	out := []SecurityEntry{}
	n, err := s.Select(&out).OrderExpr("sl.id DESC").Limit(limit).Offset((page - 1) * limit).ScanAndCount(ctx)
	return out, n, err
}

// NoteSignIn records a sign-in attempt on a known account: a success stamps the user's
// last sign-in, and either lands in the tenant's security log.
func (db *DB) NoteSignIn(ctx context.Context, tenantID, userID int64, ok bool) error {
	s := db.System(tenantID, userID)
	if !ok {
		return s.LogSecurity(ctx, SecSignInFailed, userID, "")
	}
	return s.Tx(ctx, func(tx Scope) error {
		if _, err := tx.Update((*User)(nil)).Set("last_sign_in_at = ?", time.Now().UTC()).Where("id = ?", userID).Exec(ctx); err != nil {
			return err
		}
		return tx.LogSecurity(ctx, SecSignIn, userID, "")
	})
}
