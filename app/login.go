package app

import (
	"context"
	"errors"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"crm/app/auth"
	"crm/app/store"
	authview "crm/views/auth"
)

// signIn checks an email and password under the throttle and returns the account.
func (s *server) signIn(ctx context.Context, email, password, ip string) (*store.Login, error) {
	account := strings.ToLower(strings.TrimSpace(email))
	if wait := s.throttle.Wait(account, ip); wait > 0 {
		secs := int(math.Ceil(wait.Seconds()))
		return nil, &httpError{status: http.StatusTooManyRequests, msgID: "auth.throttled", args: []any{"Seconds", secs}}
	}
	login, err := s.db.FindLogin(ctx, account)
	switch {
	case errors.Is(err, store.ErrNotFound):
		auth.CheckNoAccount(password)
	case err != nil:
		return nil, err
	case login.User.Active && auth.CheckPassword(password, login.User.PasswordHash):
		s.throttle.Succeed(account)
		return login, nil
	}
	s.throttle.Fail(account, ip)
	return nil, &httpError{status: http.StatusUnauthorized, msgID: "auth.invalid"}
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// startSession rotates the session token (no fixation) and stores the caller in it.
func (s *server) startSession(ctx context.Context, login *store.Login, long bool) error {
	if err := s.sessions.RenewToken(ctx); err != nil {
		return err
	}
	s.sessions.Put(ctx, sessUserID, login.User.ID)
	s.sessions.Put(ctx, sessTenantID, login.TenantID)
	s.sessions.Put(ctx, sessSeen, time.Now().UnixMilli())
	if long {
		s.sessions.Put(ctx, sessLong, true)
		s.sessions.SetDeadline(ctx, time.Now().Add(s.cfg.MobileSessionLifetime))
	}
	return nil
}

func (s *server) handleLoginPage(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.URL.Query().Get("next"), "/home")
	if principalFrom(r.Context()) != nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	s.bare(w, r, http.StatusOK, "", authview.Login(authview.LoginForm{Next: next}))
}

func (s *server) handleLoginSubmit(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		s.fail(w, r, badRequest("error.form", err))
		return
	}
	form := authview.LoginForm{Email: r.PostForm.Get("email"), Next: safeNext(r.PostForm.Get("next"), "/home")}
	login, err := s.signIn(r.Context(), form.Email, r.PostForm.Get("password"), clientIP(r))
	if err != nil {
		var he *httpError
		if !errors.As(err, &he) {
			s.fail(w, r, err)
			return
		}
		form.Error = s.message(r, he)
		if he.status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", strconv.Itoa(he.args[1].(int)))
		}
		s.bare(w, r, he.status, "", authview.Login(form))
		return
	}
	if err := s.startSession(r.Context(), login, false); err != nil {
		s.fail(w, r, err)
		return
	}
	http.Redirect(w, r, form.Next, http.StatusSeeOther)
}

func (s *server) handleLogout(w http.ResponseWriter, r *http.Request) {
	if err := s.sessions.Destroy(r.Context()); err != nil {
		s.fail(w, r, err)
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

func (s *server) handleAPILogin(w http.ResponseWriter, r *http.Request) {
	var req loginRequest
	if err := decodeJSON(w, r, &req); err != nil {
		s.fail(w, r, err)
		return
	}
	login, err := s.signIn(r.Context(), req.Email, req.Password, clientIP(r))
	if err != nil {
		var he *httpError
		if errors.As(err, &he) && he.status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", strconv.Itoa(he.args[1].(int)))
		}
		s.fail(w, r, err)
		return
	}
	scope := s.db.Tenant(login.TenantID, login.User.ID)
	token, err := scope.CreateToken(r.Context(), login.User.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	tenant, err := s.db.TenantByID(r.Context(), login.TenantID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.ok(w, r, http.StatusOK, "auth.signedIn", loginData{Token: token, User: login.User, Tenant: tenant})
}

func (s *server) handleAPILogout(w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	if p.Token != "" {
		if err := p.Scope(s.db).RevokeToken(r.Context(), p.Token); err != nil {
			s.fail(w, r, err)
			return
		}
	} else if err := s.sessions.Destroy(r.Context()); err != nil {
		s.fail(w, r, err)
		return
	}
	s.ok(w, r, http.StatusOK, "auth.signedOut", nil)
}

type meData struct {
	User        *store.User      `json:"user"`
	Tenant      *store.Tenant    `json:"tenant"`
	Locale      string           `json:"locale"`
	Permissions auth.Permissions `json:"permissions"`
}

func (s *server) handleAPIMe(w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	s.ok(w, r, http.StatusOK, "ok", meData{User: p.User, Tenant: p.Tenant, Locale: localeOf(r), Permissions: p.Perms})
}

type allowedData struct {
	Features    []auth.Feature   `json:"features"`
	Permissions auth.Permissions `json:"permissions"`
}

func (s *server) handleAllowedFeatures(w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	features := p.Perms.Allowed()
	if features == nil {
		features = []auth.Feature{}
	}
	s.ok(w, r, http.StatusOK, "ok", allowedData{Features: features, Permissions: p.Perms})
}
