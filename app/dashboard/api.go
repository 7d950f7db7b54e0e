package dashboard

import (
	"errors"
	"net/http"
	"time"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	dashboardview "crm/views/dashboard"
)

// The dashboards: the home page's figures and charts, and the spec's JSON calls
// lead/dashboard/lead, lead/dashboard/lead-overview and client/dashboard/client. Each takes
// `period` (7d, 30d, 90d, year, all, custom) or `from` and `to` (YYYY-MM-DD, both days
// included, UTC), and counts what the caller's record scope reaches.

// dashboardParts are the parts of the dashboard the caller's role may see.
func dashboardParts(p *web.Principal) int {
	parts := 0
	if p.Perms.Allows(auth.FeatureLeads, auth.View) {
		parts |= store.DashboardLeads
	}
	if p.Perms.Allows(auth.FeatureClients, auth.View) {
		parts |= store.DashboardClients
	}
	return parts
}

// readPeriod reads the period of a dashboard request, today being the current UTC day.
func readPeriod(r *http.Request) (store.Period, error) {
	q := r.URL.Query()
	return store.ParsePeriod(q.Get("period"), q.Get("from"), q.Get("to"), time.Now())
}

// dashboard computes the parts of the dashboard for the request's period and caller.
func (h *Handler) dashboard(r *http.Request, parts int) (*store.Dashboard, error) {
	period, err := readPeriod(r)
	if err != nil {
		return nil, err
	}
	p := web.Caller(r)
	return p.Scope().Dashboard(r.Context(), period, parts&dashboardParts(p))
}

// dashboardModel is the home page's dashboard for the request: the figures, or the
// refused period with its errors. Other errors are returned.
func (h *Handler) dashboardModel(r *http.Request) (dashboardview.Model, error) {
	q := r.URL.Query()
	m := dashboardview.Model{Preset: q.Get("period"), From: q.Get("from"), To: q.Get("to")}
	d, err := h.dashboard(r, store.DashboardLeads|store.DashboardClients)
	var ve validate.Errors
	switch {
	case errors.As(err, &ve):
		m.Errors = ve
		if m.Preset == "" {
			m.Preset = store.PeriodCustom
		}
		return m, nil
	case err != nil:
		return m, err
	}
	m.Data = d
	m.Preset = d.Period.Preset
	m.From, m.To = d.Period.From.Format(store.DayLayout), d.Period.To.Format(store.DayLayout)
	return m, nil
}

// isDashboardFragment reports whether htmx asked for the dashboard's results only.
func isDashboardFragment(r *http.Request) bool {
	return r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-Target") == dashboardview.ResultsID
}

// leadDashboardData is the answer of lead/dashboard/lead: the leads created in the period,
// with the funnel and the breakdowns.
type leadDashboardData struct {
	Period store.Period `json:"period"`
	*store.LeadFigures
	Series any `json:"series,omitempty"` // the over-time series is lead-overview's
}

// seriesData is the answer of lead/dashboard/lead-overview and client/dashboard/client.
type seriesData struct {
	Period   store.Period   `json:"period"`
	Interval string         `json:"interval"`
	Total    int64          `json:"total"`
	Series   []store.Bucket `json:"series"`
}

func (h *Handler) LeadDashboard(w http.ResponseWriter, r *http.Request) {
	d, err := h.dashboard(r, store.DashboardLeads)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", leadDashboardData{Period: d.Period, LeadFigures: d.Leads})
}

func (h *Handler) LeadOverview(w http.ResponseWriter, r *http.Request) {
	d, err := h.dashboard(r, store.DashboardLeads)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", seriesData{Period: d.Period, Interval: d.Interval, Total: d.Leads.Total, Series: d.Leads.Series})
}

func (h *Handler) ClientDashboard(w http.ResponseWriter, r *http.Request) {
	d, err := h.dashboard(r, store.DashboardClients)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.OK(w, r, http.StatusOK, "ok", seriesData{Period: d.Period, Interval: d.Interval, Total: d.Clients.Total, Series: d.Clients.Series})
}
