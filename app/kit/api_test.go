package kit_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
	"crm/app/store/storetest"
)

func id(r *apptest.Response) int64 {
	v, _ := r.Env().Data["id"].(float64)
	return int64(v)
}

func newClient(t *testing.T, c *apptest.Client, name string) int64 {
	t.Helper()
	r := c.Do("POST", "/v1/api/client/create-customer-client", map[string]any{"customer_name": name,
		"company_email": "client@example.test", "company_phone_number": "0123456789"})
	if r.Status != 201 {
		t.Fatalf("client: %d %s", r.Status, r.Body)
	}
	return id(r)
}

func template(t *testing.T, e *apptest.Env, f apptest.Tenant) int64 {
	t.Helper()
	tm, err := e.Scope(f).CreateEmailTemplate(context.Background(), store.EmailTemplateInput{Name: "Check-in",
		Subject: "How are things, {{customer_name}}?", Body: "Hello {{customer_name}}, just checking in."})
	if err != nil {
		t.Fatal(err)
	}
	return tm.ID
}

// items is a dropdown's entries.
func items(t *testing.T, r *apptest.Response) []map[string]any {
	t.Helper()
	var env struct {
		Data []map[string]any `json:"data"`
	}
	apptest.MustJSON(t, r.Body, &env)
	return env.Data
}

func contains(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

func soon(d time.Duration) string { return time.Now().UTC().Add(d).Format("2006-01-02T15:04") }

func TestKeepInTouchAPI(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		lead := apptest.NewLead(t, c, "Kit Lead")
		client := newClient(t, c, "Kit Client")
		tmpl := template(t, e, f)

		// Dropdowns: the kinds, the intervals and the event type master seeded with the tenant.
		if d := c.Get("/v1/api/kit/dropdown-keep-in-touch-type"); d.Status != 200 || len(items(t, d)) != 3 {
			t.Fatalf("types: %d %s", d.Status, d.Body)
		}
		if d := c.Get("/v1/api/kit/dropdown-interval-type"); d.Status != 200 || len(items(t, d)) != 6 {
			t.Fatalf("intervals: %d %s", d.Status, d.Body)
		}
		events := c.Get("/v1/api/dropdown-event-type")
		names := []string{}
		for _, it := range items(t, events) {
			names = append(names, it["label"].(string))
		}
		if fmt.Sprint(names) != "[Email Call Meeting]" {
			t.Fatalf("event types: %v", names)
		}
		meeting := int64(items(t, events)[2]["value"].(float64))

		// Validation: each field's error key.
		r := c.Do("POST", "/v1/api/kit/create-keep-in-touch", map[string]any{"entity": "lead", "record_id": lead, "type": "fax", "interval_type": "hourly"})
		if r.Status != 422 || r.Env().Errors["type"] != "invalid" || r.Env().Errors["interval_type"] != "invalid" || r.Env().Errors["start_at"] != "required" {
			t.Fatalf("invalid: %d %s", r.Status, r.Body)
		}
		r = c.Do("POST", "/v1/api/kit/create-keep-in-touch", map[string]any{"entity": "lead", "record_id": lead, "type": "email", "interval_type": "weekly", "start_at": soon(time.Hour)})
		if r.Status != 422 || r.Env().Errors["template_id"] != "required" {
			t.Fatalf("email without template: %d %s", r.Status, r.Body)
		}
		r = c.Do("POST", "/v1/api/kit/create-keep-in-touch", map[string]any{"entity": "lead", "record_id": lead, "type": "email", "interval_type": "weekly",
			"start_at": "next tuesday", "template_id": tmpl + 1000, "event_type_id": 99999, "subject": "<b>x</b>"})
		if r.Status != 422 || r.Env().Errors["start_at"] != "invalidDate" || r.Env().Errors["template_id"] != "invalid" ||
			r.Env().Errors["event_type_id"] != "invalid" || r.Env().Errors["subject"] != "htmlNotAllowed" {
			t.Fatalf("bad values: %d %s", r.Status, r.Body)
		}
		r = c.Do("POST", "/v1/api/kit/create-keep-in-touch", map[string]any{"entity": "lead", "record_id": lead, "type": "call", "interval_type": "once", "start_at": soon(-48 * time.Hour)})
		if r.Status != 422 || r.Env().Errors["start_at"] != "invalidDate" {
			t.Fatalf("one-off in the past: %d %s", r.Status, r.Body)
		}
		if r := c.Do("POST", "/v1/api/kit/create-keep-in-touch", map[string]any{"entity": "ticket", "record_id": lead}); r.Status != 422 || r.Env().Errors["entity"] != "invalid" {
			t.Fatalf("bad entity: %d %s", r.Status, r.Body)
		}

		// A call plan on the lead, an email plan on the lead and on the client.
		r = c.Do("POST", "/v1/api/kit/create-keep-in-touch", map[string]any{"entity": "lead", "record_id": lead, "type": "meeting",
			"event_type_id": meeting, "interval_type": "monthly", "start_at": soon(2 * time.Hour), "note": "Coffee"})
		if r.Status != 201 || r.Env().Message != "Keep-in-touch plan added." || r.Env().Data["event_type_name"] != "Meeting" ||
			r.Env().Data["owner_id"] != float64(f.Admin.ID) || r.Env().Data["active"] != true || r.Env().Data["record_name"] != "Kit Lead" {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		call := id(r)
		r = c.Do("POST", "/v1/api/kit/create-keep-in-touch", map[string]any{"entity": "lead", "record_id": lead, "type": "email",
			"interval_type": "weekly", "start_at": soon(3 * time.Hour), "template_id": tmpl})
		mail := id(r)
		r = c.Do("POST", "/v1/api/kit/create-keep-in-touch", map[string]any{"entity": "client", "record_id": client, "type": "email",
			"interval_type": "quarterly", "start_at": soon(4 * time.Hour), "template_id": tmpl})
		if r.Status != 201 || r.Env().Data["client_id"] != float64(client) {
			t.Fatalf("client plan: %d %s", r.Status, r.Body)
		}
		clientPlan := id(r)

		// The list: by next occurrence; filters.
		list := c.Get("/v1/api/kit/list-keep-in-touch").Env()
		rows := list.Data["result"].([]any)
		if list.Data["total"] != 3.0 || rows[0].(map[string]any)["id"] != float64(call) || rows[2].(map[string]any)["id"] != float64(clientPlan) {
			t.Fatalf("list: %s", c.Get("/v1/api/kit/list-keep-in-touch").Body)
		}
		if l := c.Get("/v1/api/kit/list-keep-in-touch?type=email").Env(); l.Data["total"] != 2.0 {
			t.Fatalf("type filter: %v", l.Data)
		}
		if l := c.Get(fmt.Sprintf("/v1/api/kit/list-keep-in-touch?entity=client&record_id=%d", client)).Env(); l.Data["total"] != 1.0 {
			t.Fatalf("record filter: %v", l.Data)
		}
		if r := c.Get("/v1/api/kit/list-keep-in-touch?active=maybe"); r.Status != 422 || r.Env().Errors["active"] != "invalid" {
			t.Fatalf("bad filter: %d %s", r.Status, r.Body)
		}

		// Pause: out of the active list; resume.
		r = c.Do("PUT", fmt.Sprintf("/v1/api/kit/update-keep-in-touch/%d", call), map[string]any{"type": "meeting", "interval_type": "monthly",
			"start_at": soon(2 * time.Hour), "active": false, "event_type_id": meeting})
		if r.Status != 200 || r.Env().Data["active"] != false {
			t.Fatalf("pause: %d %s", r.Status, r.Body)
		}
		if l := c.Get("/v1/api/kit/list-keep-in-touch?active=true").Env(); l.Data["total"] != 2.0 {
			t.Fatalf("active filter: %v", l.Data)
		}

		// Send now: the email is queued for the lead, the plan moves by one occurrence.
		before := c.Get(fmt.Sprintf("/v1/api/kit/view-keep-in-touch/%d", mail)).Env().Data
		r = c.Do("POST", fmt.Sprintf("/v1/api/kit/send-now/%d", mail), nil)
		if r.Status != 200 || r.Env().Data["occurrences"] != 1.0 || r.Env().Data["next_at"] == before["next_at"] {
			t.Fatalf("send now: %d %s", r.Status, r.Body)
		}
		h := c.Get(fmt.Sprintf("/v1/api/list-email-history?lead_id=%d", lead)).Env()
		sent := h.Data["result"].([]any)
		if len(sent) != 1 || sent[0].(map[string]any)["subject"] != "How are things, Kit Lead?" || sent[0].(map[string]any)["status"] != "queued" ||
			sent[0].(map[string]any)["kind"] != "bulk" {
			t.Fatalf("history: %v", h.Data)
		}

		// Another tenant: 404 for each plan route, nothing in its list.
		other := e.APIClient(e.Tenant("Other").Admin.Email)
		for _, call := range []struct{ method, path string }{
			{"GET", fmt.Sprintf("/v1/api/kit/view-keep-in-touch/%d", mail)},
			{"PUT", fmt.Sprintf("/v1/api/kit/update-keep-in-touch/%d", mail)},
			{"DELETE", fmt.Sprintf("/v1/api/kit/delete-keep-in-touch/%d", mail)},
			{"POST", fmt.Sprintf("/v1/api/kit/send-now/%d", mail)},
			{"POST", "/v1/api/kit/create-keep-in-touch"},
		} {
			r := other.Do(call.method, call.path, map[string]any{"entity": "lead", "record_id": lead, "type": "call", "interval_type": "daily", "start_at": soon(time.Hour)})
			if r.Status != http.StatusNotFound {
				t.Errorf("%s %s from another tenant: %d %s", call.method, call.path, r.Status, r.Body)
			}
		}
		if l := other.Get("/v1/api/kit/list-keep-in-touch").Env(); l.Data["total"] != 0.0 {
			t.Fatalf("another tenant's list: %v", l.Data)
		}

		// A role with clients only: the lead's plans are refused (403), the client's served.
		clientsOnly := e.APIClient(e.User(f, "c@acme.test", map[auth.Feature]auth.Grant{
			auth.FeatureClients: {View: auth.ScopeAll, Update: auth.ScopeAll}}).Email)
		for _, call := range []struct{ method, path string }{
			{"GET", fmt.Sprintf("/v1/api/kit/view-keep-in-touch/%d", mail)},
			{"PUT", fmt.Sprintf("/v1/api/kit/update-keep-in-touch/%d", mail)},
			{"DELETE", fmt.Sprintf("/v1/api/kit/delete-keep-in-touch/%d", mail)},
			{"POST", fmt.Sprintf("/v1/api/kit/send-now/%d", mail)},
			{"POST", "/v1/api/kit/create-keep-in-touch"},
		} {
			r := clientsOnly.Do(call.method, call.path, map[string]any{"entity": "lead", "record_id": lead, "type": "call", "interval_type": "daily", "start_at": soon(time.Hour)})
			if r.Status != http.StatusForbidden {
				t.Errorf("%s %s with clients only: %d %s", call.method, call.path, r.Status, r.Body)
			}
		}
		if l := clientsOnly.Get("/v1/api/kit/list-keep-in-touch").Env(); l.Data["total"] != 1.0 {
			t.Fatalf("clients-only list: %v", l.Data)
		}
		if r := clientsOnly.Get(fmt.Sprintf("/v1/api/kit/view-keep-in-touch/%d", clientPlan)); r.Status != 200 {
			t.Fatalf("clients-only view of the client's plan: %d %s", r.Status, r.Body)
		}
		// A viewer of leads may see, not change.
		viewer := e.APIClient(e.User(f, "v@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll}}).Email)
		if r := viewer.Get(fmt.Sprintf("/v1/api/kit/view-keep-in-touch/%d", mail)); r.Status != 200 {
			t.Fatalf("viewer: %d", r.Status)
		}
		if r := viewer.Do("POST", fmt.Sprintf("/v1/api/kit/send-now/%d", mail), nil); r.Status != http.StatusForbidden {
			t.Fatalf("viewer send now: %d", r.Status)
		}

		// Deleting an event type in Settings leaves the plans that named it without one.
		if r := c.Do("DELETE", fmt.Sprintf("/v1/api/delete-event-type/%d", meeting), nil); r.Status != 200 {
			t.Fatalf("delete event type: %d %s", r.Status, r.Body)
		}
		if v := c.Get(fmt.Sprintf("/v1/api/kit/view-keep-in-touch/%d", call)).Env().Data; v["event_type_id"] != nil || v["event_type_name"] != "" {
			t.Fatalf("plan after its event type went: %v", v)
		}

		// Delete.
		if r := c.Do("DELETE", fmt.Sprintf("/v1/api/kit/delete-keep-in-touch/%d", mail), nil); r.Status != 200 {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		if r := c.Get(fmt.Sprintf("/v1/api/kit/view-keep-in-touch/%d", mail)); r.Status != 404 {
			t.Fatalf("deleted plan: %d", r.Status)
		}
	})
}

// backdate moves the plans' reminders' due time, as the owner (around the store).
func backdate(t *testing.T, e *apptest.Env, to time.Time) {
	t.Helper()
	err := storetest.Owner(t, e.DB).RunInTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewRaw("UPDATE reminders SET due_at = ? WHERE kit_id IS NOT NULL", to.UTC()).Exec(ctx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func bucketNames(d map[string]any, bucket string) []string {
	var out []string
	for _, it := range d[bucket].([]any) {
		out = append(out, it.(map[string]any)["record_name"].(string))
	}
	return out
}

func TestMeetingDashboard(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		f := e.Tenant("Acme")
		admin := e.APIClient(f.Admin.Email)
		own := map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeOwn, Create: auth.ScopeOwn, Update: auth.ScopeOwn}}
		rep := e.User(f, "rep@acme.test", own)
		repc := e.APIClient(rep.Email)
		loner := e.APIClient(e.User(f, "loner@acme.test", own).Email)
		team, err := e.Scope(f).CreateTeam(ctx, "Sales")
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range []int64{f.Admin.ID, rep.ID} {
			if _, err := e.Scope(f).AddTeamMember(ctx, team.ID, u); err != nil {
				t.Fatal(err)
			}
		}
		now := time.Now().UTC()
		plan := func(c *apptest.Client, lead int64, typ string, start time.Time) int64 {
			r := c.Do("POST", "/v1/api/kit/create-keep-in-touch", map[string]any{"entity": "lead", "record_id": lead, "type": typ,
				"interval_type": "monthly", "start_at": start.Format("2006-01-02T15:04")})
			if r.Status != 201 {
				t.Fatalf("plan: %d %s", r.Status, r.Body)
			}
			return id(r)
		}
		// The administrator's: a meeting produced long ago (overdue), a call in a minute
		// (today, or this week right before midnight), an email (never on the dashboard).
		old := apptest.NewLead(t, admin, "Old Lead")
		plan(admin, old, "meeting", now.Add(time.Minute))
		if _, err := e.DB.ProduceDueKit(ctx, now.Add(2*time.Minute), store.KitHooks{}); err != nil {
			t.Fatal(err)
		}
		backdate(t, e, now.AddDate(0, 0, -3))
		soonLead := apptest.NewLead(t, admin, "Soon Lead")
		plan(admin, soonLead, "call", now.Add(time.Minute))
		// The rep's call, on the rep's own lead.
		repLead := apptest.NewLead(t, repc, "Rep Lead")
		plan(repc, repLead, "call", now.Add(time.Minute))

		today := now.Truncate(24 * time.Hour)
		wantSoon := "today"
		if !now.Add(time.Minute).Before(today.AddDate(0, 0, 1)) {
			wantSoon = "this_week"
		}
		d := admin.Get("/v1/api/kit/dashboard/meeting").Env().Data
		if fmt.Sprint(bucketNames(d, "overdue")) != "[Old Lead]" || fmt.Sprint(bucketNames(d, wantSoon)) != "[Soon Lead]" || d["team"] != false || d["may_team"] != true {
			t.Fatalf("the administrator's own: %v", d)
		}
		// The team's: the rep's call too; the loner is in no team.
		d = admin.Get("/v1/api/kit/dashboard/meeting?scope=team").Env().Data
		if got := fmt.Sprint(bucketNames(d, wantSoon)); d["team"] != true || (got != "[Soon Lead Rep Lead]" && got != "[Rep Lead Soon Lead]") {
			t.Fatalf("the team's: %v", d)
		}
		// An own-scope user gets their own, even asking for the team's.
		d = repc.Get("/v1/api/kit/dashboard/meeting?scope=team").Env().Data
		if d["team"] != false || d["may_team"] != false || fmt.Sprint(bucketNames(d, wantSoon)) != "[Rep Lead]" || len(d["overdue"].([]any)) != 0 {
			t.Fatalf("the rep's: %v", d)
		}
		if d := loner.Get("/v1/api/kit/dashboard/meeting").Env().Data; len(d["today"].([]any))+len(d["this_week"].([]any))+len(d["overdue"].([]any)) != 0 {
			t.Fatalf("the loner's: %v", d)
		}
		if r := admin.Get("/v1/api/kit/dashboard/meeting?scope=everyone"); r.Status != 422 {
			t.Fatalf("bad scope: %d", r.Status)
		}
		// Done: the overdue meeting leaves the dashboard.
		d = admin.Get("/v1/api/kit/dashboard/meeting").Env().Data
		rid := int64(d["overdue"].([]any)[0].(map[string]any)["reminder_id"].(float64))
		r := admin.Do("PUT", fmt.Sprintf("/v1/api/lead/update-remainders/%d", rid), map[string]any{"title": "Meeting", "due_at": now.AddDate(0, 0, -3).Format(time.RFC3339), "done": true})
		if r.Status != 200 {
			t.Fatalf("done: %d %s", r.Status, r.Body)
		}
		if d := admin.Get("/v1/api/kit/dashboard/meeting").Env().Data; len(d["overdue"].([]any)) != 0 {
			t.Fatalf("done meeting still overdue: %v", d)
		}
		// The home page shows the block.
		if p := e.Browser(f.Admin.Email).Get("/home"); p.Status != 200 || !contains(p.Body, `data-testid="meeting-dashboard"`, "Soon Lead") {
			t.Fatalf("home: %d %.300s", p.Status, p.Body)
		}
	})
}
