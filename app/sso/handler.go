// Package sso signs users in with their tenant's OpenID Connect provider (authorization
// code with PKCE, github.com/coreos/go-oidc and golang.org/x/oauth2), so Google, Microsoft
// Entra or Keycloak all work; the spec's path is /auth/google. A tenant configures its
// provider on /settings/sso; its client secret is sealed by app/secret under the server's key.
package sso

import (
	"context"
	ssoview "crm/views/sso"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"crm/app/secret"
	"crm/app/web"
)

// Handler serves the sign-in with a provider and its settings page.
type Handler struct {
	web    *web.Kit
	sealer *secret.Sealer // nil: no CRM_SECRET_KEY, SSO cannot be configured
}

// New is the SSO handler; key is the server's CRM_SECRET_KEY ("" for none).
func New(kit *web.Kit, key string) *Handler { return &Handler{web: kit, sealer: secret.NewSealer(key)} }

// Session keys of a sign-in under way: popped by the callback, so a state works once.
const (
	keyState    = "sso.state"
	keyVerifier = "sso.verifier"
	keyNonce    = "sso.nonce"
	keyTenant   = "sso.tenant"
)

// errRefused is every refused sign-in: the user reads one message, the log says why.
var errRefused = &web.Error{Status: http.StatusForbidden, MsgID: "sso.refused"}

// tenantOf is the tenant a sign-in starts for: the one of ?email= (through the user
// directory) or ?tenant=.
func (h *Handler) tenantOf(r *http.Request) (int64, error) {
	if email := r.URL.Query().Get("email"); email != "" {
		l, err := h.web.DB.FindLogin(r.Context(), email)
		if err != nil {
			return 0, web.ErrNotFound
		}
		return l.TenantID, nil
	}
	id, err := strconv.ParseInt(r.URL.Query().Get("tenant"), 10, 64)
	if err != nil || id <= 0 {
		return 0, web.ErrNotFound
	}
	return id, nil
}

// client is the tenant's provider and OAuth client (discovery on each sign-in: providers
// rotate keys and endpoints, and a sign-in is rare).
func (h *Handler) client(ctx context.Context, r *http.Request, tenantID int64) (*oidc.Provider, *oauth2.Config, error) {
	if h.sealer == nil {
		return nil, nil, web.ErrNotFound
	}
	c, err := h.web.DB.System(tenantID, 0).SSO(ctx)
	if err != nil {
		return nil, nil, web.ErrNotFound // no provider configured: nothing here
	}
	secret, err := h.sealer.Open(c.ClientSecret)
	if err != nil {
		return nil, nil, err
	}
	p, err := oidc.NewProvider(ctx, c.Issuer)
	if err != nil {
		return nil, nil, err
	}
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	return p, &oauth2.Config{ClientID: c.ClientID, ClientSecret: secret, Endpoint: p.Endpoint(),
		RedirectURL: scheme + "://" + r.Host + "/auth/google/callback", Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}, nil
}

func random() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Start is GET /auth/google?email=… (or ?tenant=ID): off to the tenant's provider, with a
// fresh state, nonce and PKCE verifier kept in the session.
func (h *Handler) Start(w http.ResponseWriter, r *http.Request) {
	tenantID, err := h.tenantOf(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	_, cfg, err := h.client(r.Context(), r, tenantID)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	state, nonce, verifier := random(), random(), oauth2.GenerateVerifier()
	ctx := r.Context()
	h.web.Sessions.Put(ctx, keyState, state)
	h.web.Sessions.Put(ctx, keyNonce, nonce)
	h.web.Sessions.Put(ctx, keyVerifier, verifier)
	h.web.Sessions.Put(ctx, keyTenant, tenantID)
	http.Redirect(w, r, cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oidc.Nonce(nonce)), http.StatusSeeOther)
}

// Callback is GET /auth/google/callback: the state must be the session's (once), the code
// is exchanged with the PKCE verifier, the ID token verified (issuer, audience = client id,
// signature, expiry, nonce), its email verified and a user of that tenant.
func (h *Handler) Callback(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	state := h.web.Sessions.PopString(ctx, keyState)
	nonce := h.web.Sessions.PopString(ctx, keyNonce)
	verifier := h.web.Sessions.PopString(ctx, keyVerifier)
	tenantID, _ := h.web.Sessions.Pop(ctx, keyTenant).(int64)
	uid, err := h.signIn(r, state, nonce, verifier, tenantID)
	if err != nil {
		h.web.Logger(r).Warn("sso sign-in refused", "err", err, "tenant", tenantID)
		h.web.Fail(w, r, errRefused)
		return
	}
	if err := h.web.StartSession(r, tenantID, uid, false); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/home", http.StatusSeeOther)
}

// signIn checks the provider's answer and returns the user it signs in.
func (h *Handler) signIn(r *http.Request, state, nonce, verifier string, tenantID int64) (int64, error) {
	q := r.URL.Query()
	if state == "" || q.Get("state") != state {
		return 0, errors.New("state unknown or already used")
	}
	if e := q.Get("error"); e != "" {
		return 0, errors.New("provider: " + e)
	}
	ctx := r.Context()
	p, cfg, err := h.client(ctx, r, tenantID)
	if err != nil {
		return 0, err
	}
	tok, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		return 0, err
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok {
		return 0, errors.New("no id_token")
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: cfg.ClientID}).Verify(ctx, raw)
	if err != nil {
		return 0, err
	}
	if idt.Nonce != nonce {
		return 0, errors.New("nonce mismatch")
	}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified bool   `json:"email_verified"`
	}
	if err := idt.Claims(&claims); err != nil {
		return 0, err
	}
	if !claims.EmailVerified || claims.Email == "" {
		return 0, errors.New("email not verified")
	}
	l, err := h.web.DB.FindLogin(ctx, strings.ToLower(claims.Email))
	if err != nil || l.TenantID != tenantID || !l.User.Active {
		return 0, errors.New("no active user with that email in the tenant")
	}
	return l.User.ID, nil
}

// errNoKey tells the settings page that SSO needs the server's key.
var errNoKey = errors.New("no CRM_SECRET_KEY")

// Seal seals a client secret (errNoKey without a key).
func (h *Handler) seal(secret string) (string, error) {
	if h.sealer == nil {
		return "", errNoKey
	}
	if secret == "" {
		return "", nil
	}
	return h.sealer.Seal(secret), nil
}

// Choose is GET /login/sso?email=…: the provider of the email's tenant, offered as a link
// to /auth/google. An unknown email and a tenant without a provider read the same, so the
// page tells nothing about who has an account.
func (h *Handler) Choose(w http.ResponseWriter, r *http.Request) {
	email := strings.TrimSpace(r.URL.Query().Get("email"))
	c := ssoview.Choice{}
	if l, err := h.web.DB.FindLogin(r.Context(), email); err == nil && h.sealer != nil {
		if cfg, err := h.web.DB.System(l.TenantID, 0).SSO(r.Context()); err == nil {
			c.Provider, c.Href = cfg.ProviderName, "/auth/google?"+url.Values{"email": {email}}.Encode()
		}
	}
	h.web.Bare(w, r, http.StatusOK, web.T(r, "sso.signIn"), ssoview.ChoosePage(c))
}
