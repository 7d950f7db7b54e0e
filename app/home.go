package app

import (
	"net/http"
	"strings"
	"time"

	"crm/app/auth"
	"crm/app/i18n"
	"crm/app/store"
	"crm/app/web"
	dashboardview "crm/views/dashboard"
	homeview "crm/views/home"
)

func (s *server) handleHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

func (s *server) handleReady(w http.ResponseWriter, r *http.Request) {
	if err := s.db.Ping(r.Context()); err != nil {
		s.web.Log.Warn("not ready", "err", err)
		http.Error(w, "database unreachable", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ready\n"))
}

// handleHome is the home page: the tenant's key counts and the dashboard for the period
// asked (app/dashboard.go). htmx gets only the dashboard's results when the period changes.
func (s *server) handleHome(w http.ResponseWriter, r *http.Request) {
	p := web.Caller(r)
	dash, err := s.dashboardModel(r)
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	w.Header().Add("Vary", "HX-Request, HX-Target")
	if isDashboardFragment(r) {
		s.web.Render(w, r, http.StatusOK, dashboardview.Fragment(dash))
		return
	}
	counts, err := p.Scope().Counts(r.Context())
	if err != nil {
		s.web.Fail(w, r, err)
		return
	}
	var due []store.ReminderView
	if p.Perms.Allows(auth.FeatureLeads, auth.View) {
		if due, err = p.Scope().DueReminders(r.Context(), 10); err != nil {
			s.web.Fail(w, r, err)
			return
		}
	}
	status := http.StatusOK
	if dash.Data == nil {
		status = http.StatusUnprocessableEntity
	}
	s.web.Page(w, r, status, i18n.T(r.Context(), "home.title"),
		homeview.Home(homeview.Model{TenantName: p.Tenant.Name, UserName: p.User.Name, Counts: counts, Dashboard: dash, Due: reminderRows(due)}))
}

// handleLanguage saves a language choice: on the user when signed in, in a cookie before.
func (s *server) handleLanguage(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := r.ParseForm(); err != nil {
		s.web.Fail(w, r, web.BadRequest("error.form", err))
		return
	}
	loc := r.PostForm.Get("locale")
	if !i18n.Supported(loc) {
		s.web.Fail(w, r, web.BadRequest("error.locale", nil))
		return
	}
	if p := web.Caller(r); p != nil {
		if err := p.Scope().SetUserLocale(r.Context(), p.User.ID, loc); err != nil {
			s.web.Fail(w, r, err)
			return
		}
	}
	http.SetCookie(w, &http.Cookie{Name: web.LocaleCookie, Value: loc, Path: "/", MaxAge: int((365 * 24 * time.Hour).Seconds()),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.cfg.SecureCookies})
	back := web.SafeNext(r.PostForm.Get("back"), "/home")
	if strings.HasPrefix(back, "/language") {
		back = "/home"
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}
