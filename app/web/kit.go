// Package web is the HTTP kit every handler package builds on, with no knowledge of any
// resource: rendering (full page, htmx fragment, JSON envelope), the one error classifier,
// the caller (Principal, Scope), parameter and form parsing, sessions and the middleware.
package web

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"

	"crm/app/assets"
	"crm/app/i18n"
	"crm/app/store"
	"crm/views/layout"
)

// Config is what an operator can set about sessions and cookies.
type Config struct {
	// SecureCookies marks cookies Secure; set it when served over HTTPS.
	SecureCookies bool
	// SessionIdle ends a session after this long without a request.
	SessionIdle time.Duration
	// SessionLifetime ends a session this long after sign-in, whatever its use.
	SessionLifetime time.Duration
	// MobileSessionLifetime is the longer idle and absolute limit of a mobile sign-in.
	MobileSessionLifetime time.Duration
	// BaseURL is the public address for links that leave the site (invitations, password
	// resets); empty, the address the request came to.
	BaseURL string
}

// NavEntry is an area of the admin and the permissions that show it in the navigation
// (any one of Needs).
type NavEntry struct {
	LabelID string
	Href    string
	Needs   []Need
}

// Kit is the shared machinery of every handler: built once by the server and passed to
// each handler package.
type Kit struct {
	Config   Config
	DB       *store.DB
	Log      *slog.Logger
	I18n     *i18n.Bundle
	Assets   *assets.Assets
	Sessions *scs.SessionManager
	// Nav is the admin navigation, in menu order.
	Nav []NavEntry
	// ShellHook adds what a resource shows in every signed-in page's shell (the due
	// reminders count); nil for none.
	ShellHook func(r *http.Request, sh *layout.Shell)
}

// NewSessions builds the session manager over the store's sessions table.
func NewSessions(db *store.DB, cfg Config) *scs.SessionManager {
	sm := scs.New()
	sm.Store = db.Sessions()
	sm.Lifetime = cfg.SessionLifetime
	sm.HashTokenInStore = true
	sm.Cookie.Name = "crm_session"
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Secure = cfg.SecureCookies
	sm.Cookie.Persist = true
	return sm
}

// LinkBase is the address links sent to users start with: the configured public address,
// else the one the request came to. A configured address keeps a forged Host header out
// of the links a password reset mails.
func (k *Kit) LinkBase(r *http.Request) string {
	if k.Config.BaseURL != "" {
		return strings.TrimRight(k.Config.BaseURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
