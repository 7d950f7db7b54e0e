package reminders_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/jobs"
)

func TestRemindersAPI(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		lead := apptest.NewLead(t, c, "Remind Lead")
		past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
		future := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)

		r := c.Do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": lead, "title": "Call back", "due_at": past, "note": "About the offer"})
		if r.Status != 201 || r.Env().Message != "Reminder created" || r.Env().Data["overdue"] != true {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		overdue := int64(r.Env().Data["id"].(float64))
		r = c.Do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": lead, "title": "Send the proposal", "due_at": future})
		later := int64(r.Env().Data["id"].(float64))
		if r := c.Do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": lead, "title": "", "due_at": "tomorrow"}); r.Status != 422 || r.Env().Errors["due_at"] != "invalidDate" {
			t.Fatalf("bad date: %d %s", r.Status, r.Body)
		}
		if r := c.Do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": lead, "title": "", "due_at": future}); r.Status != 422 || r.Env().Errors["title"] != "required" {
			t.Fatalf("no title: %d %s", r.Status, r.Body)
		}

		list := c.Get(fmt.Sprintf("/v1/api/lead/list-remainders?lead_id=%d", lead)).Env()
		if list.Data["total"] != 2.0 {
			t.Fatalf("list: %v", list.Data)
		}
		// Nothing is in the notifications until the worker fires the due one.
		if n := c.Get("/v1/api/notifications").Env(); n.Data["total"] != 0.0 {
			t.Fatalf("notifications before firing: %v", n.Data)
		}
		if _, err := jobs.FireReminders(context.Background(), e.DB, time.Now()); err != nil {
			t.Fatal(err)
		}
		n := c.Get("/v1/api/notifications").Env()
		rows := n.Data["result"].([]any)
		if len(rows) != 1 || rows[0].(map[string]any)["id"] != float64(overdue) || rows[0].(map[string]any)["overdue"] != true {
			t.Fatalf("notifications: %v", n.Data)
		}
		// Done: it leaves the notifications.
		r = c.Do("PUT", fmt.Sprintf("/v1/api/lead/update-remainders/%d", overdue), map[string]any{"title": "Call back", "due_at": past, "done": true})
		if r.Status != 200 || r.Env().Data["done_at"] == nil {
			t.Fatalf("done: %d %s", r.Status, r.Body)
		}
		if n := c.Get("/v1/api/notifications").Env(); n.Data["total"] != 0.0 {
			t.Fatalf("done reminder still notified: %v", n.Data)
		}
		// Other tenants and other users' permissions.
		other := e.APIClient(e.Tenant("Other").Admin.Email)
		for _, call := range []struct{ method, path string }{
			{"GET", fmt.Sprintf("/v1/api/lead/view-remainders/%d", later)},
			{"PUT", fmt.Sprintf("/v1/api/lead/update-remainders/%d", later)},
			{"DELETE", fmt.Sprintf("/v1/api/lead/delete-remainders/%d", later)},
			{"GET", fmt.Sprintf("/v1/api/lead/list-remainders?lead_id=%d", lead)},
			{"POST", "/v1/api/lead/create-remainders"},
		} {
			r := other.Do(call.method, call.path, map[string]any{"lead_id": lead, "title": "x", "due_at": future})
			if r.Status != http.StatusNotFound {
				t.Errorf("%s %s from another tenant: %d %s", call.method, call.path, r.Status, r.Body)
			}
		}
		viewer := e.APIClient(e.User(f, "v@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll, Export: auth.ScopeAll}}).Email)
		for _, call := range []struct{ method, path string }{
			{"POST", "/v1/api/lead/create-remainders"},
			{"PUT", fmt.Sprintf("/v1/api/lead/update-remainders/%d", later)},
			{"DELETE", fmt.Sprintf("/v1/api/lead/delete-remainders/%d", later)},
		} {
			if r := viewer.Do(call.method, call.path, map[string]any{}); r.Status != http.StatusForbidden {
				t.Errorf("%s %s without permission: %d", call.method, call.path, r.Status)
			}
		}
		if r := c.Do("DELETE", fmt.Sprintf("/v1/api/lead/delete-remainders/%d", later), nil); r.Status != 200 {
			t.Fatalf("delete: %d", r.Status)
		}
	})
}
