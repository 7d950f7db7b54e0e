package leads_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
)

func decodeMap(t *testing.T, s *string) map[string]any {
	t.Helper()
	m := map[string]any{}
	if s != nil {
		if err := json.Unmarshal([]byte(*s), &m); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func TestLeadUpdateRecordsJourney(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		id := apptest.NewLead(t, c, "Ana Silva")
		won := apptest.MasterID(t, e, f, store.KindStage, "Won")
		r := c.Do("PUT", fmt.Sprintf("/v1/api/lead/update-customer-lead/%d", id), map[string]any{
			"customer_name": "Ana Souza", "company_name": "Ana Silva Co", "company_email": "ana@example.com",
			"company_phone_number": "0123456789", "lead_stage_id": won, "notes": "Met at the fair"})
		if r.Status != 200 || r.Env().Message != "Lead updated successfully" || r.Env().Data["lead_stage_name"] != "Won" {
			t.Fatalf("update: %d %s", r.Status, r.Body)
		}
		j := apptest.Journey(t, c, id)
		if len(j) != 3 || j[0].Action != "stage" || j[1].Action != "update" || j[2].Action != "create" {
			t.Fatalf("journey actions: %+v", j)
		}
		before, after := decodeMap(t, j[1].Before), decodeMap(t, j[1].After)
		if before["customer_name"] != "Ana Silva" || after["customer_name"] != "Ana Souza" ||
			before["lead_stage"] != "Leads" || after["lead_stage"] != "Won" || after["notes"] != "Met at the fair" ||
			before["company_email"] != "anasilva@example.com" {
			t.Fatalf("before/after: %v → %v", before, after)
		}
		if _, same := after["company_name"]; same {
			t.Fatal("unchanged field recorded")
		}
		if j[1].ActorName == "" {
			t.Fatal("journey lacks who")
		}
		// Validation: bad email and a stage of another kind.
		status := apptest.MasterID(t, e, f, store.KindStatus, "Converted")
		r = c.Do("PUT", fmt.Sprintf("/v1/api/lead/update-customer-lead/%d", id), map[string]any{
			"customer_name": "Ana", "company_email": "nope", "lead_stage_id": status})
		env := r.Env()
		if r.Status != 422 || env.Errors["company_email"] != "invalidEmail" || env.Errors["lead_stage_id"] != "invalid" {
			t.Fatalf("invalid update: %d %s", r.Status, r.Body)
		}
		if len(apptest.Journey(t, c, id)) != 3 {
			t.Fatal("a refused update was recorded")
		}
	})
}

func TestLeadQuickAndBulkChanges(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		ids := []int64{apptest.NewLead(t, c, "One"), apptest.NewLead(t, c, "Two"), apptest.NewLead(t, c, "Three")}
		deals := apptest.MasterID(t, e, f, store.KindStage, "Deals")
		r := c.Do("PATCH", fmt.Sprintf("/v1/api/lead/update-stage-customer-lead/%d", ids[0]), map[string]any{"lead_stage_id": deals})
		if r.Status != 200 || r.Env().Data["lead_stage_name"] != "Deals" {
			t.Fatalf("stage change: %d %s", r.Status, r.Body)
		}
		if j := apptest.Journey(t, c, ids[0]); j[0].Action != "stage" || *j[0].Before != `"Leads"` || *j[0].After != `"Deals"` {
			t.Fatalf("stage journey: %+v", j[0])
		}
		contact := apptest.MasterID(t, e, f, store.KindStatus, "Attempt to contact")
		r = c.Do("PATCH", "/v1/api/lead/bulk-update-customer-lead", map[string]any{"ids": ids, "lead_status_id": contact})
		if r.Status != 200 || r.Env().Message != "3 leads updated" {
			t.Fatalf("bulk status: %d %s", r.Status, r.Body)
		}
		sales := e.User(f, "sam@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeOwn, Export: auth.ScopeOwn}})
		r = c.Do("PATCH", "/v1/api/lead/bulk-update-customer-lead", map[string]any{"ids": ids[:2], "owner_id": sales.ID})
		if r.Status != 200 || r.Env().Data["count"] != 2.0 {
			t.Fatalf("bulk owner: %d %s", r.Status, r.Body)
		}
		// The new owner now reaches exactly those two.
		if env := e.APIClient(sales.Email).Get("/v1/api/lead/list-customer-lead").Env(); env.Data["total"] != 2.0 {
			t.Fatalf("owner's leads: %v", env.Data["total"])
		}
		r = c.Do("PATCH", "/v1/api/lead/bulk-update-customer-lead", map[string]any{"ids": ids, "lead_status_id": contact, "owner_id": sales.ID})
		if r.Status != 422 {
			t.Fatalf("two changes at once: %d", r.Status)
		}
		r = c.Do("DELETE", fmt.Sprintf("/v1/api/lead/delete-customer-lead?ids=[%d,%d]", ids[1], ids[2]), nil)
		if r.Status != 200 || r.Env().Message != "2 leads deleted" {
			t.Fatalf("bulk delete: %d %s", r.Status, r.Body)
		}
		if countLeads(t, e, f) != 1 {
			t.Fatal("bulk delete left leads")
		}
		// The deleted lead's journey stays readable to the admin.
		if j := apptest.Journey(t, c, ids[2]); len(j) == 0 || j[0].Action != "delete" {
			t.Fatalf("journey after delete: %+v", j)
		}
	})
}

func TestDuplicateWarning(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		id := apptest.NewLead(t, c, "Dup One")
		r := c.Get("/v1/api/lead/duplicate-customer-lead?email=dupone@example.com")
		var env struct {
			Data []struct {
				ID int64 `json:"id"`
			} `json:"data"`
		}
		apptest.MustJSON(t, r.Body, &env)
		if len(env.Data) != 1 || env.Data[0].ID != id {
			t.Fatalf("duplicate by email: %s", r.Body)
		}
		apptest.MustJSON(t, c.Get(fmt.Sprintf("/v1/api/lead/duplicate-customer-lead?phone=0123456789&except_id=%d", id)).Body, &env)
		if len(env.Data) != 0 {
			t.Fatalf("the lead itself is not its duplicate: %v", env.Data)
		}
		other := e.Tenant("Other")
		apptest.MustJSON(t, e.APIClient(other.Admin.Email).Get("/v1/api/lead/duplicate-customer-lead?email=dupone@example.com").Body, &env)
		if len(env.Data) != 0 {
			t.Fatal("duplicate check crosses tenants")
		}
	})
}

func TestSavedViews(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		r := c.Do("POST", "/v1/api/lead/create-saved-view", map[string]string{"name": "Hot deals", "query": "?stage_id=2&sort=name"})
		if r.Status != 201 {
			t.Fatalf("save: %d %s", r.Status, r.Body)
		}
		id := int64(r.Env().Data["id"].(float64))
		c.Do("POST", "/v1/api/lead/create-saved-view", map[string]string{"name": "Hot deals", "query": "stage_id=3"})
		list := c.Get("/v1/api/lead/list-saved-view").Env()
		rows := list.Data["result"].([]any)
		if len(rows) != 1 || rows[0].(map[string]any)["query"] != "stage_id=3" {
			t.Fatalf("saving the same name replaces: %v", rows)
		}
		// Another user of the tenant does not see or delete it.
		other := e.APIClient(e.User(f, "o@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll, Export: auth.ScopeAll}}).Email)
		if env := other.Get("/v1/api/lead/list-saved-view").Env(); len(env.Data["result"].([]any)) != 0 {
			t.Fatal("saved views leak between users")
		}
		if r := other.Do("DELETE", fmt.Sprintf("/v1/api/lead/delete-saved-view/%d", id), nil); r.Status != 404 {
			t.Fatalf("delete another's view: %d", r.Status)
		}
		if r := c.Do("DELETE", fmt.Sprintf("/v1/api/lead/delete-saved-view/%d", id), nil); r.Status != 200 {
			t.Fatalf("delete: %d", r.Status)
		}
	})
}

// TestLeadRoutesIsolateTenants calls every lead and master route that takes an id with
// another tenant's id: each answers 404 and changes nothing.
func TestLeadRoutesIsolateTenants(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		a, b := e.Tenant("Alpha"), e.Tenant("Beta")
		ca, cb := e.APIClient(a.Admin.Email), e.APIClient(b.Admin.Email)
		lead := apptest.NewLead(t, ca, "Alpha Lead")
		source := apptest.MasterID(t, e, a, store.KindSource, "Website")
		bStage := apptest.MasterID(t, e, b, store.KindStage, "Won")
		view := int64(ca.Do("POST", "/v1/api/lead/create-saved-view", map[string]string{"name": "v", "query": "a=1"}).Env().Data["id"].(float64))
		calls := []struct {
			method, path string
			body         any
		}{
			{"GET", fmt.Sprintf("/v1/api/lead/view-customer-lead/%d", lead), nil},
			{"PUT", fmt.Sprintf("/v1/api/lead/update-customer-lead/%d", lead), map[string]any{"customer_name": "X", "company_email": "x@x.test"}},
			{"PATCH", fmt.Sprintf("/v1/api/lead/update-stage-customer-lead/%d", lead), map[string]any{"lead_stage_id": bStage}},
			{"DELETE", fmt.Sprintf("/v1/api/lead/delete-customer-lead/%d", lead), nil},
			{"DELETE", fmt.Sprintf("/v1/api/lead/delete-customer-lead?ids=[%d]", lead), nil},
			{"GET", fmt.Sprintf("/v1/api/lead/list-customer-journey?lead_id=%d", lead), nil},
			{"GET", fmt.Sprintf("/v1/api/view-lead-source-master/%d", source), nil},
			{"PUT", fmt.Sprintf("/v1/api/update-lead-source-master/%d", source), map[string]string{"name": "Hijacked"}},
			{"DELETE", fmt.Sprintf("/v1/api/delete-lead-source-master/%d", source), nil},
			{"DELETE", fmt.Sprintf("/v1/api/lead/delete-saved-view/%d", view), nil},
		}
		for _, call := range calls {
			if r := cb.Do(call.method, call.path, call.body); r.Status != http.StatusNotFound {
				t.Errorf("%s %s from another tenant: %d %s", call.method, call.path, r.Status, r.Body)
			}
		}
		// Bulk changes skip what the caller cannot reach.
		if r := cb.Do("PATCH", "/v1/api/lead/bulk-update-customer-lead", map[string]any{"ids": []int64{lead}, "lead_stage_id": bStage}); r.Status != 200 || r.Env().Data["count"] != 0.0 {
			t.Errorf("bulk update across tenants: %d %s", r.Status, r.Body)
		}
		got := ca.Get(fmt.Sprintf("/v1/api/lead/view-customer-lead/%d", lead)).Env().Data
		if got["customer_name"] != "Alpha Lead" || got["lead_stage_name"] != "Leads" {
			t.Fatalf("alpha's lead changed: %v", got)
		}
		if ms := apptest.MasterID(t, e, a, store.KindSource, "Website"); ms != source {
			t.Fatal("alpha's master changed")
		}
		var dd struct {
			Data []any `json:"data"`
		}
		if apptest.MustJSON(t, cb.Get("/v1/api/lead/dropdown-customer-lead?search=alpha").Body, &dd); len(dd.Data) != 0 {
			t.Fatalf("dropdown across tenants: %v", dd.Data)
		}
	})
}

// TestLeadRoutesRefuseWithoutPermission: a user whose role lacks the feature or action
// gets 403 on every lead and master route.
func TestLeadRoutesRefuseWithoutPermission(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		viewer := e.APIClient(e.User(f, "viewer@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll, Export: auth.ScopeAll}}).Email)
		nobody := e.APIClient(e.User(f, "nobody@acme.test", map[auth.Feature]auth.Grant{auth.FeatureDashboard: {View: auth.ScopeAll, Export: auth.ScopeAll}}).Email)
		calls := []struct {
			c            *apptest.Client
			method, path string
		}{
			{viewer, "PUT", "/v1/api/lead/update-customer-lead/1"},
			{viewer, "PATCH", "/v1/api/lead/update-stage-customer-lead/1"},
			{viewer, "PATCH", "/v1/api/lead/update-status-customer-lead/1"},
			{viewer, "PATCH", "/v1/api/lead/update-owner-customer-lead/1"},
			{viewer, "PATCH", "/v1/api/lead/bulk-update-customer-lead"},
			{viewer, "DELETE", "/v1/api/lead/delete-customer-lead?ids=[1]"},
			{viewer, "GET", "/v1/api/list-lead-source-master"},
			{viewer, "POST", "/v1/api/create-lead-stage-master"},
			{viewer, "PUT", "/v1/api/update-lead-status-master/1"},
			{viewer, "DELETE", "/v1/api/delete-lead-type-master/1"},
			{viewer, "PUT", "/v1/api/update-lead-stage-order"},
			{viewer, "GET", "/v1/api/view-or-create-lead-stage-setting"},
			{viewer, "PUT", "/v1/api/update-lead-stage-setting"},
			{nobody, "GET", "/v1/api/lead/list-customer-journey?lead_id=1"},
			{nobody, "GET", "/v1/api/lead/duplicate-customer-lead?email=a@b.c"},
			{nobody, "GET", "/v1/api/lead/dropdown-customer-lead"},
			{nobody, "GET", "/v1/api/lead/list-saved-view"},
			{nobody, "POST", "/v1/api/lead/create-saved-view"},
			{nobody, "GET", "/v1/api/dropdown-personal-title"},
			{nobody, "GET", "/v1/api/dropdown-business-type-master"},
		}
		for _, call := range calls {
			if r := call.c.Do(call.method, call.path, map[string]any{}); r.Status != http.StatusForbidden {
				t.Errorf("%s %s: %d %s", call.method, call.path, r.Status, r.Body)
			}
		}
	})
}
