// Package app is the HTTP layer: routes, middleware, handlers and the one place where
// results and errors are rendered as a page, an htmx fragment or the JSON envelope.
package app

import (
	"crm/app/importer"
	"log/slog"
	"net/http"
	"time"

	"github.com/alexedwards/scs/v2"

	"crm/app/assets"
	"crm/app/auth"
	"crm/app/files"
	"crm/app/i18n"
	"crm/app/store"
)

// Config is what an operator can set about the HTTP side.
type Config struct {
	// SecureCookies marks the session cookie Secure; set it when served over HTTPS.
	SecureCookies bool
	// SessionIdle ends a session after this long without a request.
	SessionIdle time.Duration
	// SessionLifetime ends a session this long after sign-in, whatever its use.
	SessionLifetime time.Duration
	// MobileSessionLifetime is the longer idle and absolute limit of a mobile sign-in.
	MobileSessionLifetime time.Duration
	// TrustProxy takes the client address from X-Forwarded-For / X-Real-IP.
	TrustProxy bool
	// ImportPause is a rest between two batches of a CSV import (see importer.Runner).
	ImportPause time.Duration
}

// DefaultConfig is a sensible production configuration.
func DefaultConfig() Config {
	return Config{
		SessionIdle:           2 * time.Hour,
		SessionLifetime:       12 * time.Hour,
		MobileSessionLifetime: 30 * 24 * time.Hour,
	}
}

// Deps are the server's collaborators, passed in explicitly.
type Deps struct {
	Config   Config
	DB       *store.DB
	Log      *slog.Logger
	I18n     *i18n.Bundle
	Assets   *assets.Assets
	Files    files.Store
	Throttle *auth.LoginThrottle // nil: the production policy
}

type server struct {
	cfg      Config
	db       *store.DB
	log      *slog.Logger
	i18n     *i18n.Bundle
	assets   *assets.Assets
	files    files.Store
	sessions *scs.SessionManager
	throttle *auth.LoginThrottle
	metrics  *metrics
	imports  importer.Runner
}

// NewServer builds the whole HTTP handler.
func NewServer(d Deps) http.Handler {
	s := &server{cfg: d.Config, db: d.DB, log: d.Log, i18n: d.I18n, assets: d.Assets, files: d.Files,
		throttle: d.Throttle, metrics: newMetrics(),
		imports: importer.Runner{DB: d.DB, Log: d.Log, Pause: d.Config.ImportPause}}
	if s.throttle == nil {
		s.throttle = auth.NewLoginThrottle()
	}
	if s.cfg.SessionLifetime == 0 {
		s.cfg = DefaultConfig()
		s.cfg.SecureCookies = d.Config.SecureCookies
		s.cfg.TrustProxy = d.Config.TrustProxy
	}
	sm := scs.New()
	sm.Store = d.DB.Sessions()
	sm.Lifetime = s.cfg.SessionLifetime
	sm.HashTokenInStore = true
	sm.Cookie.Name = "crm_session"
	sm.Cookie.HttpOnly = true
	sm.Cookie.SameSite = http.SameSiteLaxMode
	sm.Cookie.Secure = s.cfg.SecureCookies
	sm.Cookie.Persist = true
	sm.ErrorFunc = func(w http.ResponseWriter, r *http.Request, err error) { s.fail(w, r, err) }
	s.sessions = sm
	return s.routes()
}
