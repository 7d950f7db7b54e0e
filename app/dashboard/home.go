package dashboard

import (
	"net/http"

	"crm/app/auth"
	"crm/app/i18n"
	"crm/app/kit"
	"crm/app/reminders"
	"crm/app/store"
	"crm/app/web"
	dashboardview "crm/views/dashboard"
	homeview "crm/views/home"
)

// Home is the home page: the tenant's key counts and the dashboard for the period
// asked (api.go). htmx gets only the dashboard's results when the period changes.
func (h *Handler) Home(w http.ResponseWriter, r *http.Request) {
	p := web.Caller(r)
	dash, err := h.dashboardModel(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	// A refused period (a reversed range) is 422, the whole page or only its results.
	status := http.StatusOK
	if dash.Data == nil {
		status = http.StatusUnprocessableEntity
	}
	w.Header().Add("Vary", "HX-Request, HX-Target")
	if isDashboardFragment(r) {
		h.web.Render(w, r, status, dashboardview.Fragment(dash))
		return
	}
	// The user and role counts are about the Users and Roles areas: shown only to those
	// who may see them.
	var counts store.Counts
	showUsers, showRoles := p.Allows(auth.FeatureUsers, auth.View), p.Allows(auth.FeatureRoles, auth.View)
	if showUsers || showRoles {
		if counts, err = p.Scope().Counts(r.Context()); err != nil {
			h.web.Fail(w, r, err)
			return
		}
	}
	var due []store.ReminderView
	if p.Perms.Allows(auth.FeatureLeads, auth.View) {
		if due, err = p.Scope().DueReminders(r.Context(), 10); err != nil {
			h.web.Fail(w, r, err)
			return
		}
	}
	m := homeview.Model{TenantName: p.Tenant.Name, UserName: p.User.Name, Counts: counts, ShowUsers: showUsers, ShowRoles: showRoles, Dashboard: dash, Due: reminders.Rows(due)}
	if p.Allows(auth.FeatureLeads, auth.View) || p.Allows(auth.FeatureClients, auth.View) {
		if m.Meetings, err = kit.Block(r); err != nil { // the calls and meetings of keep-in-touch plans
			h.web.Fail(w, r, err)
			return
		}
	}
	h.web.Page(w, r, status, i18n.T(r.Context(), "home.title"), homeview.Home(m))
}
