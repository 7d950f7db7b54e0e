package app_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"crm/app/auth"
	"crm/app/jobs"
)

func TestRemindersAPI(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.apiClient(f.Admin.Email)
		lead := newLead(t, c, "Remind Lead")
		past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
		future := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)

		r := c.do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": lead, "title": "Call back", "due_at": past, "note": "About the offer"})
		if r.status != 201 || r.env().Message != "Reminder created" || r.env().Data["overdue"] != true {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		overdue := int64(r.env().Data["id"].(float64))
		r = c.do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": lead, "title": "Send the proposal", "due_at": future})
		later := int64(r.env().Data["id"].(float64))
		if r := c.do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": lead, "title": "", "due_at": "tomorrow"}); r.status != 422 || r.env().Errors["due_at"] != "invalidDate" {
			t.Fatalf("bad date: %d %s", r.status, r.body)
		}
		if r := c.do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": lead, "title": "", "due_at": future}); r.status != 422 || r.env().Errors["title"] != "required" {
			t.Fatalf("no title: %d %s", r.status, r.body)
		}

		list := c.get(fmt.Sprintf("/v1/api/lead/list-remainders?lead_id=%d", lead)).env()
		if list.Data["total"] != 2.0 {
			t.Fatalf("list: %v", list.Data)
		}
		// Nothing is in the notifications until the worker fires the due one.
		if n := c.get("/v1/api/notifications").env(); n.Data["total"] != 0.0 {
			t.Fatalf("notifications before firing: %v", n.Data)
		}
		if _, err := jobs.FireReminders(context.Background(), e.db, time.Now()); err != nil {
			t.Fatal(err)
		}
		n := c.get("/v1/api/notifications").env()
		rows := n.Data["result"].([]any)
		if len(rows) != 1 || rows[0].(map[string]any)["id"] != float64(overdue) || rows[0].(map[string]any)["overdue"] != true {
			t.Fatalf("notifications: %v", n.Data)
		}
		// Done: it leaves the notifications.
		r = c.do("PUT", fmt.Sprintf("/v1/api/lead/update-remainders/%d", overdue), map[string]any{"title": "Call back", "due_at": past, "done": true})
		if r.status != 200 || r.env().Data["done_at"] == nil {
			t.Fatalf("done: %d %s", r.status, r.body)
		}
		if n := c.get("/v1/api/notifications").env(); n.Data["total"] != 0.0 {
			t.Fatalf("done reminder still notified: %v", n.Data)
		}
		// Other tenants and other users' permissions.
		other := e.apiClient(e.tenant("Other").Admin.Email)
		for _, call := range []struct{ method, path string }{
			{"GET", fmt.Sprintf("/v1/api/lead/view-remainders/%d", later)},
			{"PUT", fmt.Sprintf("/v1/api/lead/update-remainders/%d", later)},
			{"DELETE", fmt.Sprintf("/v1/api/lead/delete-remainders/%d", later)},
			{"GET", fmt.Sprintf("/v1/api/lead/list-remainders?lead_id=%d", lead)},
			{"POST", "/v1/api/lead/create-remainders"},
		} {
			r := other.do(call.method, call.path, map[string]any{"lead_id": lead, "title": "x", "due_at": future})
			if r.status != http.StatusNotFound {
				t.Errorf("%s %s from another tenant: %d %s", call.method, call.path, r.status, r.body)
			}
		}
		viewer := e.apiClient(e.user(f, "v@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: true}}).Email)
		for _, call := range []struct{ method, path string }{
			{"POST", "/v1/api/lead/create-remainders"},
			{"PUT", fmt.Sprintf("/v1/api/lead/update-remainders/%d", later)},
			{"DELETE", fmt.Sprintf("/v1/api/lead/delete-remainders/%d", later)},
		} {
			if r := viewer.do(call.method, call.path, map[string]any{}); r.status != http.StatusForbidden {
				t.Errorf("%s %s without permission: %d", call.method, call.path, r.status)
			}
		}
		if r := c.do("DELETE", fmt.Sprintf("/v1/api/lead/delete-remainders/%d", later), nil); r.status != 200 {
			t.Fatalf("delete: %d", r.status)
		}
	})
}

func TestHomeShowsDueReminders(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.apiClient(f.Admin.Email)
		lead := newLead(t, c, "Due Lead")
		b := e.browser(f.Admin.Email)
		if r := b.get("/home"); strings.Contains(r.body, `data-testid="home-due-reminders"`) {
			t.Fatal("due reminders shown with none due")
		}
		c.do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": lead, "title": "Ring Ana", "due_at": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)})
		if _, err := jobs.FireReminders(context.Background(), e.db, time.Now()); err != nil {
			t.Fatal(err)
		}
		r := b.get("/home")
		if !strings.Contains(r.body, `data-testid="home-due-reminders"`) || !strings.Contains(r.body, "Ring Ana") ||
			!strings.Contains(r.body, `data-testid="reminder-overdue"`) {
			t.Fatalf("home without the due reminder: %s", r.body)
		}
		// Another tenant's home never shows it.
		if r := e.browser(e.tenant("Other").Admin.Email).get("/home"); strings.Contains(r.body, "Ring Ana") {
			t.Fatal("due reminder shown to another tenant")
		}
	})
}
