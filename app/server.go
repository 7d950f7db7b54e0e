// Package app is the HTTP layer: routes, middleware, handlers and the one place where
// results and errors are rendered as a page, an htmx fragment or the JSON envelope.
package app

import (
	"crm/app/campaigns"
	"crm/app/clients"
	"crm/app/dashboard"
	"crm/app/documents"
	"crm/app/emails"
	"crm/app/exports"
	"crm/app/importer"
	"crm/app/imports"
	"crm/app/kit"
	"crm/app/leads"
	"crm/app/mail"
	"crm/app/profile"
	"crm/app/reminders"
	"crm/app/roles"
	"crm/app/session"
	"crm/app/settings"
	"crm/app/sso"
	"crm/app/users"
	"log/slog"
	"net/http"
	"time"

	"crm/app/assets"
	"crm/app/auth"
	"crm/app/files"
	"crm/app/i18n"
	"crm/app/secret"
	"crm/app/store"
	"crm/app/web"
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
	// MetricsToken, when set, serves /metrics on the main address to callers bearing it
	// (Authorization: Bearer …); unset, /metrics is not served there.
	MetricsToken string
	// BaseURL is the CRM's public address ("https://crm.example.com") for links sent by
	// mail; empty, links are built from the address a request came to.
	BaseURL string
	// ServerTiming adds a Server-Timing header to every answer: the SQL statements the
	// request ran and their time, and the request's whole time. For development (it tells
	// anyone who looks how the server spends its time); off by default.
	ServerTiming bool
}

// DefaultConfig is a sensible production configuration.
func DefaultConfig() Config {
	return Config{
		SessionIdle:           2 * time.Hour,
		SessionLifetime:       12 * time.Hour,
		MobileSessionLifetime: 30 * 24 * time.Hour,
	}
}

// withDefaults fills each unset duration from DefaultConfig, keeping every field set.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	for _, f := range []struct{ v, def *time.Duration }{
		{&c.SessionIdle, &d.SessionIdle}, {&c.SessionLifetime, &d.SessionLifetime},
		{&c.MobileSessionLifetime, &d.MobileSessionLifetime},
	} {
		if *f.v == 0 {
			*f.v = *f.def
		}
	}
	return c
}

// Deps are the server's collaborators, passed in explicitly.
type Deps struct {
	Config   Config
	DB       *store.DB
	Log      *slog.Logger
	I18n     *i18n.Bundle
	Assets   *assets.Assets
	Files    files.Store
	Imports  *importer.Runner    // required: the process's one import runner
	Throttle *auth.LoginThrottle // nil: the production policy
	Metrics  *web.Metrics        // nil: a registry of the server's own (cmd/crm shares it with --metrics-addr)
	// SecretKey seals secrets at rest (a tenant's SSO client secret); "" leaves SSO off.
	SecretKey string
	// Mailer receives users' links; nil: mail.LinkMailer, which queues them in the outbox
	// when the tenant has a mail server (SMTP settings, else SMTP).
	Mailer users.Mailer
	SMTP   *mail.Server // the server-wide SMTP_URL (nil: none)
	// MailWake asks the mail sender for a sweep now (a message was just queued); nil: none.
	MailWake func()
}

type server struct {
	cfg     Config
	web     *web.Kit
	db      *store.DB
	metrics *web.Metrics
}

// handlers are the resource areas' handlers, each built from exactly what it uses.
type handlers struct {
	session   *session.Handler
	dashboard *dashboard.Handler
	leads     *leads.Handler
	clients   *clients.Handler
	documents *documents.Handler
	reminders *reminders.Handler
	settings  *settings.Handler
	roles     *roles.Handler
	sso       *sso.Handler
	imports   *imports.Handler
	exports   *exports.Handler
	users     *users.Handler
	profile   *profile.Handler
	emails    *emails.Handler
	kit       *kit.Handler
	campaigns *campaigns.Handler
}

// NewServer builds the whole HTTP handler.
func NewServer(d Deps) http.Handler {
	if d.Imports == nil {
		panic("app.NewServer: Deps.Imports is required")
	}
	cfg := d.Config.withDefaults()
	s := &server{cfg: cfg, db: d.DB, metrics: d.Metrics}
	if s.metrics == nil {
		s.metrics = web.NewMetrics()
	}
	throttle := d.Throttle
	if throttle == nil {
		throttle = auth.NewLoginThrottle()
	}
	wcfg := web.Config{SecureCookies: cfg.SecureCookies, SessionIdle: cfg.SessionIdle,
		SessionLifetime: cfg.SessionLifetime, MobileSessionLifetime: cfg.MobileSessionLifetime, BaseURL: cfg.BaseURL}
	s.web = &web.Kit{Config: wcfg, DB: d.DB, Log: d.Log, I18n: d.I18n, Assets: d.Assets,
		Sessions: web.NewSessions(d.DB, wcfg), Nav: navigation}
	s.web.ShellHook = s.dueReminders
	s.web.Sessions.ErrorFunc = func(w http.ResponseWriter, r *http.Request, err error) { s.web.Fail(w, r, err) }
	var mailer users.Mailer = mail.LinkMailer{Sealer: secret.NewSealer(d.SecretKey), Fallback: d.SMTP, Wake: d.MailWake, Log: d.Log}
	if d.Mailer != nil {
		mailer = d.Mailer
	}
	docs := documents.New(s.web, d.Files)
	rem := reminders.New(s.web)
	h := handlers{
		session:   session.New(s.web, d.DB, throttle, cfg.TrustProxy),
		dashboard: dashboard.New(s.web),
		leads:     leads.New(s.web, docs, rem),
		clients:   clients.New(s.web, docs),
		documents: docs,
		reminders: rem,
		settings:  settings.New(s.web),
		roles:     roles.New(s.web),
		sso:       sso.New(s.web, d.SecretKey),
		imports:   imports.New(s.web, d.Imports),
		exports:   exports.New(s.web),
		profile:   profile.New(s.web, d.DB, mailer),
		users:     users.New(s.web, d.DB, mailer),
		emails:    emails.New(s.web, d.SecretKey, d.SMTP, d.MailWake),
		kit:       kit.New(s.web, d.MailWake),
		campaigns: campaigns.New(s.web, d.MailWake),
	}
	return s.routes(h)
}
