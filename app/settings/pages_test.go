package settings_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
)

// masterNames lists a tenant's masters of a kind in display order.
func masterNames(t *testing.T, e *apptest.Env, f apptest.Tenant, kind store.MasterKind) []string {
	t.Helper()
	ms, err := e.DB.System(f.Tenant.ID, 0).Masters(context.Background(), kind)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}

func TestMasterPages(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.Browser(f.Admin.Email)
		if loc := c.Get("/settings").Location(); loc != "/settings/masters/stage" {
			t.Fatalf("/settings goes to %s", loc)
		}
		won := apptest.MasterID(t, e, f, store.KindStage, "Won")
		apptest.AddLead(t, e, f, 0, "Ana", apptest.InStage(won))
		apptest.AddLead(t, e, f, 0, "Bruno", apptest.InStage(won))

		// Every list renders with its lead counts.
		for kind, name := range map[string]string{"stage": "Deals", "status": "Converted", "source": "Referral", "type": "Warm",
			"title": "Dr.", "business_type": "Partnership"} {
			c.Get("/settings/masters/"+kind).WantStatus(200).Has(`data-testid="masters"`, `value="`+name+`"`, `data-testid="master-add"`)
		}
		stages := c.Get("/settings/masters/stage")
		stages.Has(`data-testid="master-Won"`, `data-stage-order="/v1/api/update-lead-stage-order"`, `<script src="/static/build/board-`)
		if !strings.Contains(stages.Body, `data-testid="master-Won"`) || !leadCountIs(stages.Body, "Won", 2) || !leadCountIs(stages.Body, "Deals", 0) {
			t.Fatalf("lead counts: %s", stages.Body)
		}
		c.Get("/settings/masters/nope").WantStatus(404)
		c.Htmx("/settings/masters/status", "main").WantStatus(200).Lacks("<html").Has("Lead statuses")

		// Add, with refusals at the field.
		if loc := c.Form("/settings/masters/source", url.Values{"name": {"Trade fair"}}).Location(); loc != "/settings/masters/source" {
			t.Fatalf("add went to %s", loc)
		}
		c.Get("/settings/masters/source").Has("Saved successfully", `value="Trade fair"`)
		c.Form("/settings/masters/source", url.Values{"name": {"Trade fair"}}).WantStatus(422).
			WantInlineError("f-add-name", "This is already in use.")
		c.Form("/settings/masters/source", url.Values{"name": {"  "}}).WantStatus(422).
			WantInlineError("f-add-name", "This field is required.")

		// Rename, with a refusal at the row.
		fair := apptest.MasterID(t, e, f, store.KindSource, "Trade fair")
		rename := fmt.Sprintf("/settings/masters/source/%d/rename", fair)
		c.Form(rename, url.Values{"name": {"Trade show"}}).WantStatus(303)
		c.Get("/settings/masters/source").Has("Updated successfully", `value="Trade show"`)
		r := c.Form(rename, url.Values{"name": {"Website"}}).WantStatus(422)
		r.WantInlineError(fmt.Sprintf("rename-%d", fair), "This is already in use.")
		r.Has(`value="Website"`)

		// Delete: refused while leads use it, with the count, before and after the click.
		del := fmt.Sprintf("/settings/masters/stage/%d/delete", won)
		c.Get(del).WantStatus(200).Has(`data-testid="confirm-error"`, "This entry is used by 2 leads and cannot be deleted.").
			Lacks(`data-testid="confirm-submit"`)
		c.Form(del, nil).WantStatus(http.StatusConflict).Has("This entry is used by 2 leads and cannot be deleted.")
		// A stage of the stage settings cannot go either.
		leads := apptest.MasterID(t, e, f, store.KindStage, "Leads")
		c.Form(fmt.Sprintf("/settings/masters/stage/%d/delete", leads), nil).WantStatus(422).
			Has("Choose another default, won or lost stage first.")
		// An unused entry goes after the confirmation.
		c.Get(fmt.Sprintf("/settings/masters/source/%d/delete", fair)).WantStatus(200).Has(`data-testid="confirm-submit"`, "Trade show")
		c.Form(fmt.Sprintf("/settings/masters/source/%d/delete", fair), nil).WantStatus(303)
		c.Get("/settings/masters/source").Has("Deleted successfully").Lacks("Trade show")
		// A master of another kind through this kind's path is not found.
		c.Form(fmt.Sprintf("/settings/masters/status/%d/rename", won), url.Values{"name": {"X"}}).WantStatus(404)
	})
}

// leadCountIs reports whether a master row shows n leads.
func leadCountIs(body, name string, n int) bool {
	i := strings.Index(body, `data-testid="master-`+name+`"`)
	if i < 0 {
		return false
	}
	row := body[i:]
	if j := strings.Index(row, "</tr>"); j >= 0 {
		row = row[:j]
	}
	return strings.Contains(row, `data-testid="lead-count">`+strconv.Itoa(n)+`<`)
}

func TestStageOrderPages(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.Browser(f.Admin.Email)
		deals := apptest.MasterID(t, e, f, store.KindStage, "Deals")
		c.Get("/settings/masters/stage").Has(fmt.Sprintf(`action="/settings/masters/stage/%d/move"`, deals), `data-testid="move-up-Deals"`)
		c.Form(fmt.Sprintf("/settings/masters/stage/%d/move", deals), url.Values{"dir": {"down"}}).WantStatus(303)
		if got := strings.Join(masterNames(t, e, f, store.KindStage), ","); got != "Leads,Won,Deals,Lost" {
			t.Fatalf("after down: %s", got)
		}
		c.Form(fmt.Sprintf("/settings/masters/stage/%d/move", deals), url.Values{"dir": {"up"}}).WantStatus(303)
		c.Form(fmt.Sprintf("/settings/masters/stage/%d/move", deals), url.Values{"dir": {"up"}}).WantStatus(303)
		if got := strings.Join(masterNames(t, e, f, store.KindStage), ","); got != "Deals,Leads,Won,Lost" {
			t.Fatalf("after up twice: %s", got)
		}
		// The first stays first.
		c.Form(fmt.Sprintf("/settings/masters/stage/%d/move", deals), url.Values{"dir": {"up"}}).WantStatus(303)
		c.Get("/settings/masters/stage").Has("Stage order saved")
		// The board follows the order.
		b := c.Get("/leads/board").Body
		if strings.Index(b, `data-testid="column-Deals"`) > strings.Index(b, `data-testid="column-Leads"`) {
			t.Fatal("board ignores the stage order")
		}
		// Only stages are ordered here.
		source := apptest.MasterID(t, e, f, store.KindSource, "Website")
		c.Form(fmt.Sprintf("/settings/masters/source/%d/move", source), url.Values{"dir": {"down"}}).WantStatus(404)
	})
}

func TestStageSettingsPage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.Browser(f.Admin.Email)
		leads, deals := apptest.MasterID(t, e, f, store.KindStage, "Leads"), apptest.MasterID(t, e, f, store.KindStage, "Deals")
		won, lost := apptest.MasterID(t, e, f, store.KindStage, "Won"), apptest.MasterID(t, e, f, store.KindStage, "Lost")
		c.Get("/settings/stages").WantStatus(200).Has(`data-testid="stage-settings"`, `<label for="f-won-stage-id">`,
			fmt.Sprintf(`<option value="%d" selected>Won</option>`, won))
		id := func(n int64) string { return strconv.FormatInt(n, 10) }
		r := c.Form("/settings/stages", url.Values{"default_stage_id": {id(leads)}, "won_stage_id": {id(won)}, "lost_stage_id": {id(won)}})
		r.WantStatus(422).WantInlineError("f-lost-stage-id", "The won and lost stages must be different.")
		c.Form("/settings/stages", url.Values{"default_stage_id": {id(deals)}, "won_stage_id": {id(won)}, "lost_stage_id": {""}}).
			WantStatus(422).WantInlineError("f-lost-stage-id", "This field is required.")
		c.Form("/settings/stages", url.Values{"default_stage_id": {id(deals)}, "won_stage_id": {id(lost)}, "lost_stage_id": {id(won)}}).WantStatus(303)
		c.Get("/settings/stages").Has("Stage settings saved", fmt.Sprintf(`<option value="%d" selected>Deals</option>`, deals))
		st, err := e.DB.System(f.Tenant.ID, 0).StageSettings(context.Background())
		if err != nil || st.DefaultStageID != deals || st.WonStageID != lost || st.LostStageID != won {
			t.Fatalf("stage settings: %+v %v", st, err)
		}
		// New leads start in the default stage.
		c.Get("/leads/new").Has(fmt.Sprintf(`<option value="%d" selected>Deals</option>`, deals))
	})
}

// TestSettingsPagesIsolateTenants: another tenant's master ids are not found on any page.
func TestSettingsPagesIsolateTenants(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		a, b := e.Tenant("Alpha"), e.Tenant("Beta")
		stage := apptest.MasterID(t, e, a, store.KindStage, "Deals")
		cb := e.Browser(b.Admin.Email)
		base := fmt.Sprintf("/settings/masters/stage/%d", stage)
		cb.Get(base + "/delete").WantStatus(404)
		for _, p := range []string{base + "/rename", base + "/move", base + "/delete"} {
			cb.Form(p, url.Values{"name": {"Hijacked"}, "dir": {"down"}}).WantStatus(404)
		}
		cb.Form("/settings/stages", url.Values{"default_stage_id": {strconv.FormatInt(stage, 10)}}).WantStatus(422)
		if got := strings.Join(masterNames(t, e, a, store.KindStage), ","); got != "Leads,Deals,Won,Lost" {
			t.Fatalf("alpha's stages changed: %s", got)
		}
		cb.Get("/settings/masters/stage").Lacks(fmt.Sprintf(`data-id="%d"`, stage))
	})
}

// TestSettingsPagesRefuseWithoutPermission: 403 for every page and action a role lacks.
func TestSettingsPagesRefuseWithoutPermission(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		stage := apptest.MasterID(t, e, f, store.KindStage, "Deals")
		viewer := e.Browser(e.User(f, "viewer@acme.test", map[auth.Feature]auth.Grant{auth.FeatureSettings: {View: auth.ScopeAll, Export: auth.ScopeAll}}).Email)
		nobody := e.Browser(e.User(f, "nobody@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: auth.Full}).Email)
		base := fmt.Sprintf("/settings/masters/stage/%d", stage)
		for _, p := range []string{"/settings", "/settings/masters/stage", "/settings/stages", base + "/delete"} {
			if r := nobody.Get(p); r.Status != http.StatusForbidden {
				t.Errorf("GET %s without settings: %d", p, r.Status)
			}
		}
		for _, p := range []string{"/settings/masters/stage", base + "/rename", base + "/move", base + "/delete", "/settings/stages"} {
			if r := viewer.Form(p, url.Values{"name": {"X"}}); r.Status != http.StatusForbidden {
				t.Errorf("POST %s as viewer: %d", p, r.Status)
			}
		}
		if r := viewer.Get(base + "/delete"); r.Status != http.StatusForbidden {
			t.Errorf("delete confirmation as viewer: %d", r.Status)
		}
		// The viewer sees the lists without the tools.
		page := viewer.Get("/settings/masters/stage").WantStatus(200)
		page.Lacks(`data-testid="master-add"`, "/rename", "/move", "/delete", "board-").Has("Deals")
		viewer.Get("/settings/stages").WantStatus(200).Has("<fieldset disabled>")
		nobody.Get("/leads").Lacks(`href="/settings"`)
		if got := strings.Join(masterNames(t, e, f, store.KindStage), ","); got != "Leads,Deals,Won,Lost" {
			t.Fatalf("refused calls changed the stages: %s", got)
		}
	})
}
