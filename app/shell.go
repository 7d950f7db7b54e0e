package app

import (
	"net/http"
	"strings"

	"crm/app/auth"
	"crm/app/i18n"
	"crm/views/layout"
)

// navEntry is an area of the admin and the permission that shows it in the navigation.
type navEntry struct {
	labelID string
	href    string
	feature auth.Feature
}

// navigation lists only the areas that exist, in menu order.
var navigation = []navEntry{
	{"nav.home", "/home", auth.FeatureDashboard},
	{"nav.leads", "/leads", auth.FeatureLeads},
	{"nav.pipeline", "/leads/board", auth.FeatureLeads},
	{"clientsPage.nav", "/clients", auth.FeatureClients},
	{"nav.imports", "/imports", auth.FeatureLeads},
	{"nav.settings", "/settings", auth.FeatureSettings},
}

// activeNav is the href of the entry the path is in: the longest one that is the path or
// a folder above it, so /leads/board marks Pipeline rather than Leads.
func activeNav(path string) string {
	best := ""
	for _, n := range navigation {
		if (path == n.href || strings.HasPrefix(path, n.href+"/")) && len(n.href) > len(best) {
			best = n.href
		}
	}
	return best
}

// shell builds the admin shell's view model for a signed-in request.
func (s *server) shell(r *http.Request, title string) layout.Shell {
	p := principalFrom(r.Context())
	sh := s.bareShell(r, title)
	sh.TenantName = p.Tenant.Name
	sh.UserName = p.User.Name
	sh.Title = title + " · " + p.Tenant.Name
	current := activeNav(r.URL.Path)
	for _, n := range navigation {
		if !p.Perms.Allows(n.feature, auth.View) {
			continue
		}
		active := n.href == current
		sh.Nav = append(sh.Nav, layout.NavItem{Label: i18n.T(r.Context(), n.labelID), Href: n.href, Active: active})
	}
	// The notifications area: the user's due reminders, overdue ones counted apart.
	if due, err := p.Scope(s.db).DueReminders(r.Context(), 99); err != nil {
		s.logger(r).Warn("due reminders", "err", err)
	} else {
		sh.Due = len(due)
		for _, d := range due {
			if d.Overdue {
				sh.Overdue++
			}
		}
	}
	if f := s.sessions.PopString(r.Context(), sessFlash); f != "" {
		sh.Flash = f
	}
	return sh
}

// bareShell is the part of the shell every page has: assets, languages, title.
func (s *server) bareShell(r *http.Request, title string) layout.Shell {
	ctx := r.Context()
	if title == "" {
		title = i18n.T(ctx, "app.name")
	}
	cur := i18n.Locale(ctx)
	sh := layout.Shell{Title: title, CurrentPath: r.URL.RequestURI(), CSS: s.assets.URL("app.css"), JS: s.assets.URL("admin.js")}
	if src := s.assets.URL("picker.js"); src != "" {
		sh.Islands = map[string]string{"picker": src}
	}
	for _, loc := range i18n.Locales {
		sh.Locales = append(sh.Locales, layout.Option{Value: loc, Label: i18n.T(ctx, "language."+loc), Selected: loc == cur})
	}
	return sh
}
