package app

import (
	"net/http"

	"crm/app/auth"
	"crm/app/web"
	"crm/views/layout"
)

// navigation lists only the areas that exist, in menu order.
var navigation = []web.NavEntry{
	{LabelID: "nav.home", Href: "/home", Needs: []web.Need{{Feature: auth.FeatureDashboard, Action: auth.View}}},
	{LabelID: "nav.leads", Href: "/leads", Needs: []web.Need{{Feature: auth.FeatureLeads, Action: auth.View}}},
	{LabelID: "nav.pipeline", Href: "/leads/board", Needs: []web.Need{{Feature: auth.FeatureLeads, Action: auth.View}}},
	{LabelID: "clientsPage.nav", Href: "/clients", Needs: []web.Need{{Feature: auth.FeatureClients, Action: auth.View}}},
	{LabelID: "kit.nav", Href: "/keep-in-touch", Needs: []web.Need{{Feature: auth.FeatureLeads, Action: auth.View}, {Feature: auth.FeatureClients, Action: auth.View}}},
	{LabelID: "nav.imports", Href: "/imports", Needs: importers},
	{LabelID: "nav.settings", Href: "/settings", Needs: []web.Need{{Feature: auth.FeatureSettings, Action: auth.View}}},
	{LabelID: "mail.nav", Href: "/emails", Needs: []web.Need{{Feature: auth.FeatureSettings, Action: auth.View}}},
	{LabelID: "usersPage.title", Href: "/users", Needs: []web.Need{{Feature: auth.FeatureUsers, Action: auth.View}}},
	{LabelID: "roles.title", Href: "/roles", Needs: []web.Need{{Feature: auth.FeatureRoles, Action: auth.View}}},
	{LabelID: "roles.teams", Href: "/teams", Needs: []web.Need{{Feature: auth.FeatureUsers, Action: auth.View}}},
}

// importers may import leads or clients; undoers may undo such an import.
var (
	importers = []web.Need{{Feature: auth.FeatureLeads, Action: auth.Import}, {Feature: auth.FeatureClients, Action: auth.Import}}
	undoers   = []web.Need{{Feature: auth.FeatureLeads, Action: auth.Delete}, {Feature: auth.FeatureClients, Action: auth.Delete}}
)

// dueReminders fills the shell's notifications area: the user's due reminders, overdue
// ones counted apart.
func (s *server) dueReminders(r *http.Request, sh *layout.Shell) {
	if !web.Caller(r).AllowsAny(web.Need{Feature: auth.FeatureLeads, Action: auth.View}, web.Need{Feature: auth.FeatureClients, Action: auth.View}) {
		return // reminders belong to leads or clients: without either, no count
	}
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
