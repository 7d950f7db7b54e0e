package kit_test

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"crm/app/apptest"
	"crm/app/auth"
)

func TestKeepInTouchPages(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		api := e.APIClient(f.Admin.Email)
		b := e.Browser(f.Admin.Email)
		lead := apptest.NewLead(t, api, "Page Lead")
		base := fmt.Sprintf("/leads/%d", lead)

		page := b.Get(base)
		if !contains(page.Body, `data-testid="kit-section"`, `data-testid="kit-empty"`, `data-testid="kit-form"`, `name="start_at"`, "Email template") {
			t.Fatalf("lead page section: %.2000s", page.Body)
		}
		// A refused form comes back with its errors next to the fields (422).
		r := b.Form(base+"/keep-in-touch", url.Values{"type": {"call"}, "interval_type": {"weekly"}, "start_at": {""}, "active": {"1"}, "next": {base + "#keep-in-touch"}})
		if r.Status != 422 || !contains(r.Body, `id="f-start-at-error"`, `href="#f-start-at"`) {
			t.Fatalf("refused form: %d %.1500s", r.Status, r.Body)
		}
		start := time.Now().UTC().Add(26 * time.Hour).Format("2006-01-02T15:04")
		r = b.Form(base+"/keep-in-touch", url.Values{"type": {"call"}, "interval_type": {"weekly"}, "start_at": {start}, "active": {"1"},
			"subject": {"Quarterly review"}, "next": {base + "#keep-in-touch"}})
		if r.Status != 303 || r.Header.Get("Location") != base+"#keep-in-touch" {
			t.Fatalf("add: %d %v %.500s", r.Status, r.Header, r.Body)
		}
		page = b.Get(base)
		if strings.Count(page.Body, `data-testid="kit-plan"`) != 1 || !contains(page.Body, "Keep-in-touch plan added.", "Quarterly review", strings.Replace(start, "T", " ", 1)) {
			t.Fatalf("lead page after add: %.3000s", page.Body)
		}
		planID := regexp.MustCompile(`/keep-in-touch/(\d+)/edit`).FindStringSubmatch(page.Body)[1]

		// The list page: the plan with its record; filters.
		list := b.Get("/keep-in-touch")
		if list.Status != 200 || !contains(list.Body, `data-testid="kit-plan"`, "Page Lead", "1 plan") {
			t.Fatalf("list: %d %.2000s", list.Status, list.Body)
		}
		if l := b.Get("/keep-in-touch?type=email"); strings.Contains(l.Body, `data-testid="kit-plan"`) || !strings.Contains(l.Body, `data-testid="kit-empty"`) {
			t.Fatalf("filtered list: %.1500s", l.Body)
		}
		// Pause, from the list: back to the list, the plan paused.
		r = b.Form("/keep-in-touch/"+planID+"/active", url.Values{"active": {"0"}, "next": {"/keep-in-touch"}})
		if r.Status != 303 || r.Header.Get("Location") != "/keep-in-touch" {
			t.Fatalf("pause: %d %v", r.Status, r.Header)
		}
		if l := b.Get("/keep-in-touch?active=false"); !contains(l.Body, `data-testid="kit-paused"`, "Plan paused.", `data-testid="kit-resume"`) {
			t.Fatalf("paused: %.2000s", l.Body)
		}
		// Edit: the form holds the plan; a save goes back.
		edit := b.Get("/keep-in-touch/" + planID + "/edit?next=" + url.QueryEscape(base+"#keep-in-touch"))
		if edit.Status != 200 || !contains(edit.Body, `value="`+start+`"`, `value="Quarterly review"`) {
			t.Fatalf("edit: %d %.2000s", edit.Status, edit.Body)
		}
		r = b.Form("/keep-in-touch/"+planID+"/edit", url.Values{"type": {"meeting"}, "interval_type": {"monthly"}, "start_at": {start}, "active": {"1"}, "next": {base + "#keep-in-touch"}})
		if r.Status != 303 {
			t.Fatalf("save: %d %.1000s", r.Status, r.Body)
		}
		if v := api.Get("/v1/api/kit/view-keep-in-touch/" + planID).Env().Data; v["type"] != "meeting" || v["interval_type"] != "monthly" || v["active"] != true {
			t.Fatalf("saved: %v", v)
		}
		// Delete asks first, then deletes.
		confirm := b.Get("/keep-in-touch/" + planID + "/delete?next=" + url.QueryEscape(base+"#keep-in-touch"))
		if confirm.Status != 200 || !contains(confirm.Body, "Delete this plan?", `data-testid="confirm-cancel"`) {
			t.Fatalf("confirm: %d %.1500s", confirm.Status, confirm.Body)
		}
		r = b.Form("/keep-in-touch/"+planID+"/delete", url.Values{"next": {base + "#keep-in-touch"}})
		if r.Status != 303 || r.Header.Get("Location") != base+"#keep-in-touch" {
			t.Fatalf("delete: %d %v", r.Status, r.Header)
		}
		if p := b.Get(base); strings.Contains(p.Body, `data-testid="kit-plan"`) {
			t.Fatal("the plan is still on the lead page")
		}

		// The client page has the section too.
		client := newClient(t, api, "Page Client")
		if p := b.Get(fmt.Sprintf("/clients/%d", client)); !contains(p.Body, `data-testid="kit-section"`, fmt.Sprintf(`action="/clients/%d/keep-in-touch"`, client)) {
			t.Fatalf("client page: %.2000s", p.Body)
		}
		// A viewer sees the section without the form or the actions.
		viewer := e.Browser(e.User(f, "v@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll}}).Email)
		if p := viewer.Get(base); !strings.Contains(p.Body, `data-testid="kit-section"`) || strings.Contains(p.Body, `data-testid="kit-form"`) {
			t.Fatalf("viewer's lead page: %.2000s", p.Body)
		}
		// Another tenant's plan is not found.
		id := api.Do("POST", "/v1/api/kit/create-keep-in-touch", map[string]any{"entity": "lead", "record_id": lead, "type": "call", "interval_type": "daily", "start_at": start})
		other := e.Browser(e.Tenant("Other").Admin.Email)
		if r := other.Get(fmt.Sprintf("/keep-in-touch/%d/edit", idOf(id))); r.Status != 404 {
			t.Fatalf("another tenant's edit: %d", r.Status)
		}
	})
}

func idOf(r *apptest.Response) int64 { return id(r) }
