// Package layout holds the page shells: the signed-in admin shell, the bare shell used
// before sign-in, and the fragment htmx swaps into the main area.
package layout

import "encoding/json"

// Shell is the view model of the admin shell around every signed-in page.
type Shell struct {
	Title       string
	TenantName  string
	UserName    string
	CurrentPath string
	Nav         []NavItem
	Locales     []Option
	CSS         string
	JS          string
	// Boot is the tiny blocking script that marks the page as scripted (the js class)
	// before its first paint, so the deferred script moves nothing when it arrives.
	Boot string
	// Islands maps an island's name to its bundle's URL ("picker" → the picker's bundle).
	// The shell's script loads a bundle on demand, when its island is on the page (or, for
	// a field marked data-load="intent", when the user first points at or focuses it).
	Islands map[string]string
	// Scripts are page scripts (content-hashed URLs) a page adds after the shell's own,
	// such as the pipeline board's drag and drop.
	Scripts []string
	Flash   string
	// Due is how many of the user's reminders are due (the notifications area); Overdue
	// how many of those are past their due time.
	Due     int
	Overdue int
}

// NavItem is one entry of the side navigation.
type NavItem struct {
	Label  string
	Href   string
	Active bool
}

// Option is one choice of a select.
type Option struct {
	Value    string
	Label    string
	Selected bool
}

// islands is the JSON of Islands for the shell script's data-islands attribute.
func (sh Shell) islands() string {
	if len(sh.Islands) == 0 {
		return ""
	}
	b, _ := json.Marshal(sh.Islands)
	return string(b)
}
