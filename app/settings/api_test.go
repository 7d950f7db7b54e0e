package settings_test

import (
	"fmt"
	"testing"

	"crm/app/apptest"
	"crm/app/store"
)

func TestMastersAndStageSettings(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		r := c.Do("POST", "/v1/api/create-lead-source-master", map[string]string{"name": "Trade fair"})
		if r.Status != 201 || r.Env().Message != "Saved successfully" {
			t.Fatalf("create source: %d %s", r.Status, r.Body)
		}
		fair := int64(r.Env().Data["id"].(float64))
		if r := c.Do("POST", "/v1/api/create-lead-source-master", map[string]string{"name": "Trade fair"}); r.Status != 422 || r.Env().Errors["name"] != "taken" {
			t.Fatalf("duplicate name: %d %s", r.Status, r.Body)
		}
		if r := c.Do("POST", "/v1/api/create-lead-source-master", map[string]string{"name": "<i>x</i>"}); r.Status != 422 || r.Env().Errors["name"] != "htmlNotAllowed" {
			t.Fatalf("html name: %d", r.Status)
		}
		r = c.Do("PUT", fmt.Sprintf("/v1/api/update-lead-source-master/%d", fair), map[string]string{"name": "Trade show"})
		if r.Status != 200 || r.Env().Data["name"] != "Trade show" {
			t.Fatalf("rename: %d %s", r.Status, r.Body)
		}
		// In use: refused with the count.
		id := apptest.NewLead(t, c, "Fair Lead")
		c.Do("PUT", fmt.Sprintf("/v1/api/lead/update-customer-lead/%d", id), map[string]any{"customer_name": "Fair Lead", "company_email": "fairlead@example.com", "lead_source_id": fair})
		r = c.Do("DELETE", fmt.Sprintf("/v1/api/delete-lead-source-master/%d", fair), nil)
		if r.Status != 409 || r.Env().Message != "This entry is used by 1 lead and cannot be deleted." {
			t.Fatalf("delete in use: %d %s", r.Status, r.Body)
		}
		list := c.Get("/v1/api/list-lead-source-master").Env()
		found := false
		for _, row := range list.Data["result"].([]any) {
			m := row.(map[string]any)
			if m["name"] == "Trade show" && m["lead_count"] == 1.0 {
				found = true
			}
		}
		if !found {
			t.Fatalf("list with usage: %v", list.Data)
		}
		c.Do("DELETE", fmt.Sprintf("/v1/api/lead/delete-customer-lead/%d", id), nil)
		if r := c.Do("DELETE", fmt.Sprintf("/v1/api/delete-lead-source-master/%d", fair), nil); r.Status != 200 {
			t.Fatalf("delete unused: %d %s", r.Status, r.Body)
		}

		// Stage order by drag: the new order is the dropdown's order.
		var stages []int64
		for _, n := range []string{"Won", "Lost", "Leads", "Deals"} {
			stages = append(stages, apptest.MasterID(t, e, f, store.KindStage, n))
		}
		if r := c.Do("PUT", "/v1/api/update-lead-stage-order", map[string]any{"ids": stages}); r.Status != 200 {
			t.Fatalf("reorder: %d %s", r.Status, r.Body)
		}
		var dd struct {
			Data []struct {
				Label string `json:"label"`
			} `json:"data"`
		}
		apptest.MustJSON(t, c.Get("/v1/api/dropdown-lead-stage-master").Body, &dd)
		if len(dd.Data) != 4 || dd.Data[0].Label != "Won" || dd.Data[3].Label != "Deals" {
			t.Fatalf("order: %+v", dd.Data)
		}
		// The spec's path with the trailing slash takes the id appended: that stage alone.
		apptest.MustJSON(t, c.Get(fmt.Sprintf("/v1/api/dropdown-lead-stage-master/%d", stages[3])).Body, &dd)
		if len(dd.Data) != 1 || dd.Data[0].Label != "Deals" {
			t.Fatalf("one stage: %+v", dd.Data)
		}
		for _, bad := range []string{"0", "abc", "999999"} {
			if r := c.Get("/v1/api/dropdown-lead-stage-master/" + bad); r.Status != 404 {
				t.Fatalf("stage %s: %d", bad, r.Status)
			}
		}
		if r := c.Do("PUT", "/v1/api/update-lead-stage-order", map[string]any{"ids": stages[:3]}); r.Status != 422 {
			t.Fatalf("partial order accepted: %d", r.Status)
		}

		// Stage settings drive the won/lost counts and the default of new leads.
		r = c.Get("/v1/api/view-or-create-lead-stage-setting")
		st := r.Env().Data
		if st["won_stage_id"] != float64(stages[0]) || st["lost_stage_id"] != float64(stages[1]) || st["default_stage_id"] != float64(stages[2]) {
			t.Fatalf("settings: %v", st)
		}
		deals := stages[3]
		r = c.Do("PUT", "/v1/api/update-lead-stage-setting", map[string]any{"default_stage_id": deals, "won_stage_id": deals, "lost_stage_id": stages[1]})
		if r.Status != 200 {
			t.Fatalf("update settings: %d %s", r.Status, r.Body)
		}
		id = apptest.NewLead(t, c, "After Settings")
		env := c.Get("/v1/api/lead/list-customer-lead").Env()
		row := env.Data["result"].([]any)[0].(map[string]any)
		if row["lead_stage_name"] != "Deals" || env.Data["summary"].(map[string]any)["won"] != 1.0 {
			t.Fatalf("default and won follow the settings: %v %v", row["lead_stage_name"], env.Data["summary"])
		}
		if r := c.Do("PUT", "/v1/api/update-lead-stage-setting", map[string]any{"default_stage_id": deals, "won_stage_id": deals, "lost_stage_id": deals}); r.Status != 422 || r.Env().Errors["lost_stage_id"] != "wonLostSame" {
			t.Fatalf("won = lost: %d %s", r.Status, r.Body)
		}
		if r := c.Do("DELETE", fmt.Sprintf("/v1/api/delete-lead-stage-master/%d", stages[2]), nil); r.Status != 200 {
			t.Fatalf("delete a stage no longer in settings: %d %s", r.Status, r.Body)
		}
		if r := c.Do("DELETE", fmt.Sprintf("/v1/api/delete-lead-stage-master/%d", stages[1]), nil); r.Status != 422 {
			t.Fatalf("delete the lost stage: %d %s", r.Status, r.Body)
		}
	})
}

// TestDeleteMasterUsedByClients: a master still used anywhere — by clients only, or by
// clients and leads — is refused with where and how often, never a database error; the
// admin page says the same before and after the click.
func TestDeleteMasterUsedByClients(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Used Co")
		c := e.APIClient(f.Admin.Email)
		r := c.Do("POST", "/v1/api/create-business-type-master", map[string]any{"name": "Wholesale"})
		if r.Status != 201 {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		bt := int64(r.Env().Data["id"].(float64))
		for i := range 3 {
			r := c.Do("POST", "/v1/api/client/create-customer-client", map[string]any{"customer_name": fmt.Sprintf("Client %d", i),
				"company_email": fmt.Sprintf("c%d@used.test", i), "company_phone_number": fmt.Sprintf("012345678%d", i), "company_type_id": bt})
			if r.Status != 201 {
				t.Fatalf("client: %d %s", r.Status, r.Body)
			}
		}
		path := fmt.Sprintf("/v1/api/delete-business-type-master/%d", bt)
		if r := c.Do("DELETE", path, nil); r.Status != 409 || r.Env().Message != "This entry is used by 3 clients and cannot be deleted." {
			t.Fatalf("used by clients only: %d %s", r.Status, r.Body)
		}
		for i := range 2 {
			r := c.Do("POST", "/v1/api/lead/create-customer-lead", map[string]any{"customer_name": fmt.Sprintf("Lead %d", i),
				"company_email": fmt.Sprintf("l%d@used.test", i), "company_phone_number": fmt.Sprintf("098765432%d", i), "company_type_id": bt})
			if r.Status != 201 {
				t.Fatalf("lead: %d %s", r.Status, r.Body)
			}
		}
		want := "This entry cannot be deleted: it is used by clients (3) and leads (2)."
		if r := c.Do("DELETE", path, nil); r.Status != 409 || r.Env().Message != want {
			t.Fatalf("used by both: %d %s", r.Status, r.Body)
		}
		b := e.Browser(f.Admin.Email)
		page := fmt.Sprintf("/settings/masters/business_type/%d/delete", bt)
		b.Get(page).WantStatus(200).Has(want)
		b.Form(page, nil).WantStatus(409).Has(want)
		// Still there.
		if r := c.Get(fmt.Sprintf("/v1/api/view-business-type-master/%d", bt)); r.Status != 200 {
			t.Fatalf("view: %d", r.Status)
		}
	})
}
