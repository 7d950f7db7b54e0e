package app

import (
	"net/http"
	"strings"
	"time"

	"crm/app/auth"
	"crm/app/i18n"
	"crm/app/store"
	dashboardview "crm/views/dashboard"
	homeview "crm/views/home"
)

func (s *server) handleHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

func (s *server) handleReady(w http.ResponseWriter, r *http.Request) {
	if err := s.db.Ping(r.Context()); err != nil {
		s.log.Warn("not ready", "err", err)
		http.Error(w, "database unreachable", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ready\n"))
}

// handleHome is the home page: the tenant's key counts and the dashboard for the period
// asked (app/dashboard.go). htmx gets only the dashboard's results when the period changes.
func (s *server) handleHome(w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	dash, err := s.dashboardModel(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Add("Vary", "HX-Request, HX-Target")
	if isDashboardFragment(r) {
		s.render(w, r, http.StatusOK, dashboardview.Fragment(dash))
		return
	}
	counts, err := p.Scope(s.db).Counts(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var due []store.ReminderView
	if p.Perms.Allows(auth.FeatureLeads, auth.View) {
		if due, err = p.Scope(s.db).DueReminders(r.Context(), 10); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	status := http.StatusOK
	if dash.Data == nil {
		status = http.StatusUnprocessableEntity
	}
	s.page(w, r, status, i18n.T(r.Context(), "home.title"),
		homeview.Home(homeview.Model{TenantName: p.Tenant.Name, UserName: p.User.Name, Counts: counts, Dashboard: dash, Due: reminderRows(due)}))
}

// handleLanguage saves a language choice: on the user when signed in, in a cookie before.
func (s *server) handleLanguage(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := r.ParseForm(); err != nil {
		s.fail(w, r, badRequest("error.form", err))
		return
	}
	loc := r.PostForm.Get("locale")
	if !i18n.Supported(loc) {
		s.fail(w, r, badRequest("error.locale", nil))
		return
	}
	if p := principalFrom(r.Context()); p != nil {
		if err := p.Scope(s.db).SetUserLocale(r.Context(), p.User.ID, loc); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	http.SetCookie(w, &http.Cookie{Name: localeCookie, Value: loc, Path: "/", MaxAge: int((365 * 24 * time.Hour).Seconds()),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.cfg.SecureCookies})
	back := safeNext(r.PostForm.Get("back"), "/home")
	if strings.HasPrefix(back, "/language") {
		back = "/home"
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

func localeOf(r *http.Request) string { return i18n.Locale(r.Context()) }

// message translates an httpError for the current request.
func (s *server) message(r *http.Request, he *httpError) string {
	return i18n.T(r.Context(), he.msgID, he.args...)
}
