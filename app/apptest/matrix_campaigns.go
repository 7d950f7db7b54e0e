package apptest

import (
	"context"
	"testing"

	"crm/app/store"
)

// campaignRoutes are the route matrix's rows of email templates and bulk email
// (app/campaigns): templates are Settings (their dropdown serves anyone working with
// leads; the preview also needs view on the kind of record it renders); a bulk email needs
// leads view and update.
//
//	{template}  an email template of tenant A (its name carries Marker)
//	{send}      a bulk send of that template to tenant A's lead
var campaignRoutes = map[string]Route{
	"GET /settings/templates":                    {Who: Permitted, Perms: []Perm{SettingsView}, Tenant: Isolated, OwnerSees: true},
	"GET /settings/templates/new":                {Who: Permitted, Perms: []Perm{SettingsCreate}},
	"POST /settings/templates/new":               {Who: Permitted, Perms: []Perm{SettingsCreate}, Form: templateForm},
	"POST /settings/templates/preview":           {Who: Permitted, Perms: []Perm{SettingsView, LeadsView}, Form: templateForm + "&preview_entity=lead&preview_id={lead}", Tenant: Isolated, OwnerSees: true},
	"GET /settings/templates/{id}":               {Who: Permitted, Perms: []Perm{SettingsView}, ID: "template", Tenant: NotFound, OwnerSees: true},
	"POST /settings/templates/{id}":              {Who: Permitted, Perms: []Perm{SettingsUpdate}, ID: "template", Form: templateForm, Tenant: NotFound},
	"GET /settings/templates/{id}/delete":        {Who: Permitted, Perms: []Perm{SettingsDelete}, ID: "template", Tenant: NotFound, OwnerSees: true},
	"POST /settings/templates/{id}/delete":       {Who: Permitted, Perms: []Perm{SettingsDelete}, ID: "template", Tenant: NotFound},
	"POST /leads/bulk/email":                     {Who: Permitted, Perms: []Perm{LeadsView, LeadsUpdate}, Form: "ids={lead}", Tenant: Isolated},
	"POST /leads/bulk/email/send":                {Who: Permitted, Perms: []Perm{LeadsView, LeadsUpdate}, Form: "ids={lead}&template_id={template}", Tenant: Refused},
	"GET /emails/sends/{id}":                     {Who: Permitted, Perms: []Perm{LeadsView, LeadsUpdate}, ID: "send", Tenant: NotFound, OwnerSees: true},
	"GET /v1/api/dropdown-template-master":       {Who: Permitted, Perms: []Perm{LeadsView}, Tenant: Isolated, OwnerSees: true},
	"GET /v1/api/list-template-master":           {Who: Permitted, Perms: []Perm{SettingsView}, Tenant: Isolated, Empty: []string{"data.result", "data.total"}, OwnerSees: true},
	"GET /v1/api/view-template-master/{id}":      {Who: Permitted, Perms: []Perm{SettingsView}, ID: "template", Tenant: NotFound, OwnerSees: true},
	"POST /v1/api/create-template-master":        {Who: Permitted, Perms: []Perm{SettingsCreate}, JSON: templateJSON},
	"PUT /v1/api/update-template-master/{id}":    {Who: Permitted, Perms: []Perm{SettingsUpdate}, ID: "template", JSON: templateJSON, Tenant: NotFound},
	"DELETE /v1/api/delete-template-master/{id}": {Who: Permitted, Perms: []Perm{SettingsDelete}, ID: "template", Tenant: NotFound},
	"POST /v1/api/preview-template-master": {Who: Permitted, Perms: []Perm{SettingsView, LeadsView},
		JSON: `{"name":"P","subject":"Hi","body":"Hello","entity":"lead","record_id":{lead}}`, Tenant: NotFound},
	"POST /v1/api/lead/send-bulk-email":     {Who: Permitted, Perms: []Perm{LeadsView, LeadsUpdate}, JSON: `{"template_id":{template},"ids":[{lead}]}`, Tenant: Refused},
	"GET /v1/api/lead/view-bulk-email/{id}": {Who: Permitted, Perms: []Perm{LeadsView, LeadsUpdate}, ID: "send", Tenant: NotFound, OwnerSees: true},
}

const (
	// Merge fields' braces are URL-encoded: the matrix's own {fixtures} use braces.
	templateForm = "name=Other&subject=Hi+%7B%7Bcustomer_name%7D%7D&body=Hello+%7B%7Bcompany_name%7D%7D"
	templateJSON = `{"name":"Other","subject":"Hi","body":"Hello"}`
)

func init() {
	for key, r := range campaignRoutes {
		if _, dup := Routes[key]; dup {
			panic("route matrix: two rows for " + key)
		}
		Routes[key] = r
	}
}

// campaignFixtures adds tenant A's template and a send of it to tenant A's lead.
func campaignFixtures(t *testing.T, sa store.Scope, v map[string]string) {
	t.Helper()
	ctx := context.Background()
	tpl, err := sa.CreateEmailTemplate(ctx, store.EmailTemplateInput{Name: "Template " + Marker, Subject: "Hello {{customer_name}}", Body: "News " + Marker})
	if err != nil {
		t.Fatal(err)
	}
	send, err := sa.CreateEmailSend(ctx, tpl.ID, []int64{int64(atoi(v["lead"]))})
	if err != nil {
		t.Fatal(err)
	}
	v["template"], v["send"] = id(tpl.ID), id(send.ID)
}
