package app

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"

	"crm/app/auth"
	"crm/app/i18n"
	"crm/app/store"
)

// Principal is the authenticated caller: who, in which tenant, allowed to do what.
type Principal struct {
	Tenant *store.Tenant
	User   *store.User
	Perms  auth.Permissions
	Token  string // the API token used, if the call came with one
}

// Scope is the caller's tenant-scoped view of the database.
func (p *Principal) Scope(db *store.DB) store.Scope {
	return db.Tenant(p.Tenant.ID, p.User.ID).WithPermissions(p.Perms)
}

type principalKey struct{}

func principalFrom(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// Session keys.
const (
	sessUserID   = "user_id"
	sessTenantID = "tenant_id"
	sessSeen     = "seen_at"
	sessLong     = "long"
	sessFlash    = "flash"
)

// authenticate finds the caller from an API token or the session cookie and puts the
// principal in the context. It never refuses: requireAuth does.
func (s *server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		var tenantID, userID int64
		var token string
		if h := strings.TrimSpace(r.Header.Get("Authorization")); h != "" {
			token = strings.TrimSpace(strings.TrimPrefix(h, "Bearer "))
			var err error
			tenantID, userID, err = s.db.TokenUser(ctx, token)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				s.fail(w, r, err)
				return
			}
		} else if uid := s.sessions.GetInt64(ctx, sessUserID); uid != 0 {
			if s.sessionIdleExpired(ctx) {
				_ = s.sessions.Destroy(ctx)
			} else {
				tenantID, userID = s.sessions.GetInt64(ctx, sessTenantID), uid
				s.touchSession(ctx)
			}
		}
		if userID != 0 {
			p, err := s.loadPrincipal(ctx, tenantID, userID)
			switch {
			case err == nil:
				p.Token = token
				ctx = context.WithValue(ctx, principalKey{}, p)
			case errors.Is(err, store.ErrNotFound):
				if token == "" {
					_ = s.sessions.Destroy(ctx)
				}
			default:
				s.fail(w, r, err)
				return
			}
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// sessionIdleExpired applies the idle timeout: the configured one, or the long one of a
// mobile sign-in.
func (s *server) sessionIdleExpired(ctx context.Context) bool {
	seen := s.sessions.GetInt64(ctx, sessSeen)
	idle := s.cfg.SessionIdle
	if s.sessions.GetBool(ctx, sessLong) {
		idle = s.cfg.MobileSessionLifetime
	}
	return seen != 0 && idle > 0 && time.Since(time.UnixMilli(seen)) > idle
}

// touchSession records activity for the idle timeout, but writes the session at most once
// per quarter of the idle limit (and at most once a minute), not on every request.
func (s *server) touchSession(ctx context.Context) {
	seen := s.sessions.GetInt64(ctx, sessSeen)
	every := min(time.Minute, s.cfg.SessionIdle/4)
	if time.Since(time.UnixMilli(seen)) >= every {
		s.sessions.Put(ctx, sessSeen, time.Now().UnixMilli())
	}
}

func (s *server) loadPrincipal(ctx context.Context, tenantID, userID int64) (*Principal, error) {
	u, t, perms, err := s.db.Caller(ctx, tenantID, userID)
	if err != nil {
		return nil, err
	}
	if !u.Active {
		return nil, store.ErrNotFound
	}
	return &Principal{Tenant: t, User: u, Perms: perms}, nil
}

// crossOriginProtection refuses state-changing browser requests from other sites, with
// the same page or JSON envelope as any other refusal.
func (s *server) crossOriginProtection() *http.CrossOriginProtection {
	p := http.NewCrossOriginProtection()
	// Refused before the session is read: the language comes from the cookie and the browser.
	p.SetDenyHandler(s.localize(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, errCrossSite)
	})))
	return p
}

// requireAuth refuses anonymous callers: 401 envelope for JSON, a redirect to sign-in for pages.
func (s *server) requireAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if principalFrom(r.Context()) == nil {
			s.fail(w, r, errUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// can refuses callers whose role lacks the action on the feature (403).
func (s *server) can(f auth.Feature, a auth.Action) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p := principalFrom(r.Context())
			if p == nil {
				s.fail(w, r, errUnauthorized)
				return
			}
			if !p.Perms.Allows(f, a) {
				s.fail(w, r, errForbidden)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// localeCookie remembers the language chosen before sign-in.
const localeCookie = "lang"

// localize picks the language: the user's choice, then the tenant's default, then the
// language chosen before sign-in, then Accept-Language, then en_US.
func (s *server) localize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var choices []string
		if p := principalFrom(r.Context()); p != nil {
			choices = append(choices, p.User.Locale, p.Tenant.DefaultLocale)
		}
		if c, err := r.Cookie(localeCookie); err == nil {
			choices = append(choices, c.Value)
		}
		loc := s.i18n.Localizer(s.i18n.Pick(r.Header.Get("Accept-Language"), choices...))
		next.ServeHTTP(w, r.WithContext(i18n.With(r.Context(), loc)))
	})
}

// securityHeaders sets a strict CSP (no inline script) and the other protective headers.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; "+
			"img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; "+
			"base-uri 'self'; form-action 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		next.ServeHTTP(w, r)
	})
}

// accessLog logs one line per request with slog.
func (s *server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", ww.Status()), slog.Int("bytes", ww.BytesWritten()),
			slog.Duration("duration", time.Since(start)),
			slog.String("request_id", middleware.GetReqID(r.Context())))
	})
}

// recoverPanics turns a panic into a 500 (page or envelope) and logs the value.
func (s *server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("panic", "value", v, "path", r.URL.Path, "request_id", middleware.GetReqID(r.Context()))
				s.fail(w, r, errors.New("panic"))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// metrics counts requests and their latency by route pattern (not raw path, to keep
// the label set small).
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	registry *prometheus.Registry
}

func newMetrics() *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "crm_http_requests_total",
			Help: "HTTP requests by route, method and status."}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "crm_http_request_duration_seconds",
			Help: "HTTP request latency by route.", Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}},
			[]string{"route", "method"}),
		registry: prometheus.NewRegistry(),
	}
	m.registry.MustRegister(m.requests, m.latency)
	return m
}

func (m *metrics) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		route := "unmatched"
		if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
			route = rc.RoutePattern()
		}
		m.requests.WithLabelValues(route, r.Method, strconv.Itoa(ww.Status())).Inc()
		m.latency.WithLabelValues(route, r.Method).Observe(time.Since(start).Seconds())
	})
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

// safeNext keeps a post-sign-in redirect on this site: a local path only.
func safeNext(next, fallback string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return fallback
	}
	return next
}
