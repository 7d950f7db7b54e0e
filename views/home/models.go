package home

import (
	"crm/app/store"
	"crm/views/clients"
	"crm/views/dashboard"

	"github.com/a-h/templ"
)

// Model is what the home page shows.
type Model struct {
	TenantName string
	UserName   string
	Counts     store.Counts
	// ShowUsers and ShowRoles: the caller may see the Users, the Roles area.
	ShowUsers, ShowRoles bool
	Dashboard            dashboard.Model
	// Due are the user's due reminders; shown only when there are some.
	Due []clients.Reminder
	// Meetings is the meeting dashboard (app/kit); nil when the caller sees neither leads nor clients.
	Meetings templ.Component
}
