package app

import (
	"net/http"

	"crm/app/auth"
	"crm/app/web"
	"crm/views/layout"
)

// navigation lists only the areas that exist, in menu order.
var navigation = []web.NavEntry{
	{LabelID: "nav.home", Href: "/home", Feature: auth.FeatureDashboard},
	{LabelID: "nav.leads", Href: "/leads", Feature: auth.FeatureLeads},
	{LabelID: "nav.pipeline", Href: "/leads/board", Feature: auth.FeatureLeads},
	{LabelID: "clientsPage.nav", Href: "/clients", Feature: auth.FeatureClients},
	{LabelID: "nav.imports", Href: "/imports", Feature: auth.FeatureLeads},
	{LabelID: "nav.settings", Href: "/settings", Feature: auth.FeatureSettings},
}

// dueReminders fills the shell's notifications area: the user's due reminders, overdue
// ones counted apart.
func (s *server) dueReminders(r *http.Request, sh *layout.Shell) {
	due, err := web.Scope(r).DueReminders(r.Context(), 99)
	if err != nil {
		s.web.Logger(r).Warn("due reminders", "err", err)
		return
	}
	sh.Due = len(due)
	for _, d := range due {
		if d.Overdue {
			sh.Overdue++
		}
	}
}
