package apptest

import (
	"context"
	"testing"
	"time"

	"crm/app/store"
)

// kitRoutes are the route matrix's rows of keep-in-touch plans (app/kit). The fixture plan
// is on tenant A's lead, so the leads permission is the one a role must not lack (the
// routes admit leads or clients; the store refuses a lead's plan to a role without the
// leads permission with 403).
//
//	{kit}  a call plan on tenant A's lead, owned by its administrator
func kitRoutes() map[string]Route {
	const kitForm = "type=call&interval_type=weekly&start_at=2030-01-07T10%3A00&owner_id={my.user}&active=1"
	const kitJSON = `{"type":"call","interval_type":"weekly","start_at":"2030-01-07T10:00","owner_id":{my.user}}`
	see := []Perm{LeadsView, ClientsView}
	change := []Perm{LeadsUpdate, ClientsUpdate}
	return map[string]Route{
		"POST /leads/{id}/keep-in-touch":   {Who: Permitted, Perms: []Perm{LeadsUpdate}, ID: "lead", Form: kitForm, Tenant: NotFound},
		"POST /clients/{id}/keep-in-touch": {Who: Permitted, Perms: []Perm{ClientsUpdate}, ID: "client", Form: kitForm, Tenant: NotFound},
		"GET /keep-in-touch":               {Who: Permitted, AnyOf: see, Tenant: Isolated, OwnerSees: true},
		"GET /keep-in-touch/{id}/edit":     {Who: Permitted, Perms: []Perm{LeadsUpdate}, AnyOf: change, ID: "kit", Tenant: NotFound, OwnerSees: true},
		"POST /keep-in-touch/{id}/edit":    {Who: Permitted, Perms: []Perm{LeadsUpdate}, AnyOf: change, ID: "kit", Form: kitForm, Tenant: NotFound},
		"POST /keep-in-touch/{id}/active":  {Who: Permitted, Perms: []Perm{LeadsUpdate}, AnyOf: change, ID: "kit", Form: "active=0", Tenant: NotFound},
		"POST /keep-in-touch/{id}/send":    {Who: Permitted, Perms: []Perm{LeadsUpdate}, AnyOf: change, ID: "kit", Tenant: NotFound},
		"GET /keep-in-touch/{id}/delete":   {Who: Permitted, Perms: []Perm{LeadsUpdate}, AnyOf: change, ID: "kit", Tenant: NotFound, OwnerSees: true},
		"POST /keep-in-touch/{id}/delete":  {Who: Permitted, Perms: []Perm{LeadsUpdate}, AnyOf: change, ID: "kit", Tenant: NotFound},

		"POST /v1/api/kit/create-keep-in-touch": {Who: Permitted, Perms: []Perm{LeadsUpdate}, AnyOf: change,
			JSON: `{"entity":"lead","record_id":{lead},"type":"call","interval_type":"weekly","start_at":"2030-01-07T10:00"}`, Tenant: NotFound},
		"GET /v1/api/kit/view-keep-in-touch/{id}":      {Who: Permitted, Perms: []Perm{LeadsView}, AnyOf: see, ID: "kit", Tenant: NotFound, OwnerSees: true},
		"GET /v1/api/kit/list-keep-in-touch":           {Who: Permitted, AnyOf: see, Tenant: Isolated, Empty: []string{"data.result", "data.total"}, OwnerSees: true},
		"PUT /v1/api/kit/update-keep-in-touch/{id}":    {Who: Permitted, Perms: []Perm{LeadsUpdate}, AnyOf: change, ID: "kit", JSON: kitJSON, Tenant: NotFound},
		"DELETE /v1/api/kit/delete-keep-in-touch/{id}": {Who: Permitted, Perms: []Perm{LeadsUpdate}, AnyOf: change, ID: "kit", Tenant: NotFound},
		"GET /v1/api/kit/dropdown-keep-in-touch-type":  {Who: Permitted, AnyOf: see, Tenant: Isolated},
		"GET /v1/api/kit/dropdown-interval-type":       {Who: Permitted, AnyOf: see, Tenant: Isolated},
		"POST /v1/api/kit/send-now/{id}":               {Who: Permitted, Perms: []Perm{LeadsUpdate}, AnyOf: change, ID: "kit", Tenant: NotFound},
		"GET /v1/api/kit/dashboard/meeting":            {Who: Permitted, AnyOf: see, Tenant: Isolated, Empty: []string{"data.overdue", "data.today", "data.this_week"}},
	}
}

// kitFixtures adds tenant A's call plan on its lead, starting next week.
func kitFixtures(t *testing.T, sa store.Scope, v map[string]string) {
	t.Helper()
	start := time.Now().AddDate(0, 0, 7).Format(store.KitStartLayout)
	p, err := sa.CreateKeepInTouch(context.Background(), store.KeepInTouchInput{Entity: store.EntityLead, RecordID: int64(atoi(v["lead"])),
		Type: store.KitCall, Interval: store.IntervalWeekly, Start: start, Subject: "Call " + Marker})
	if err != nil {
		t.Fatal(err)
	}
	v["kit"] = id(p.ID)
}
