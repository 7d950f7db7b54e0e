package apptest

// clientReminderRoutes are the route matrix's rows of client reminders (app/reminders): a
// reminder belongs to a lead or a client. The routes naming a reminder are in matrix.go
// (their fixture reminder is on a lead, so leads is the permission a role must not lack;
// they admit either feature).
func clientReminderRoutes() map[string]Route {
	return map[string]Route{
		"POST /clients/{id}/reminders": {Who: Permitted, Perms: []Perm{ClientsCreate}, ID: "client", Form: reminderForm, Tenant: NotFound},
	}
}
