package session

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/web"
	authview "crm/views/auth"
)

// signIn checks an email and password under the throttle and returns the account.
func (h *Handler) signIn(ctx context.Context, email, password, ip string) (*store.Login, error) {
	account := strings.ToLower(strings.TrimSpace(email))
	if wait := h.throttle.Wait(account, ip); wait > 0 {
		secs := int(math.Ceil(wait.Seconds()))
		return nil, &web.Error{Status: http.StatusTooManyRequests, MsgID: "auth.throttled", Args: []any{"Seconds", secs}}
	}
	login, err := h.db.FindLogin(ctx, account)
	switch {
	case errors.Is(err, store.ErrNotFound):
		auth.CheckNoAccount(password)
	case err != nil:
		return nil, err
	case login.User.Active && auth.CheckPassword(password, login.User.PasswordHash):
		h.throttle.Succeed(account)
		// A tenant that signs in only through its provider refuses the password, except to
		// its Administrators (store.PasswordAllowed: the break-glass way in).
		if ok, err := h.db.PasswordAllowed(ctx, login); err != nil {
			return nil, err
		} else if !ok {
			return nil, &web.Error{Status: http.StatusForbidden, MsgID: "sso.passwordRefused"}
		}
		if login.User.TwoFactor() {
			return login, nil // signed in once the second step passes (two_factor.go)
		}
		if err := h.db.NoteSignIn(ctx, login.TenantID, login.User.ID, true); err != nil {
			return nil, err
		}
		return login, nil
	default:
		if err := h.db.NoteSignIn(ctx, login.TenantID, login.User.ID, false); err != nil {
			return nil, err
		}
	}
	h.throttle.Fail(account, ip)
	return nil, &web.Error{Status: http.StatusUnauthorized, MsgID: "auth.invalid"}
}

func (h *Handler) LoginPage(w http.ResponseWriter, r *http.Request) {
	// No next: the user's landing page, known once they are signed in.
	next := web.SafeNext(r.URL.Query().Get("next"), "")
	if p := web.Caller(r); p != nil {
		http.Redirect(w, r, web.SafeNext(next, h.web.Landing(p)), http.StatusSeeOther)
		return
	}
	h.web.Bare(w, r, http.StatusOK, "", authview.Login(authview.LoginForm{Next: next}))
}

func (h *Handler) LoginSubmit(w http.ResponseWriter, r *http.Request) {
	h.formSignIn(w, r, authview.LoginForm{}, false, func(status int, f authview.LoginForm) {
		h.web.Bare(w, r, status, "", authview.Login(f))
	})
}

// formSignIn signs in from a posted sign-in form (long: the mobile lead manager's long
// session) and goes to the form's next page; a refusal shows the form again through
// again, with the reason (and Retry-After when throttled).
func (h *Handler) formSignIn(w http.ResponseWriter, r *http.Request, form authview.LoginForm, long bool,
	again func(status int, f authview.LoginForm)) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		h.web.Fail(w, r, web.BadRequest("error.form", err))
		return
	}
	form.Email, form.Next = r.PostForm.Get("email"), web.SafeNext(r.PostForm.Get("next"), form.Next)
	login, err := h.signIn(r.Context(), form.Email, r.PostForm.Get("password"), web.ClientIP(r))
	if err != nil {
		var he *web.Error
		if !errors.As(err, &he) {
			h.web.Fail(w, r, err)
			return
		}
		form.Error = web.Message(r, he)
		if he.Status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", strconv.Itoa(he.Args[1].(int)))
		}
		again(he.Status, form)
		return
	}
	if login.User.TwoFactor() {
		// The password was right; the code comes next, on a page of its own.
		if err := h.beginSecondStep(r, login, long, form.Next); err != nil {
			h.web.Fail(w, r, err)
			return
		}
		http.Redirect(w, r, twoFactorPath, http.StatusSeeOther)
		return
	}
	h.finishSignIn(w, r, login.TenantID, login.User.ID, long, form.Next)
}

// finishSignIn starts the browser session of a user who passed every step and goes to
// next, or to the first page their role may see.
func (h *Handler) finishSignIn(w http.ResponseWriter, r *http.Request, tenantID, userID int64, long bool, next string) {
	if err := h.web.StartSession(r, tenantID, userID, long); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	var err error
	form := authview.LoginForm{Next: next}
	if form.Next == "" {
		// Nowhere asked for: the first page the user's role may see.
		if form.Next, err = h.web.LandingFor(r.Context(), tenantID, userID); err != nil {
			h.web.Fail(w, r, err)
			return
		}
	}
	http.Redirect(w, r, form.Next, http.StatusSeeOther)
}

func (h *Handler) Logout(w http.ResponseWriter, r *http.Request) {
	if err := h.web.EndSession(r.Context()); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

type loginRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

type loginData struct {
	Token  string        `json:"token"`
	User   *store.User   `json:"user"`
	Tenant *store.Tenant `json:"tenant"`
}

func (h *Handler) APILogin(w http.ResponseWriter, r *http.Request) {
	var req loginRequest
	if err := web.DecodeJSON(w, r, &req); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	login, err := h.signIn(r.Context(), req.Email, req.Password, web.ClientIP(r))
	if err != nil {
		var he *web.Error
		if errors.As(err, &he) && he.Status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", strconv.Itoa(he.Args[1].(int)))
		}
		h.web.Fail(w, r, err)
		return
	}
	if login.User.TwoFactor() {
		challenge, err := h.db.CreateLoginChallenge(r.Context(), login.TenantID, login.User.ID)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		h.web.OK(w, r, http.StatusOK, "twoFactor.challenge", challengeData{TwoFactorRequired: true, Challenge: challenge})
		return
	}
	h.issueToken(w, r, login.TenantID, login.User)
}

// issueToken answers a finished API sign-in: a new token, the user and the tenant.
func (h *Handler) issueToken(w http.ResponseWriter, r *http.Request, tenantID int64, u *store.User) {
	token, err := h.db.System(tenantID, u.ID).CreateToken(r.Context(), u.ID)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	tenant, err := h.db.TenantByID(r.Context(), tenantID)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "auth.signedIn", loginData{Token: token, User: u, Tenant: tenant})
}

func (h *Handler) APILogout(w http.ResponseWriter, r *http.Request) {
	p := web.Caller(r)
	if p.Token != "" {
		if err := p.Scope().RevokeToken(r.Context(), p.Token); err != nil {
			h.web.Fail(w, r, err)
			return
		}
	} else if err := h.web.EndSession(r.Context()); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "auth.signedOut", nil)
}

type meData struct {
	User        *store.User                   `json:"user"`
	Tenant      *store.Tenant                 `json:"tenant"`
	Locale      string                        `json:"locale"`
	Permissions map[auth.Feature]allowedGrant `json:"permissions"`
}

func (h *Handler) APIMe(w http.ResponseWriter, r *http.Request) {
	p := web.Caller(r)
	h.web.OK(w, r, http.StatusOK, "ok", meData{User: p.User, Tenant: p.Tenant, Locale: web.Locale(r), Permissions: allowedGrants(p.Perms)})
}

type allowedData struct {
	Features    []auth.Feature                `json:"features"`
	Permissions map[auth.Feature]allowedGrant `json:"permissions"`
}

// allowedGrant is a grant as get-allow-feature has always told it (an allowed flag per
// action and the feature's record scope, its view scope), with the scope of each action.
type allowedGrant struct {
	View   bool             `json:"view"`
	Create bool             `json:"create"`
	Update bool             `json:"update"`
	Delete bool             `json:"delete"`
	Export bool             `json:"export"`
	Import bool             `json:"import"`
	Scope  auth.RecordScope `json:"scope"`
	Scopes auth.Grant       `json:"scopes"`
}

func (h *Handler) AllowedFeatures(w http.ResponseWriter, r *http.Request) {
	p := web.Caller(r)
	features := p.Perms.Allowed()
	if features == nil {
		features = []auth.Feature{}
	}
	h.web.OK(w, r, http.StatusOK, "ok", allowedData{Features: features, Permissions: allowedGrants(p.Perms)})
}

// allowedGrants are the caller's grants as the API tells them: the features with at least
// one action.
func allowedGrants(perms auth.Permissions) map[auth.Feature]allowedGrant {
	grants := map[auth.Feature]allowedGrant{}
	for _, f := range perms.Allowed() {
		g := perms[f].Normal()
		grants[f] = allowedGrant{View: g.Allows(auth.View), Create: g.Allows(auth.Create), Update: g.Allows(auth.Update),
			Delete: g.Allows(auth.Delete), Export: g.Allows(auth.Export), Import: g.Allows(auth.Import), Scope: g.View, Scopes: g}
	}
	return grants
}
