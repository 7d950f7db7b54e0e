package reminders_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/jobs"
)

func TestLeadPageRemindersAndNotifications(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		api := e.APIClient(f.Admin.Email)
		b := e.Browser(f.Admin.Email)
		id := apptest.NewLead(t, api, "Remind Lead")
		base := fmt.Sprintf("/leads/%d", id)
		page := b.Get(base)
		if !strings.Contains(page.Body, `data-island="picker"`) || !strings.Contains(page.Body, `type="datetime-local"`) || !strings.Contains(page.Body, "/static/build/picker-") {
			t.Fatalf("reminder form has no picker: %.3000s", page.Body)
		}
		if !strings.Contains(page.Body, `data-testid="notifications-count">0<`) {
			t.Fatal("header count is not 0")
		}
		// Refused: no title, a bad date.
		if r := b.Form(base+"/reminders", url.Values{"due_at": {"31/31/2020"}}); r.Status != 422 ||
			!strings.Contains(r.Body, `data-testid="error-title"`) || !strings.Contains(r.Body, `data-testid="error-due_at"`) {
			t.Fatalf("refused reminder: %d %.1500s", r.Status, r.Body)
		}
		past := time.Now().UTC().Add(-2 * time.Hour).Format("2006-01-02T15:04")
		r := b.Form(base+"/reminders", url.Values{"title": {"Call back"}, "note": {"About the offer"}, "due_at": {past},
			"assignee_id": {fmt.Sprint(f.Admin.ID)}})
		if r.Status != 303 {
			t.Fatalf("create reminder: %d %.1000s", r.Status, r.Body)
		}
		page = b.Get(base)
		if !strings.Contains(page.Body, "Call back") || !strings.Contains(page.Body, `data-testid="reminder-overdue"`) {
			t.Fatalf("reminder list: %.3000s", page.Body)
		}
		if _, err := jobs.FireReminders(context.Background(), e.DB, time.Now()); err != nil {
			t.Fatal(err)
		}
		page = b.Get(base)
		if !strings.Contains(page.Body, `data-testid="notifications-count">1<`) || !strings.Contains(page.Body, "notif-overdue") {
			t.Fatalf("header after firing: %.800s", page.Body)
		}
		n := b.Get("/notifications")
		if n.Status != 200 || !strings.Contains(n.Body, "Call back") || !strings.Contains(n.Body, `data-island="picker"`) {
			t.Fatalf("notifications page: %d %.2000s", n.Status, n.Body)
		}
		day := time.Now().UTC().Add(-2 * time.Hour).Format("2006-01-02")
		if r := b.Get("/notifications?from=" + day + "&to=" + day); !strings.Contains(r.Body, "Call back") {
			t.Fatal("range filter dropped the reminder")
		}
		if r := b.Get("/notifications?from=2001-01-01&to=2001-01-31"); strings.Contains(r.Body, "Call back") {
			t.Fatal("range filter kept a reminder outside it")
		}
		rid := regexp.MustCompile(`/reminders/(\d+)/edit`).FindStringSubmatch(page.Body)
		if rid == nil {
			t.Fatal("no edit link")
		}
		other := e.Browser(e.Tenant("Other").Admin.Email)
		if r := other.Get("/reminders/" + rid[1] + "/edit"); r.Status != 404 {
			t.Errorf("other tenant edit: %d", r.Status)
		}
		if r := other.Form(base+"/reminders", url.Values{"title": {"x"}, "due_at": {past}}); r.Status != 404 {
			t.Errorf("other tenant create: %d", r.Status)
		}
		if r := b.Get("/reminders/" + rid[1] + "/edit"); r.Status != 200 || !strings.Contains(r.Body, `value="`+past+`"`) {
			t.Fatalf("edit form: %d", r.Status)
		}
		if r := b.Form("/reminders/"+rid[1]+"/done", url.Values{}); r.Status != 303 {
			t.Fatalf("done: %d", r.Status)
		}
		if r := b.Get(base); !strings.Contains(r.Body, `data-testid="notifications-count">0<`) {
			t.Fatal("done reminder still counted")
		}
		if r := b.Form("/reminders/"+rid[1]+"/delete", url.Values{}); r.Status != 303 {
			t.Fatalf("delete: %d", r.Status)
		}
		viewer := e.Browser(e.User(f, "v@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll, Export: auth.ScopeAll}}).Email)
		if r := viewer.Form(base+"/reminders", url.Values{"title": {"x"}, "due_at": {past}}); r.Status != 403 {
			t.Errorf("viewer create: %d", r.Status)
		}
	})
}

func TestHomeShowsDueReminders(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		lead := apptest.NewLead(t, c, "Due Lead")
		b := e.Browser(f.Admin.Email)
		if r := b.Get("/home"); strings.Contains(r.Body, `data-testid="home-due-reminders"`) {
			t.Fatal("due reminders shown with none due")
		}
		c.Do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": lead, "title": "Ring Ana", "due_at": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)})
		if _, err := jobs.FireReminders(context.Background(), e.DB, time.Now()); err != nil {
			t.Fatal(err)
		}
		r := b.Get("/home")
		if !strings.Contains(r.Body, `data-testid="home-due-reminders"`) || !strings.Contains(r.Body, "Ring Ana") ||
			!strings.Contains(r.Body, `data-testid="reminder-overdue"`) {
			t.Fatalf("home without the due reminder: %s", r.Body)
		}
		// Another tenant's home never shows it.
		if r := e.Browser(e.Tenant("Other").Admin.Email).Get("/home"); strings.Contains(r.Body, "Ring Ana") {
			t.Fatal("due reminder shown to another tenant")
		}
	})
}

// The header's count of due reminders is part of leads: a user whose role has no view on
// leads gets no count, even for a reminder assigned to them.
func TestHeaderCountNeedsLeads(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		noLeads := e.User(f, "noleads@acme.test", map[auth.Feature]auth.Grant{auth.FeatureDashboard: {View: auth.ScopeAll, Export: auth.ScopeAll}})
		withLeads := e.User(f, "leads@acme.test", map[auth.Feature]auth.Grant{
			auth.FeatureDashboard: {View: auth.ScopeAll, Export: auth.ScopeAll}, auth.FeatureLeads: {View: auth.ScopeAll, Export: auth.ScopeAll}})
		c := e.APIClient(f.Admin.Email)
		lead := apptest.NewLead(t, c, "Due Lead")
		for _, u := range []int64{noLeads.ID, withLeads.ID} {
			r := c.Do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": lead, "title": "Ring Ana",
				"assignee_id": u, "due_at": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)})
			r.WantStatus(201)
		}
		if _, err := jobs.FireReminders(context.Background(), e.DB, time.Now()); err != nil {
			t.Fatal(err)
		}
		e.Browser(withLeads.Email).Get("/home").WantStatus(200).Has(`data-testid="notifications-count">1<`)
		e.Browser(noLeads.Email).Get("/home").WantStatus(200).Lacks(`data-testid="notifications-count">1<`)
	})
}
