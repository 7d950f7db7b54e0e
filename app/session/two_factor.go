package session

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"crm/app/store"
	"crm/app/web"
	authview "crm/views/auth"
)

// The second step of signing in, for a user with two-factor sign-in: after the right
// password the browser session holds who is signing in (not yet a caller) for
// store.ChallengeTTL, and /login/two-factor asks for a code or a recovery code; the API
// answers the password with a challenge that POST /v1/api/auth/login/two-factor redeems.
// Wrong codes count against the same throttle as wrong passwords, per user and address.

const twoFactorPath = "/login/two-factor"

// Session keys of a sign-in waiting for its second step.
const (
	pendUser   = "tfa_user"
	pendTenant = "tfa_tenant"
	pendAt     = "tfa_at"
	pendLong   = "tfa_long"
	pendNext   = "tfa_next"
)

// beginSecondStep keeps the sign-in waiting for its code; the session token is renewed,
// as at any change of privilege.
func (h *Handler) beginSecondStep(r *http.Request, login *store.Login, long bool, next string) error {
	ctx := r.Context()
	if err := h.web.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	h.web.Sessions.Put(ctx, pendUser, login.User.ID)
	h.web.Sessions.Put(ctx, pendTenant, login.TenantID)
	h.web.Sessions.Put(ctx, pendAt, time.Now().UnixMilli())
	h.web.Sessions.Put(ctx, pendLong, long)
	h.web.Sessions.Put(ctx, pendNext, next)
	return nil
}

// pending is the sign-in waiting for its second step, if any and not expired.
func (h *Handler) pending(r *http.Request) (tenantID, userID int64, ok bool) {
	ctx := r.Context()
	userID, tenantID = h.web.Sessions.GetInt64(ctx, pendUser), h.web.Sessions.GetInt64(ctx, pendTenant)
	at := h.web.Sessions.GetInt64(ctx, pendAt)
	if userID == 0 || tenantID == 0 || time.Since(time.UnixMilli(at)) > store.ChallengeTTL {
		h.clearPending(r)
		return 0, 0, false
	}
	return tenantID, userID, true
}

func (h *Handler) clearPending(r *http.Request) {
	for _, k := range []string{pendUser, pendTenant, pendAt, pendLong, pendNext} {
		h.web.Sessions.Remove(r.Context(), k)
	}
}

// codeKey is the throttle's key for a user's second-step codes.
func codeKey(tenantID, userID int64) string {
	return "2fa:" + strconv.FormatInt(tenantID, 10) + ":" + strconv.FormatInt(userID, 10)
}

// checkCode checks a second-step code under the throttle: 429 while throttled, 401 for
// a wrong, used or replayed code.
func (h *Handler) checkCode(r *http.Request, tenantID, userID int64, code string) error {
	key, ip := codeKey(tenantID, userID), web.ClientIP(r)
	if wait := h.throttle.Wait(key, ip); wait > 0 {
		return &web.Error{Status: http.StatusTooManyRequests, MsgID: "auth.throttled", Args: []any{"Seconds", int(math.Ceil(wait.Seconds()))}}
	}
	err := h.db.CheckSecondFactor(r.Context(), tenantID, userID, code)
	switch {
	case errors.Is(err, store.ErrWrongCode):
		h.throttle.Fail(key, ip)
		return &web.Error{Status: http.StatusUnauthorized, MsgID: "twoFactor.wrongCode"}
	case errors.Is(err, store.ErrNotFound):
		return &web.Error{Status: http.StatusUnauthorized, MsgID: "twoFactor.expired"}
	case err != nil:
		return err
	}
	h.throttle.Succeed(key)
	return h.db.NoteSignIn(r.Context(), tenantID, userID, true)
}

// TwoFactorPage is GET /login/two-factor: the code form of a sign-in waiting for it, or
// back to sign in.
func (h *Handler) TwoFactorPage(w http.ResponseWriter, r *http.Request) {
	if _, _, ok := h.pending(r); !ok {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	h.web.Bare(w, r, http.StatusOK, "", authview.TwoFactor(authview.TwoFactorForm{}))
}

// TwoFactorSubmit is POST /login/two-factor: the code (or a recovery code) finishes the
// sign-in; a wrong one shows the form again with the reason.
func (h *Handler) TwoFactorSubmit(w http.ResponseWriter, r *http.Request) {
	tenantID, userID, ok := h.pending(r)
	if !ok {
		h.web.Flash(r, "twoFactor.expired")
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	err := h.checkCode(r, tenantID, userID, r.PostFormValue("code"))
	var he *web.Error
	if errors.As(err, &he) {
		if he.Status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", strconv.Itoa(he.Args[1].(int)))
		}
		h.web.Bare(w, r, he.Status, "", authview.TwoFactor(authview.TwoFactorForm{Error: web.Message(r, he)}))
		return
	} else if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	ctx := r.Context()
	long, next := h.web.Sessions.GetBool(ctx, pendLong), h.web.Sessions.GetString(ctx, pendNext)
	h.clearPending(r)
	h.finishSignIn(w, r, tenantID, userID, long, next)
}

type twoFactorRequest struct {
	Challenge string `json:"challenge"`
	Code      string `json:"code"`
}

type challengeData struct {
	TwoFactorRequired bool   `json:"two_factor_required"`
	Challenge         string `json:"challenge"`
}

// APILoginTwoFactor is POST /v1/api/auth/login/two-factor: a live challenge from
// auth/login and a code (or recovery code) give the sign-in's token. The challenge works
// once and for store.ChallengeTTL; a wrong code leaves it for another try, throttled.
func (h *Handler) APILoginTwoFactor(w http.ResponseWriter, r *http.Request) {
	var req twoFactorRequest
	if err := web.DecodeJSON(w, r, &req); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	expired := &web.Error{Status: http.StatusUnauthorized, MsgID: "twoFactor.expired"}
	tenantID, userID, err := h.db.LoginChallengeUser(r.Context(), req.Challenge)
	if errors.Is(err, store.ErrNotFound) {
		h.web.Fail(w, r, expired)
		return
	} else if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if err := h.checkCode(r, tenantID, userID, req.Code); err != nil {
		var he *web.Error
		if errors.As(err, &he) && he.Status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", strconv.Itoa(he.Args[1].(int)))
		}
		h.web.Fail(w, r, err)
		return
	}
	if err := h.db.SpendLoginChallenge(r.Context(), req.Challenge); errors.Is(err, store.ErrNotFound) {
		h.web.Fail(w, r, expired)
		return
	} else if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	u, err := h.db.System(tenantID, userID).User(r.Context(), userID)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.issueToken(w, r, tenantID, u)
}
