package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"crm/app/auth"
	"crm/app/store"
)

// masterNames lists a tenant's masters of a kind in display order.
func masterNames(t *testing.T, e *testEnv, f tenantFixture, kind store.MasterKind) []string {
	t.Helper()
	ms, err := e.db.Tenant(f.Tenant.ID, 0).Masters(context.Background(), kind)
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
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.browser(f.Admin.Email)
		if loc := c.get("/settings").location(); loc != "/settings/masters/stage" {
			t.Fatalf("/settings goes to %s", loc)
		}
		won := masterID(t, e, f, store.KindStage, "Won")
		addLead(t, e, f, 0, "Ana", inStage(won))
		addLead(t, e, f, 0, "Bruno", inStage(won))

		// Every list renders with its lead counts.
		for kind, name := range map[string]string{"stage": "Deals", "status": "Converted", "source": "Referral", "type": "Warm",
			"title": "Dr.", "business_type": "Partnership"} {
			c.get("/settings/masters/"+kind).wantStatus(200).has(`data-testid="masters"`, `value="`+name+`"`, `data-testid="master-add"`)
		}
		stages := c.get("/settings/masters/stage")
		stages.has(`data-testid="master-Won"`, `data-stage-order="/v1/api/update-lead-stage-order"`, `<script src="/static/build/board-`)
		if !strings.Contains(stages.body, `data-testid="master-Won"`) || !leadCountIs(stages.body, "Won", 2) || !leadCountIs(stages.body, "Deals", 0) {
			t.Fatalf("lead counts: %s", stages.body)
		}
		c.get("/settings/masters/nope").wantStatus(404)
		c.htmx("/settings/masters/status", "main").wantStatus(200).lacks("<html").has("Lead statuses")

		// Add, with refusals at the field.
		if loc := c.form("/settings/masters/source", url.Values{"name": {"Trade fair"}}).location(); loc != "/settings/masters/source" {
			t.Fatalf("add went to %s", loc)
		}
		c.get("/settings/masters/source").has("Saved successfully", `value="Trade fair"`)
		c.form("/settings/masters/source", url.Values{"name": {"Trade fair"}}).wantStatus(422).
			wantInlineError("f-add-name", "This is already in use.")
		c.form("/settings/masters/source", url.Values{"name": {"  "}}).wantStatus(422).
			wantInlineError("f-add-name", "This field is required.")

		// Rename, with a refusal at the row.
		fair := masterID(t, e, f, store.KindSource, "Trade fair")
		rename := fmt.Sprintf("/settings/masters/source/%d/rename", fair)
		c.form(rename, url.Values{"name": {"Trade show"}}).wantStatus(303)
		c.get("/settings/masters/source").has("Updated successfully", `value="Trade show"`)
		r := c.form(rename, url.Values{"name": {"Website"}}).wantStatus(422)
		r.wantInlineError(fmt.Sprintf("rename-%d", fair), "This is already in use.")
		r.has(`value="Website"`)

		// Delete: refused while leads use it, with the count, before and after the click.
		del := fmt.Sprintf("/settings/masters/stage/%d/delete", won)
		c.get(del).wantStatus(200).has(`data-testid="confirm-error"`, "This entry is used by 2 leads and cannot be deleted.").
			lacks(`data-testid="confirm-submit"`)
		c.form(del, nil).wantStatus(http.StatusConflict).has("This entry is used by 2 leads and cannot be deleted.")
		// A stage of the stage settings cannot go either.
		leads := masterID(t, e, f, store.KindStage, "Leads")
		c.form(fmt.Sprintf("/settings/masters/stage/%d/delete", leads), nil).wantStatus(422).
			has("Choose another default, won or lost stage first.")
		// An unused entry goes after the confirmation.
		c.get(fmt.Sprintf("/settings/masters/source/%d/delete", fair)).wantStatus(200).has(`data-testid="confirm-submit"`, "Trade show")
		c.form(fmt.Sprintf("/settings/masters/source/%d/delete", fair), nil).wantStatus(303)
		c.get("/settings/masters/source").has("Deleted successfully").lacks("Trade show")
		// A master of another kind through this kind's path is not found.
		c.form(fmt.Sprintf("/settings/masters/status/%d/rename", won), url.Values{"name": {"X"}}).wantStatus(404)
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
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.browser(f.Admin.Email)
		deals := masterID(t, e, f, store.KindStage, "Deals")
		c.get("/settings/masters/stage").has(fmt.Sprintf(`action="/settings/masters/stage/%d/move"`, deals), `data-testid="move-up-Deals"`)
		c.form(fmt.Sprintf("/settings/masters/stage/%d/move", deals), url.Values{"dir": {"down"}}).wantStatus(303)
		if got := strings.Join(masterNames(t, e, f, store.KindStage), ","); got != "Leads,Won,Deals,Lost" {
			t.Fatalf("after down: %s", got)
		}
		c.form(fmt.Sprintf("/settings/masters/stage/%d/move", deals), url.Values{"dir": {"up"}}).wantStatus(303)
		c.form(fmt.Sprintf("/settings/masters/stage/%d/move", deals), url.Values{"dir": {"up"}}).wantStatus(303)
		if got := strings.Join(masterNames(t, e, f, store.KindStage), ","); got != "Deals,Leads,Won,Lost" {
			t.Fatalf("after up twice: %s", got)
		}
		// The first stays first.
		c.form(fmt.Sprintf("/settings/masters/stage/%d/move", deals), url.Values{"dir": {"up"}}).wantStatus(303)
		c.get("/settings/masters/stage").has("Stage order saved")
		// The board follows the order.
		b := c.get("/leads/board").body
		if strings.Index(b, `data-testid="column-Deals"`) > strings.Index(b, `data-testid="column-Leads"`) {
			t.Fatal("board ignores the stage order")
		}
		// Only stages are ordered here.
		source := masterID(t, e, f, store.KindSource, "Website")
		c.form(fmt.Sprintf("/settings/masters/source/%d/move", source), url.Values{"dir": {"down"}}).wantStatus(404)
	})
}

func TestStageSettingsPage(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.browser(f.Admin.Email)
		leads, deals := masterID(t, e, f, store.KindStage, "Leads"), masterID(t, e, f, store.KindStage, "Deals")
		won, lost := masterID(t, e, f, store.KindStage, "Won"), masterID(t, e, f, store.KindStage, "Lost")
		c.get("/settings/stages").wantStatus(200).has(`data-testid="stage-settings"`, `<label for="f-won-stage-id">`,
			fmt.Sprintf(`<option value="%d" selected>Won</option>`, won))
		id := func(n int64) string { return strconv.FormatInt(n, 10) }
		r := c.form("/settings/stages", url.Values{"default_stage_id": {id(leads)}, "won_stage_id": {id(won)}, "lost_stage_id": {id(won)}})
		r.wantStatus(422).wantInlineError("f-lost-stage-id", "The won and lost stages must be different.")
		c.form("/settings/stages", url.Values{"default_stage_id": {id(deals)}, "won_stage_id": {id(won)}, "lost_stage_id": {""}}).
			wantStatus(422).wantInlineError("f-lost-stage-id", "This field is required.")
		c.form("/settings/stages", url.Values{"default_stage_id": {id(deals)}, "won_stage_id": {id(lost)}, "lost_stage_id": {id(won)}}).wantStatus(303)
		c.get("/settings/stages").has("Stage settings saved", fmt.Sprintf(`<option value="%d" selected>Deals</option>`, deals))
		st, err := e.db.Tenant(f.Tenant.ID, 0).StageSettings(context.Background())
		if err != nil || st.DefaultStageID != deals || st.WonStageID != lost || st.LostStageID != won {
			t.Fatalf("stage settings: %+v %v", st, err)
		}
		// New leads start in the default stage.
		c.get("/leads/new").has(fmt.Sprintf(`<option value="%d" selected>Deals</option>`, deals))
	})
}

// TestSettingsPagesIsolateTenants: another tenant's master ids are not found on any page.
func TestSettingsPagesIsolateTenants(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		a, b := e.tenant("Alpha"), e.tenant("Beta")
		stage := masterID(t, e, a, store.KindStage, "Deals")
		cb := e.browser(b.Admin.Email)
		base := fmt.Sprintf("/settings/masters/stage/%d", stage)
		cb.get(base + "/delete").wantStatus(404)
		for _, p := range []string{base + "/rename", base + "/move", base + "/delete"} {
			cb.form(p, url.Values{"name": {"Hijacked"}, "dir": {"down"}}).wantStatus(404)
		}
		cb.form("/settings/stages", url.Values{"default_stage_id": {strconv.FormatInt(stage, 10)}}).wantStatus(422)
		if got := strings.Join(masterNames(t, e, a, store.KindStage), ","); got != "Leads,Deals,Won,Lost" {
			t.Fatalf("alpha's stages changed: %s", got)
		}
		cb.get("/settings/masters/stage").lacks(fmt.Sprintf(`data-id="%d"`, stage))
	})
}

// TestSettingsPagesRefuseWithoutPermission: 403 for every page and action a role lacks.
func TestSettingsPagesRefuseWithoutPermission(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		stage := masterID(t, e, f, store.KindStage, "Deals")
		viewer := e.browser(e.user(f, "viewer@acme.test", map[auth.Feature]auth.Grant{auth.FeatureSettings: {View: true}}).Email)
		nobody := e.browser(e.user(f, "nobody@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: auth.Full}).Email)
		base := fmt.Sprintf("/settings/masters/stage/%d", stage)
		for _, p := range []string{"/settings", "/settings/masters/stage", "/settings/stages", base + "/delete"} {
			if r := nobody.get(p); r.status != http.StatusForbidden {
				t.Errorf("GET %s without settings: %d", p, r.status)
			}
		}
		for _, p := range []string{"/settings/masters/stage", base + "/rename", base + "/move", base + "/delete", "/settings/stages"} {
			if r := viewer.form(p, url.Values{"name": {"X"}}); r.status != http.StatusForbidden {
				t.Errorf("POST %s as viewer: %d", p, r.status)
			}
		}
		if r := viewer.get(base + "/delete"); r.status != http.StatusForbidden {
			t.Errorf("delete confirmation as viewer: %d", r.status)
		}
		// The viewer sees the lists without the tools.
		page := viewer.get("/settings/masters/stage").wantStatus(200)
		page.lacks(`data-testid="master-add"`, "/rename", "/move", "/delete", "board-").has("Deals")
		viewer.get("/settings/stages").wantStatus(200).has("<fieldset disabled>")
		nobody.get("/leads").lacks(`href="/settings"`)
		if got := strings.Join(masterNames(t, e, f, store.KindStage), ","); got != "Leads,Deals,Won,Lost" {
			t.Fatalf("refused calls changed the stages: %s", got)
		}
	})
}
