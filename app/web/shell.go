package web

import (
	"context"
	"net/http"
	"strings"

	"crm/app/i18n"
	"crm/views/layout"
)

// activeNav is the href of the entry the path is in: the longest one that is the path or
// a folder above it, so /leads/board marks Pipeline rather than Leads.
func activeNav(nav []NavEntry, path string) string {
	best := ""
	for _, n := range nav {
		if (path == n.Href || strings.HasPrefix(path, n.Href+"/")) && len(n.Href) > len(best) {
			best = n.Href
		}
	}
	return best
}

// Shell builds the admin shell's view model for a signed-in request: the entries of the
// navigation the caller may use, what ShellHook adds, and the flash message.
func (k *Kit) Shell(r *http.Request, title string) layout.Shell {
	p := Caller(r)
	sh := k.BareShell(r, title)
	sh.TenantName = p.Tenant.Name
	sh.UserName = p.User.Name
	sh.Title = title + " · " + p.Tenant.Name
	current := activeNav(k.Nav, r.URL.Path)
	for _, n := range k.Nav {
		if !p.AllowsAny(n.Needs...) {
			continue
		}
		sh.Nav = append(sh.Nav, layout.NavItem{Label: T(r, n.LabelID), Href: n.Href, Active: n.Href == current})
	}
	if k.ShellHook != nil {
		k.ShellHook(r, &sh)
	}
	if f := k.Sessions.PopString(r.Context(), sessFlash); f != "" {
		sh.Flash = f
	}
	return sh
}

// BareShell is the part of the shell every page has: assets, languages, title.
func (k *Kit) BareShell(r *http.Request, title string) layout.Shell {
	if title == "" {
		title = T(r, "app.name")
	}
	cur := Locale(r)
	sh := layout.Shell{Title: title, CurrentPath: r.URL.RequestURI(), CSS: k.Assets.URL("app.css"), JS: k.Assets.URL("admin.js"), Boot: k.Assets.URL("boot.js")}
	if src := k.Assets.URL("picker.js"); src != "" {
		sh.Islands = map[string]string{"picker": src}
	}
	for _, loc := range i18n.Locales {
		sh.Locales = append(sh.Locales, layout.Option{Value: loc, Label: T(r, "language."+loc), Selected: loc == cur})
	}
	return sh
}

// Landing is where a signed-in user starts: the first page of the navigation their role
// may see (Home for most, the lead list for a role without the dashboard), or /home when
// the role may see none of it (the page then says they may not).
func (k *Kit) Landing(p *Principal) string {
	for _, n := range k.Nav {
		if p.AllowsAny(n.Needs...) {
			return n.Href
		}
	}
	return "/home"
}

// LandingFor is Landing for a user who has just signed in (no principal in the request yet).
func (k *Kit) LandingFor(ctx context.Context, tenantID, userID int64) (string, error) {
	p, err := k.loadPrincipal(ctx, tenantID, userID)
	if err != nil {
		return "", err
	}
	return k.Landing(p), nil
}

// Home sends a signed-in browser to its landing page.
func (k *Kit) Home(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, k.Landing(Caller(r)), http.StatusSeeOther)
}
