package web

import (
	"crypto/subtle"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"crm/app/auth"
	"crm/app/i18n"
	"crm/app/store"
)

// CrossOriginProtection refuses state-changing browser requests from other sites, with
// the same page or JSON envelope as any other refusal.
func (k *Kit) CrossOriginProtection() *http.CrossOriginProtection {
	p := http.NewCrossOriginProtection()
	// Refused before the session is read: the language comes from the cookie and the browser.
	p.SetDenyHandler(k.Localize(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.Fail(w, r, ErrCrossSite)
	})))
	return p
}

// RequireAuth refuses anonymous callers: 401 envelope for JSON, a redirect to sign-in for pages.
// A user whose role requires two-factor sign-in and who has not enrolled can do nothing
// else until done: pages send them to enrol, the API refuses with 403 (RequireSignIn lets
// them reach the enrolment and signing out).
func (k *Kit) RequireAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := Caller(r)
		if p == nil {
			k.Fail(w, r, ErrUnauthorized)
			return
		}
		if p.User.MustEnrol() {
			if WantsJSON(r) {
				k.Fail(w, r, ErrMustEnrol)
				return
			}
			if r.Header.Get("HX-Request") == "true" {
				w.Header().Set("HX-Redirect", EnrolPath)
				w.WriteHeader(http.StatusForbidden)
				return
			}
			http.Redirect(w, r, EnrolPath, http.StatusSeeOther)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// EnrolPath is the page where a user enrols in two-factor sign-in.
const EnrolPath = "/profile/two-factor"

// ErrMustEnrol refuses a user who must enrol in two-factor sign-in before anything else.
var ErrMustEnrol = &Error{Status: http.StatusForbidden, MsgID: "twoFactor.mustEnrol"}

// RequireSignIn refuses anonymous callers like RequireAuth, but lets in a user who has
// still to enrol in two-factor sign-in: for the enrolment itself and signing out.
func (k *Kit) RequireSignIn(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if Caller(r) == nil {
			k.Fail(w, r, ErrUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Can refuses callers whose role lacks the action on the feature (403).
func (k *Kit) Can(f auth.Feature, a auth.Action) func(http.Handler) http.Handler {
	return k.CanAny(Need{Feature: f, Action: a})
}

// Need is a permission a route or a menu entry needs: an action on a feature.
type Need struct {
	Feature auth.Feature
	Action  auth.Action
}

// CanAny refuses callers whose role has none of the needs (403): for routes that serve
// several kinds of record, such as imports of leads or clients. The store refuses what
// the caller may not do with the one record kind the request is about.
func (k *Kit) CanAny(needs ...Need) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p := Caller(r)
			if p == nil {
				k.Fail(w, r, ErrUnauthorized)
				return
			}
			if !p.AllowsAny(needs...) {
				k.Fail(w, r, ErrForbidden)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// LocaleCookie remembers the language chosen before sign-in.
const LocaleCookie = "lang"

// Localize picks the language: the user's choice, then the tenant's default, then the
// language chosen before sign-in, then Accept-Language, then en_US.
func (k *Kit) Localize(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var choices []string
		if p := Caller(r); p != nil {
			choices = append(choices, p.User.Locale, p.Tenant.DefaultLocale)
		}
		if c, err := r.Cookie(LocaleCookie); err == nil {
			choices = append(choices, c.Value)
		}
		loc := k.I18n.Localizer(k.I18n.Pick(r.Header.Get("Accept-Language"), choices...))
		next.ServeHTTP(w, r.WithContext(i18n.With(r.Context(), loc)))
	})
}

// SecurityHeaders sets a strict CSP (no inline script) and the other protective headers.
func SecurityHeaders(next http.Handler) http.Handler {
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

// jsonSecurityHeaders trims SecurityHeaders' set to what a JSON answer needs (Kit.JSON
// calls it): a JSON answer is never shown as a document, so the page policy's script,
// style and image sources, the referrer policy and the permissions policy have nothing to
// govern; a policy of nothing at all (and no framing) is stricter than the page's and 290
// bytes shorter in every answer of the API (a lead view's answer went from 1,574 to 1,274
// bytes, a list page's under net/http's 4 KB buffer, one write instead of two:
// docs/PERFORMANCE.md, "Thirty-fourth round").
func jsonSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", jsonCSP)
	h.Del("Referrer-Policy")
	h.Del("Permissions-Policy")
}

const jsonCSP = "default-src 'none'; frame-ancestors 'none'"

// AccessLog logs one line per request with slog, once the answer has been sent
// (AfterSend).
func (k *Kit) AccessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		ctx, method, path, status, bytes := r.Context(), r.Method, r.URL.Path, ww.Status(), ww.BytesWritten()
		AfterSend(r, func() { // the duration then includes writing the answer
			k.Log.LogAttrs(ctx, slog.LevelInfo, "request",
				slog.String("method", method), slog.String("path", path),
				slog.Int("status", status), slog.Int("bytes", bytes),
				slog.Duration("duration", time.Since(start)),
				slog.String("request_id", middleware.GetReqID(ctx)))
		})
	})
}

// RecoverPanics turns a panic into a 500 (page or envelope) and logs the value.
func (k *Kit) RecoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				k.Logger(r).Error("panic", "value", v, "path", r.URL.Path)
				k.Fail(w, r, errors.New("panic"))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// Metrics counts requests and their latency by route pattern (not raw path, to keep
// the label set small), once the answer has been sent (AfterSend).
type Metrics struct {
	requests   *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	statements *prometheus.HistogramVec
	sqlTime    *prometheus.HistogramVec
	Registry   *prometheus.Registry
}

// NewMetrics registers the request metrics in a registry of their own.
func NewMetrics() *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "crm_http_requests_total",
			Help: "HTTP requests by route, method and status."}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "crm_http_request_duration_seconds",
			Help: "HTTP request latency by route.", Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}},
			[]string{"route", "method"}),
		// Where a request's time goes (QueryStats): how many statements and how long in them.
		statements: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "crm_http_request_sql_statements",
			Help: "SQL statements per HTTP request by route.", Buckets: []float64{0, 1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100}},
			[]string{"route", "method"}),
		sqlTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "crm_http_request_sql_seconds",
			Help: "Time in SQL statements per HTTP request by route.", Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}},
			[]string{"route", "method"}),
		Registry: prometheus.NewRegistry(),
	}
	m.Registry.MustRegister(m.requests, m.latency, m.statements, m.sqlTime)
	return m
}

// Middleware observes every request.
func (m *Metrics) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		// The route now: chi hands its routing context to the next request once the
		// router returns, which is before AfterSend's work runs.
		route := "unmatched"
		if rc := chi.RouteContext(r.Context()); rc != nil {
			if pattern := rc.RoutePattern(); pattern != "" { // joined anew at each call
				route = pattern
			}
		}
		method, status, st := r.Method, ww.Status(), store.QueryStatsFrom(r.Context())
		AfterSend(r, func() {
			m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
			m.latency.WithLabelValues(route, method).Observe(time.Since(start).Seconds())
			if st != nil {
				m.statements.WithLabelValues(route, method).Observe(float64(st.Statements()))
				m.sqlTime.WithLabelValues(route, method).Observe(st.SQLTime().Seconds())
			}
		})
	})
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{})
}

// RequireBearer lets through only requests carrying `Authorization: Bearer <token>` (an
// operator's scraper); anyone else gets a plain 401. The comparison takes the same time
// whatever the token sent.
func RequireBearer(token string) func(http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if token == "" || subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
				http.Error(w, "Unauthorized", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
