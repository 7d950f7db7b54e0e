package clients_test

import (
	"fmt"
	"net/http"
	"testing"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
)

func TestConvertLeadToClient(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		id := apptest.NewLead(t, c, "Convert Me")
		r := c.Do("POST", fmt.Sprintf("/v1/api/lead/convert-to-client/%d", id), nil)
		if r.Status != 201 || r.Env().Message != "Lead converted to a client" {
			t.Fatalf("convert: %d %s", r.Status, r.Body)
		}
		client := r.Env().Data
		if client["customer_name"] != "Convert Me" || client["lead_id"] != float64(id) || client["company_email"] != "ConvertMe@example.com" && client["company_email"] != "convertme@example.com" {
			t.Fatalf("client: %v", client)
		}
		// The lead moved to the won stage and both journeys say so.
		lead := c.Get(fmt.Sprintf("/v1/api/lead/view-customer-lead/%d", id)).Env().Data
		if lead["lead_stage_name"] != "Won" {
			t.Fatalf("lead stage: %v", lead["lead_stage_name"])
		}
		j := apptest.Journey(t, c, id)
		if len(j) < 3 || j[0].Action != "convert" || j[1].Action != "status" || j[2].Action != "stage" {
			t.Fatalf("lead journey: %+v", j)
		}
		// Converting twice is refused, and nothing new is written.
		r = c.Do("POST", fmt.Sprintf("/v1/api/lead/convert-to-client/%d", id), nil)
		if r.Status != 409 || r.Env().Message != "This lead has already been converted to a client." {
			t.Fatalf("second conversion: %d %s", r.Status, r.Body)
		}
		if env := c.Get("/v1/api/client/list-customer-client").Env(); env.Data["total"] != 1.0 {
			t.Fatalf("clients: %v", env.Data["total"])
		}
		cid := int64(client["id"].(float64))
		if r := c.Get(fmt.Sprintf("/v1/api/client/view-customer-client/%d", cid)); r.Env().Data["lead_name"] != "Convert Me" {
			t.Fatalf("client's originating lead: %s", r.Body)
		}
		// Deleting the lead keeps the client, unlinked.
		c.Do("DELETE", fmt.Sprintf("/v1/api/lead/delete-customer-lead/%d", id), nil)
		if got := c.Get(fmt.Sprintf("/v1/api/client/view-customer-client/%d", cid)).Env().Data; got["lead_id"] != nil {
			t.Fatalf("client after its lead was deleted: %v", got)
		}
	})
}

func TestClientCRUD(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		r := c.Do("POST", "/v1/api/client/create-customer-client", map[string]any{"customer_name": "Nia Costa", "company_email": "nia@costa.test", "company_phone_number": "0123456789"})
		if r.Status != 201 {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		id := int64(r.Env().Data["id"].(float64))
		if r := c.Do("POST", "/v1/api/client/create-customer-client", map[string]any{"customer_name": "", "company_email": "bad"}); r.Status != 422 || r.Env().Errors["company_email"] != "invalidEmail" {
			t.Fatalf("invalid: %d %s", r.Status, r.Body)
		}
		r = c.Do("PUT", fmt.Sprintf("/v1/api/client/update-customer-client/%d", id), map[string]any{"customer_name": "Nia Costa", "company_name": "Costa SA", "company_email": "nia@costa.test"})
		if r.Status != 200 || r.Env().Data["company_name"] != "Costa SA" {
			t.Fatalf("update: %d %s", r.Status, r.Body)
		}
		if env := c.Get("/v1/api/client/list-customer-client?search=costa+sa").Env(); env.Data["total"] != 1.0 {
			t.Fatalf("search: %v", env.Data)
		}
		other := e.APIClient(e.Tenant("Other").Admin.Email)
		for _, call := range []struct{ method, path string }{
			{"GET", fmt.Sprintf("/v1/api/client/view-customer-client/%d", id)},
			{"PUT", fmt.Sprintf("/v1/api/client/update-customer-client/%d", id)},
			{"DELETE", fmt.Sprintf("/v1/api/client/delete-customer-client/%d", id)},
			{"GET", fmt.Sprintf("/v1/api/client/list-document/%d", id)},
		} {
			if r := other.Do(call.method, call.path, map[string]any{"customer_name": "X", "company_email": "x@x.test"}); r.Status != http.StatusNotFound {
				t.Errorf("%s %s from another tenant: %d", call.method, call.path, r.Status)
			}
		}
		if env := other.Get("/v1/api/client/list-customer-client").Env(); env.Data["total"] != 0.0 {
			t.Fatal("client list crosses tenants")
		}
		if r := c.Do("DELETE", fmt.Sprintf("/v1/api/client/delete-customer-client/%d", id), nil); r.Status != 200 {
			t.Fatalf("delete: %d", r.Status)
		}
	})
}

func TestClientRoutesRefuseWithoutPermission(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		leadsOnly := e.APIClient(e.User(f, "l@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll, Create: auth.ScopeAll, Update: auth.ScopeAll, Export: auth.ScopeAll, Import: auth.ScopeAll}}).Email)
		id := apptest.NewLead(t, leadsOnly, "Lead")
		calls := []struct{ method, path string }{
			{"POST", "/v1/api/client/create-customer-client"},
			{"PUT", "/v1/api/client/update-customer-client/1"},
			{"GET", "/v1/api/client/view-customer-client/1"},
			{"DELETE", "/v1/api/client/delete-customer-client/1"},
			{"GET", "/v1/api/client/list-customer-client"},
			{"POST", "/v1/api/client/create-document/1"},
			{"GET", "/v1/api/client/list-document/1"},
			{"GET", "/v1/api/client/download-document/1"},
			{"POST", fmt.Sprintf("/v1/api/lead/convert-to-client/%d", id)},
			{"DELETE", "/v1/api/lead/delete-remainders/1"},
			{"DELETE", "/v1/api/lead/delete-document/1"},
		}
		for _, call := range calls {
			if r := leadsOnly.Do(call.method, call.path, map[string]any{}); r.Status != http.StatusForbidden {
				t.Errorf("%s %s: %d %s", call.method, call.path, r.Status, r.Body)
			}
		}
		// An "own" clients user sees only the clients they own.
		admin := e.APIClient(f.Admin.Email)
		admin.Do("POST", "/v1/api/client/create-customer-client", map[string]any{"customer_name": "Admin's", "company_email": "a@a.test"})
		own := e.APIClient(e.User(f, "own@acme.test", map[auth.Feature]auth.Grant{auth.FeatureClients: {View: auth.ScopeOwn, Create: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn}}).Email)
		own.Do("POST", "/v1/api/client/create-customer-client", map[string]any{"customer_name": "Mine", "company_email": "m@m.test"})
		env := own.Get("/v1/api/client/list-customer-client").Env()
		if env.Data["total"] != 1.0 || env.Data["result"].([]any)[0].(map[string]any)["customer_name"] != "Mine" {
			t.Fatalf("own clients: %v", env.Data)
		}
		_ = store.EntityClient
	})
}
