package web

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"time"

	"crm/app/store"
)

// Session keys.
const (
	sessUserID   = "user_id"
	sessTenantID = "tenant_id"
	sessSeen     = "seen_at"
	sessLong     = "long"
	sessFlash    = "flash"
)

// StartSession rotates the session token (no fixation) and stores the caller in it; a
// long session (the mobile lead manager's) lasts MobileSessionLifetime. The session is
// recorded as the user's (the browser and address), so they can list it on their profile
// and sign it out from elsewhere.
func (k *Kit) StartSession(r *http.Request, tenantID, userID int64, long bool) error {
	ctx := r.Context()
	if err := k.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	if err := k.DB.System(tenantID, userID).NoteSession(ctx, k.sessionKey(ctx), r.UserAgent(), ClientIP(r)); err != nil {
		return err
	}
	k.Sessions.Put(ctx, sessUserID, userID)
	k.Sessions.Put(ctx, sessTenantID, tenantID)
	k.Sessions.Put(ctx, sessSeen, time.Now().UnixMilli())
	if long {
		k.Sessions.Put(ctx, sessLong, true)
		k.Sessions.SetDeadline(ctx, time.Now().Add(k.Config.MobileSessionLifetime))
	}
	return nil
}

// Keep is the caller's own session, which "sign out everywhere" spares: the API token
// the request came with, or its browser session.
func (k *Kit) Keep(r *http.Request) store.Keep {
	if p := Caller(r); p != nil && p.Token != "" {
		return store.Keep{APIToken: p.Token}
	}
	return store.Keep{SessionToken: k.sessionKey(r.Context())}
}

// sessionKey is the session's key in the sessions table: the store keeps the cookie's
// token hashed (HashTokenInStore), as scs hashes it; "" without a session.
func (k *Kit) sessionKey(ctx context.Context) string {
	token := k.Sessions.Token(ctx)
	if token == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// EndSession signs the browser out.
func (k *Kit) EndSession(ctx context.Context) error { return k.Sessions.Destroy(ctx) }

// Flash keeps a translated message for the next page the user sees.
func (k *Kit) Flash(r *http.Request, msgID string, args ...any) {
	k.Sessions.Put(r.Context(), sessFlash, T(r, msgID, args...))
}

// Authenticate finds the caller from an API token or the session cookie and puts the
// principal in the context. It never refuses: RequireAuth does.
func (k *Kit) Authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		var tenantID, userID int64
		var token string
		if h := strings.TrimSpace(r.Header.Get("Authorization")); h != "" {
			token = strings.TrimSpace(strings.TrimPrefix(h, "Bearer "))
			var err error
			tenantID, userID, err = k.DB.TokenUser(ctx, token)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				k.Fail(w, r, err)
				return
			}
		} else if uid := k.Sessions.GetInt64(ctx, sessUserID); uid != 0 {
			if k.sessionIdleExpired(ctx) || k.Sessions.Deadline(ctx).Before(time.Now()) {
				_ = k.Sessions.Destroy(ctx)
			} else {
				tenantID, userID = k.Sessions.GetInt64(ctx, sessTenantID), uid
				k.touchSession(ctx)
			}
		}
		if userID != 0 {
			p, err := k.loadPrincipal(ctx, tenantID, userID)
			switch {
			case err == nil:
				p.Token = token
				ctx = WithPrincipal(ctx, p)
			case errors.Is(err, store.ErrNotFound):
				if token == "" {
					_ = k.Sessions.Destroy(ctx)
				}
			default:
				k.Fail(w, r, err)
				return
			}
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// Both timeouts end a session the same way: it is destroyed, the request is served as
// anonymous, and RequireAuth sends the browser to sign in with the page in `next`. The
// absolute one is also the session row's expiry, so the store no longer finds it.

// sessionIdleExpired applies the idle timeout: the configured one, or the long one of a
// mobile sign-in.
func (k *Kit) sessionIdleExpired(ctx context.Context) bool {
	seen := k.Sessions.GetInt64(ctx, sessSeen)
	idle := k.Config.SessionIdle
	if k.Sessions.GetBool(ctx, sessLong) {
		idle = k.Config.MobileSessionLifetime
	}
	return seen != 0 && idle > 0 && time.Since(time.UnixMilli(seen)) > idle
}

// touchSession records activity for the idle timeout, but writes the session at most once
// per quarter of the idle limit (and at most once a minute), not on every request.
func (k *Kit) touchSession(ctx context.Context) {
	seen := k.Sessions.GetInt64(ctx, sessSeen)
	every := min(time.Minute, k.Config.SessionIdle/4)
	if time.Since(time.UnixMilli(seen)) >= every {
		k.Sessions.Put(ctx, sessSeen, time.Now().UnixMilli())
	}
}

func (k *Kit) loadPrincipal(ctx context.Context, tenantID, userID int64) (*Principal, error) {
	u, t, perms, err := k.DB.Caller(ctx, tenantID, userID)
	if err != nil {
		return nil, err
	}
	if !u.Active {
		return nil, store.ErrNotFound
	}
	return NewPrincipal(k.DB, t, u, perms), nil
}
