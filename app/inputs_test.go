package app_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"crm/app/apptest"
)

// nul is text with a NUL byte: neither database stores it (PostgreSQL refuses it outright).
const nul = "a\x00b"

// TestNULRefusedEverywhere sends a NUL byte in every text input of the API — JSON bodies,
// a multipart field and query strings — and expects the field error (422) or the refused
// query (400) in the caller's language, never a 500 from the database.
func TestNULRefusedEverywhere(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Nul Co")
		c := e.APIClient(f.Admin.Email)
		lead := apptest.NewLead(t, c, "Nul Lead")
		r := c.Do("POST", "/v1/api/client/create-customer-client", map[string]any{"customer_name": "Nul Client", "company_email": "nul@client.test", "company_phone_number": "0123456789"})
		if r.Status != 201 {
			t.Fatalf("client: %d %s", r.Status, r.Body)
		}
		client := int64(r.Env().Data["id"].(float64))
		r = c.UploadFiles(fmt.Sprintf("/v1/api/lead/create-document/%d", lead), "", apptest.Upload{Name: "a.txt", Data: []byte("hello")})
		if r.Status != 201 {
			t.Fatalf("document: %d %s", r.Status, r.Body)
		}
		var uploaded struct{ Data []struct{ ID int64 } }
		apptest.MustJSON(t, r.Body, &uploaded)
		doc := uploaded.Data[0].ID
		r = c.Do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": lead, "title": "Call", "due_at": "2030-01-02T10:00:00Z"})
		if r.Status != 201 {
			t.Fatalf("reminder: %d %s", r.Status, r.Body)
		}
		reminder := int64(r.Env().Data["id"].(float64))

		type call struct {
			method, path string
			body         map[string]any
			field        string // the field error expected; "" for a refused query (400)
		}
		var calls []call
		with := func(base map[string]any, field string) map[string]any {
			b := map[string]any{}
			for k, v := range base {
				b[k] = v
			}
			b[field] = nul
			return b
		}
		leadBase := map[string]any{"customer_name": "N", "company_email": "n@nul.test", "company_phone_number": "0123456789"}
		for _, field := range []string{"customer_title", "customer_name", "company_name", "notes", "client_id"} {
			calls = append(calls,
				call{"POST", "/v1/api/lead/create-customer-lead", with(leadBase, field), field},
				call{"PUT", fmt.Sprintf("/v1/api/lead/update-customer-lead/%d", lead), with(leadBase, field), field})
		}
		for _, field := range []string{"customer_title", "customer_name", "company_name", "notes"} {
			calls = append(calls,
				call{"POST", "/v1/api/client/create-customer-client", with(leadBase, field), field},
				call{"PUT", fmt.Sprintf("/v1/api/client/update-customer-client/%d", client), with(leadBase, field), field})
		}
		for _, field := range []string{"name", "tag"} {
			calls = append(calls, call{"PUT", fmt.Sprintf("/v1/api/lead/update-document/%d", doc), with(map[string]any{"name": "a.txt"}, field), field})
		}
		reminderBase := map[string]any{"lead_id": lead, "title": "Call", "due_at": "2030-01-02T10:00:00Z"}
		for _, field := range []string{"title", "note"} {
			calls = append(calls,
				call{"POST", "/v1/api/lead/create-remainders", with(reminderBase, field), field},
				call{"PUT", fmt.Sprintf("/v1/api/lead/update-remainders/%d", reminder), with(reminderBase, field), field})
		}
		for _, field := range []string{"name", "query"} {
			calls = append(calls, call{"POST", "/v1/api/lead/create-saved-view", with(map[string]any{"name": "Mine", "query": "search=x"}, field), field})
		}
		for _, master := range []string{"lead-stage-master", "lead-status-master", "lead-source-master", "lead-type-master", "personal-title", "business-type-master"} {
			r := c.Do("POST", "/v1/api/create-"+master, map[string]any{"name": "Fresh " + master})
			if r.Status != 201 {
				t.Fatalf("create %s: %d %s", master, r.Status, r.Body)
			}
			id := int64(r.Env().Data["id"].(float64))
			calls = append(calls,
				call{"POST", "/v1/api/create-" + master, map[string]any{"name": nul}, "name"},
				call{"PUT", fmt.Sprintf("/v1/api/update-%s/%d", master, id), map[string]any{"name": nul}, "name"})
		}
		q := url.QueryEscape(nul)
		for _, path := range []string{"/v1/api/lead/list-customer-lead?search=", "/v1/api/client/list-customer-client?search=",
			"/v1/api/lead/export-customer-lead?search=", "/v1/api/client/export-customer-client?search=",
			"/v1/api/lead/dropdown-customer-lead?search=", "/v1/api/lead/duplicate-customer-lead?email=",
			"/v1/api/lead/duplicate-customer-lead?phone="} {
			calls = append(calls, call{"GET", path + q, nil, ""})
		}

		check := func(name string, r *apptest.Response, field string) {
			t.Helper()
			if field == "" {
				if r.Status != http.StatusBadRequest || !strings.Contains(r.Env().Message, "characters that are not allowed") {
					t.Errorf("%s: %d %s, want 400 naming the characters", name, r.Status, r.Body)
				}
				return
			}
			if r.Status != http.StatusUnprocessableEntity || r.Env().Errors[field] != "invalidCharacters" {
				t.Errorf("%s: %d %s, want 422 with %s: invalidCharacters", name, r.Status, r.Body, field)
			}
		}
		for _, cl := range calls {
			var body any
			if cl.body != nil {
				body = cl.body
			}
			check(cl.method+" "+cl.path+" "+cl.field, c.Do(cl.method, cl.path, body), cl.field)
		}
		// The document upload's tag is a multipart field, read part by part.
		r = c.UploadFiles(fmt.Sprintf("/v1/api/lead/create-document/%d", lead), nul, apptest.Upload{Name: "b.txt", Data: []byte("hello")})
		check("create-document tag", r, "tag")
		// Sign-in needs no session, and answers in the caller's language.
		r = e.Client().Do("POST", "/v1/api/auth/login", map[string]any{"email": "a\x00b@example.com", "password": "x"}, "Accept-Language", "de-DE")
		check("login email", r, "email")
		if msg := r.Env().Message; msg != "Bitte korrigieren Sie die markierten Felder." {
			t.Errorf("login message not in German: %q", msg)
		}
		if n := len(calls) + 2; n != 47 {
			t.Errorf("%d requests, want the issue's 47", n)
		}
		r = e.Client().Get("/v1/api/lead/list-customer-lead?search="+q, "Accept-Language", "fr-FR")
		if !strings.Contains(r.Env().Message, "caractères non autorisés") {
			t.Errorf("query refusal not in the caller's language: %s", r.Body)
		}
	})
}

// TestControlCharactersInForms: the admin forms refuse control characters too, but a text
// area keeps its line breaks and tabs.
func TestControlCharactersInForms(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Form Co")
		b := e.Browser(f.Admin.Email)
		for _, bad := range []string{nul, "bell\x07", "esc\x1b[31m", "del\x7f", "c1\u0085", "tab\there", "line\nbreak"} {
			r := b.Form("/leads/new", url.Values{"customer_name": {bad}, "company_email": {"f@form.test"}, "company_phone_number": {"0123456789"}})
			if r.Status != http.StatusUnprocessableEntity {
				t.Errorf("lead form with %q: %d", bad, r.Status)
			}
			r = b.Form("/settings/masters/source", url.Values{"name": {bad}})
			if r.Status != http.StatusUnprocessableEntity {
				t.Errorf("master form with %q: %d", bad, r.Status)
			}
		}
		r := b.Form("/leads/new", url.Values{"customer_name": {"Ok Name"}, "company_email": {"ok@form.test"},
			"company_phone_number": {"0123456789"}, "notes": {"first line\r\n\tindented"}})
		if r.Status != http.StatusSeeOther {
			t.Fatalf("notes with line breaks: %d %s", r.Status, r.Body)
		}
		if r := b.Get("/leads?search=%FF"); r.Status != http.StatusBadRequest {
			t.Errorf("search that is not UTF-8: %d", r.Status)
		}
	})
}
