package reminders_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/jobs"
	"crm/app/store"
)

// TestClientReminders: a client created without a lead gets reminders of its own — from its
// keep-in-touch call plan (fired as a notification linking to the client), from its page
// and from the API — isolated from other tenants and refused to a role without clients.
func TestClientReminders(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		f := e.Tenant("Acme")
		api := e.APIClient(f.Admin.Email)
		b := e.Browser(f.Admin.Email)
		c, err := e.DB.System(f.Tenant.ID, f.Admin.ID).CreateClient(ctx, store.ClientInput{Contact: store.Contact{
			CustomerName: "Bob Direct", CompanyEmail: "bob@direct.test", CompanyPhoneNumber: "0123456789"}})
		if err != nil {
			t.Fatal(err)
		}
		if c.LeadID != nil {
			t.Fatal("the client has a lead")
		}
		base := fmt.Sprintf("/clients/%d", c.ID)

		// The keep-in-touch call plan: when due, a reminder for its owner on the client,
		// which fires as a notification linking to the client's page.
		start := time.Now().UTC().Add(time.Hour).Truncate(time.Minute)
		r := api.Do("POST", "/v1/api/kit/create-keep-in-touch", map[string]any{"entity": "client", "record_id": c.ID, "type": "call",
			"interval_type": "weekly", "start_at": start.Format("2006-01-02T15:04"), "subject": "Ring Bob"})
		if r.Status != 201 {
			t.Fatalf("plan: %d %s", r.Status, r.Body)
		}
		due := start.Add(time.Minute)
		if n, err := e.DB.ProduceDueKit(ctx, due, store.KitHooks{}); err != nil || n != 1 {
			t.Fatalf("produced %d (%v)", n, err)
		}
		if _, err := jobs.FireReminders(ctx, e.DB, due); err != nil {
			t.Fatal(err)
		}
		n := b.Get("/notifications")
		if n.Status != 200 || !strings.Contains(n.Body, "Call: Ring Bob") || !strings.Contains(n.Body, `href="`+base+`#reminders"`) ||
			!strings.Contains(n.Body, `data-testid="notifications-count">1<`) {
			t.Fatalf("notifications: %d %.3000s", n.Status, n.Body)
		}
		list := api.Get(fmt.Sprintf("/v1/api/lead/list-remainders?client_id=%d", c.ID)).Env()
		if list.Data["total"] != 1.0 {
			t.Fatalf("client reminders: %v", list.Data)
		}
		kitRow := list.Data["result"].([]any)[0].(map[string]any)
		if kitRow["client_id"] != float64(c.ID) || kitRow["lead_id"] != nil || kitRow["assignee_id"] != float64(f.Admin.ID) || kitRow["client_name"] != "Bob Direct" {
			t.Fatalf("kit reminder: %v", kitRow)
		}

		// The page: the section with its add form; add, edit, done, delete.
		page := b.Get(base)
		if !strings.Contains(page.Body, `data-testid="client-reminders"`) || !strings.Contains(page.Body, "Call: Ring Bob") ||
			!strings.Contains(page.Body, `action="`+base+`/reminders"`) {
			t.Fatalf("client page: %.4000s", page.Body)
		}
		if r := b.Form(base+"/reminders", url.Values{"due_at": {"nope"}}); r.Status != 422 || !strings.Contains(r.Body, `data-testid="error-title"`) {
			t.Fatalf("refused: %d %.1000s", r.Status, r.Body)
		}
		later := time.Now().UTC().Add(48 * time.Hour).Format("2006-01-02T15:04")
		r = b.Form(base+"/reminders", url.Values{"title": {"Send the quote"}, "due_at": {later}, "assignee_id": {fmt.Sprint(f.Admin.ID)}})
		if r.Status != 303 || r.Header.Get("Location") != base+"#reminders" {
			t.Fatalf("add: %d %v", r.Status, r.Header)
		}
		var rid int64
		for _, row := range api.Get(fmt.Sprintf("/v1/api/lead/list-remainders?client_id=%d", c.ID)).Env().Data["result"].([]any) {
			if m := row.(map[string]any); m["title"] == "Send the quote" {
				rid = int64(m["id"].(float64))
			}
		}
		if rid == 0 {
			t.Fatal("the added reminder is not listed")
		}
		edit := fmt.Sprintf("/reminders/%d/edit", rid)
		if r := b.Get(edit); r.Status != 200 || !strings.Contains(r.Body, `href="`+base+`#reminders"`) {
			t.Fatalf("edit page: %d %.2000s", r.Status, r.Body)
		}
		if r := b.Form(edit, url.Values{"title": {"Send the new quote"}, "due_at": {later}}); r.Status != 303 || r.Header.Get("Location") != base+"#reminders" {
			t.Fatalf("edit: %d %v", r.Status, r.Header)
		}
		if r := b.Form(fmt.Sprintf("/reminders/%d/done", rid), url.Values{}); r.Status != 303 || r.Header.Get("Location") != base+"#reminders" {
			t.Fatalf("done: %d %v", r.Status, r.Header)
		}
		if v := api.Get(fmt.Sprintf("/v1/api/lead/view-remainders/%d", rid)).Env(); v.Data["title"] != "Send the new quote" || v.Data["done_at"] == nil {
			t.Fatalf("after edit and done: %v", v.Data)
		}
		if r := b.Get(fmt.Sprintf("/reminders/%d/delete", rid)); r.Status != 200 {
			t.Fatalf("delete page: %d", r.Status)
		}
		if r := b.Form(fmt.Sprintf("/reminders/%d/delete", rid), url.Values{}); r.Status != 303 || r.Header.Get("Location") != base+"#reminders" {
			t.Fatalf("delete: %d %v", r.Status, r.Header)
		}
		if r := api.Get(fmt.Sprintf("/v1/api/lead/view-remainders/%d", rid)); r.Status != 404 {
			t.Fatalf("deleted reminder: %d", r.Status)
		}

		// The API: exactly one of lead_id and client_id.
		future := time.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)
		lead := apptest.NewLead(t, api, "Some Lead")
		if r := api.Do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": lead, "client_id": c.ID, "title": "Both", "due_at": future}); r.Status != 422 {
			t.Fatalf("both: %d %s", r.Status, r.Body)
		}
		if r := api.Do("POST", "/v1/api/lead/create-remainders", map[string]any{"title": "Neither", "due_at": future}); r.Status != 422 {
			t.Fatalf("neither: %d %s", r.Status, r.Body)
		}
		r = api.Do("POST", "/v1/api/lead/create-remainders", map[string]any{"client_id": c.ID, "title": "Visit", "due_at": future})
		if r.Status != 201 || r.Env().Data["client_id"] != float64(c.ID) || r.Env().Data["lead_id"] != nil {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		visit := int64(r.Env().Data["id"].(float64))
		if r := api.Do("PUT", fmt.Sprintf("/v1/api/lead/update-remainders/%d", visit), map[string]any{"title": "Visit Bob", "due_at": future}); r.Status != 200 || r.Env().Data["title"] != "Visit Bob" {
			t.Fatalf("update: %d %s", r.Status, r.Body)
		}

		// Another tenant: 404 everywhere.
		o := e.Tenant("Other")
		other, otherB := e.APIClient(o.Admin.Email), e.Browser(o.Admin.Email)
		for _, call := range []struct{ method, path string }{
			{"GET", fmt.Sprintf("/v1/api/lead/view-remainders/%d", visit)},
			{"PUT", fmt.Sprintf("/v1/api/lead/update-remainders/%d", visit)},
			{"DELETE", fmt.Sprintf("/v1/api/lead/delete-remainders/%d", visit)},
			{"GET", fmt.Sprintf("/v1/api/lead/list-remainders?client_id=%d", c.ID)},
			{"POST", "/v1/api/lead/create-remainders"},
		} {
			if r := other.Do(call.method, call.path, map[string]any{"client_id": c.ID, "title": "x", "due_at": future}); r.Status != http.StatusNotFound {
				t.Errorf("%s %s from another tenant: %d %s", call.method, call.path, r.Status, r.Body)
			}
		}
		if r := otherB.Get(fmt.Sprintf("/reminders/%d/edit", visit)); r.Status != 404 {
			t.Errorf("edit page from another tenant: %d", r.Status)
		}
		if r := otherB.Form(base+"/reminders", url.Values{"title": {"x"}, "due_at": {later}}); r.Status != 404 {
			t.Errorf("add from another tenant: %d", r.Status)
		}

		// A role with every leads permission but none on clients: 403 on the client's reminders.
		all := auth.Grant{View: auth.ScopeAll, Create: auth.ScopeAll, Update: auth.ScopeAll, Delete: auth.ScopeAll}
		u := e.User(f, "leadsonly@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: all})
		lo, loB := e.APIClient(u.Email), e.Browser(u.Email)
		for _, call := range []struct{ method, path string }{
			{"GET", fmt.Sprintf("/v1/api/lead/view-remainders/%d", visit)},
			{"PUT", fmt.Sprintf("/v1/api/lead/update-remainders/%d", visit)},
			{"DELETE", fmt.Sprintf("/v1/api/lead/delete-remainders/%d", visit)},
			{"GET", fmt.Sprintf("/v1/api/lead/list-remainders?client_id=%d", c.ID)},
			{"POST", "/v1/api/lead/create-remainders"},
		} {
			if r := lo.Do(call.method, call.path, map[string]any{"client_id": c.ID, "title": "x", "due_at": future}); r.Status != http.StatusForbidden {
				t.Errorf("%s %s without clients: %d %s", call.method, call.path, r.Status, r.Body)
			}
		}
		for _, p := range []string{fmt.Sprintf("/reminders/%d/edit", visit), fmt.Sprintf("/reminders/%d/delete", visit)} {
			if r := loB.Get(p); r.Status != 403 {
				t.Errorf("GET %s without clients: %d", p, r.Status)
			}
		}
		if r := loB.Form(fmt.Sprintf("/reminders/%d/done", visit), url.Values{}); r.Status != 403 {
			t.Errorf("done without clients: %d", r.Status)
		}
		if r := loB.Form(base+"/reminders", url.Values{"title": {"x"}, "due_at": {later}}); r.Status != 403 {
			t.Errorf("add without clients: %d", r.Status)
		}
		// The lead's reminders stay theirs.
		if r := lo.Do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": lead, "title": "Lead call", "due_at": future}); r.Status != 201 {
			t.Errorf("lead reminder by the leads-only role: %d %s", r.Status, r.Body)
		}
		if r := api.Do("DELETE", fmt.Sprintf("/v1/api/lead/delete-remainders/%d", visit), nil); r.Status != 200 {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
	})
}
