package apptest

import (
	"context"
	"testing"

	"crm/app/store"
)

// mailRoutes are the route matrix's rows of mail delivery (app/emails): the SMTP
// settings, the test message and the email history need Settings; unsubscribing is
// public, by its token.
//
//	{email}        a bulk message of tenant A (its subject carries Marker)
//	{unsubscribe}  that message's unsubscribe token
func mailRoutes() map[string]Route {
	const settingsForm = "host=smtp.example.test&port=587&security=starttls&from_address=crm%40example.test&from_name=CRM"
	const settingsJSON = `{"host":"smtp.example.test","port":587,"security":"starttls","from_address":"crm@example.test","from_name":"CRM"}`
	return map[string]Route{
		"GET /unsubscribe/{token}":            {Who: Public, Params: map[string]string{"token": "unsubscribe"}},
		"POST /unsubscribe/{token}":           {Who: Public, Params: map[string]string{"token": "unsubscribe"}},
		"GET /settings/mail":                  {Who: Permitted, Perms: []Perm{SettingsView}, Tenant: Isolated},
		"POST /settings/mail":                 {Who: Permitted, Perms: []Perm{SettingsUpdate}, Form: settingsForm},
		"POST /settings/mail/test":            {Who: Permitted, Perms: []Perm{SettingsUpdate}},
		"GET /emails":                         {Who: Permitted, Perms: []Perm{SettingsView}, Tenant: Isolated, OwnerSees: true},
		"GET /emails/{id}":                    {Who: Permitted, Perms: []Perm{SettingsView}, ID: "email", Tenant: NotFound, OwnerSees: true},
		"GET /v1/api/view-mail-setting":       {Who: Permitted, Perms: []Perm{SettingsView}, Tenant: Isolated},
		"PUT /v1/api/update-mail-setting":     {Who: Permitted, Perms: []Perm{SettingsUpdate}, JSON: settingsJSON},
		"POST /v1/api/send-test-email":        {Who: Permitted, Perms: []Perm{SettingsUpdate}, JSON: `{}`},
		"GET /v1/api/list-email-history":      {Who: Permitted, Perms: []Perm{SettingsView}, Tenant: Isolated, Empty: []string{"data.result", "data.total"}, OwnerSees: true},
		"GET /v1/api/view-email-history/{id}": {Who: Permitted, Perms: []Perm{SettingsView}, ID: "email", Tenant: NotFound, OwnerSees: true},
	}
}

// mailFixtures adds tenant A's bulk message and its unsubscribe token.
func mailFixtures(t *testing.T, sa store.Scope, v map[string]string) {
	t.Helper()
	ctx := context.Background()
	eid, err := sa.EnqueueEmail(ctx, store.EmailInput{To: "reader@example.test", Subject: "News " + Marker, Text: "Hello " + Marker, Kind: store.EmailBulk, Purpose: "test"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := sa.Email(ctx, eid)
	if err != nil {
		t.Fatal(err)
	}
	v["email"], v["unsubscribe"] = id(eid), e.UnsubscribeToken
}
