package store

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// userSession ties a browser session (its key in the global sessions table: the hash of
// the cookie's token) to its user, so the user can list their sessions and end the others.
type userSession struct {
	bun.BaseModel `bun:"table:user_sessions,alias:us"`
	Owned

	ID           int64     `bun:"id,pk,autoincrement"`
	UserID       int64     `bun:"user_id,notnull"`
	SessionToken string    `bun:"session_token,notnull"`
	UserAgent    string    `bun:"user_agent,notnull"`
	IP           string    `bun:"ip,notnull"`
	CreatedAt    time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp"`
}

// Keep names the session a "sign out everywhere" spares: the caller's own browser
// session (its token) or API token.
type Keep struct {
	SessionToken string
	APIToken     string
}

// NoteSession records a browser sign-in of the scope's user (the session's token, the
// browser, the address) and forgets the user's sessions that have ended meanwhile.
func (s Scope) NoteSession(ctx context.Context, sessionToken, userAgent, ip string) error {
	if len(userAgent) > 300 {
		userAgent = userAgent[:300]
	}
	return s.Tx(ctx, func(tx Scope) error {
		live := tx.idb.NewSelect().Model((*session)(nil)).Column("token").Where("expiry_ms > ?", time.Now().UnixMilli())
		if _, err := tx.Delete((*userSession)(nil)).Where("user_id = ? AND session_token NOT IN (?)", tx.UserID, live).Exec(ctx); err != nil {
			return err
		}
		_, err := tx.Insert(&userSession{UserID: tx.UserID, SessionToken: sessionToken, UserAgent: userAgent, IP: ip}).
			On("CONFLICT (tenant_id, session_token) DO NOTHING").Exec(ctx)
		return err
	})
}

// Session is one of a user's ways in that is still live: a browser sign-in or an API
// sign-in token.
type Session struct {
	Kind      string     `json:"kind"` // "browser" or "api"
	CreatedAt time.Time  `json:"created_at"`
	LastSeen  *time.Time `json:"last_used_at"`
	UserAgent string     `json:"user_agent"`
	IP        string     `json:"ip"`
	Current   bool       `json:"current"`
}

// Sessions lists the scope's user's live sessions, newest first; keep marks the current one.
func (s Scope) Sessions(ctx context.Context, keep Keep) ([]Session, error) {
	var rows []userSession
	err := s.Select(&rows).Where("user_id = ?", s.UserID).
		Where("session_token IN (?)", s.idb.NewSelect().Model((*session)(nil)).Column("token").Where("expiry_ms > ?", time.Now().UnixMilli())).
		OrderExpr("us.created_at DESC, us.id DESC").Limit(100).Scan(ctx)
	if err != nil {
		return nil, err
	}
	out := []Session{}
	for _, r := range rows {
		out = append(out, Session{Kind: "browser", CreatedAt: r.CreatedAt, UserAgent: r.UserAgent, IP: r.IP,
			Current: keep.SessionToken != "" && r.SessionToken == keep.SessionToken})
	}
	var toks []APIToken
	now := time.Now().UTC()
	err = s.Select(&toks).Where("user_id = ? AND name = '' AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)", s.UserID, now).
		OrderExpr("tok.created_at DESC, tok.id DESC").Limit(100).Scan(ctx)
	if err != nil {
		return nil, err
	}
	current := keepHash(keep.APIToken, s.TenantID)
	for _, t := range toks {
		out = append(out, Session{Kind: "api", CreatedAt: t.CreatedAt, LastSeen: t.LastUsedAt, Current: current != "" && t.TokenHash == current})
	}
	return out, nil
}

// SignOutEverywhere ends every session of the scope's user but keep: browser sessions and
// API sign-in tokens (tokens the user named on their profile stay). It returns how many
// ended.
func (s Scope) SignOutEverywhere(ctx context.Context, keep Keep) (int, error) {
	var n int
	err := s.Tx(ctx, func(tx Scope) error {
		var err error
		if n, err = tx.signOutOthers(ctx, tx.UserID, keep); err != nil {
			return err
		}
		return tx.LogSecurity(ctx, SecSignedOutOthers, tx.UserID, "")
	})
	return n, err
}

// signOutOthers ends the user's browser sessions and API sign-in tokens but keep's.
func (s Scope) signOutOthers(ctx context.Context, userID int64, keep Keep) (int, error) {
	var tokens []string
	q := s.Select((*userSession)(nil)).Column("session_token").Where("user_id = ?", userID)
	if keep.SessionToken != "" {
		q = q.Where("session_token <> ?", keep.SessionToken)
	}
	if err := q.Scan(ctx, &tokens); err != nil {
		return 0, err
	}
	n := 0
	if len(tokens) > 0 {
		res, err := s.idb.NewDelete().Model((*session)(nil)).Where("token IN (?)", bun.In(tokens)).Exec(ctx)
		if err != nil {
			return 0, err
		}
		m, _ := res.RowsAffected()
		n += int(m)
		if _, err := s.Delete((*userSession)(nil)).Where("user_id = ? AND session_token IN (?)", userID, bun.In(tokens)).Exec(ctx); err != nil {
			return 0, err
		}
	}
	up := s.Update((*APIToken)(nil)).Set("revoked_at = ?", time.Now().UTC()).
		Where("user_id = ? AND name = '' AND revoked_at IS NULL", userID)
	if h := keepHash(keep.APIToken, s.TenantID); h != "" {
		up = up.Where("token_hash <> ?", h)
	}
	res, err := up.Exec(ctx)
	if err != nil {
		return 0, err
	}
	m, _ := res.RowsAffected()
	return n + int(m), nil
}
