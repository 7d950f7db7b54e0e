package leads_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
)

// specPayload is the mobile app's payload of spec section 3, with its fixed ids.
func specPayload(clientID, name string) map[string]any {
	addr := map[string]string{"flatNo": "12B", "street": "MG Road", "city": "Chennai", "state": "Tamil Nadu", "zip": "600001", "country": "India"}
	return map[string]any{
		"customer_title": "Mr.", "customer_name": name, "company_name": name + " Ltd",
		"company_email":        strings.ToLower(strings.ReplaceAll(name, " ", ".")) + "@example.com",
		"company_phone_number": "9876543210", "company_type_id": 35, "lead_source_id": 6,
		"lead_status_id": 1, "lead_stage_id": 1, "tenant_id": 1, "lead_type_id": 0,
		"billing_address": addr, "shipping_address": addr, "createdAt": "2026-11-20T10:00:00Z",
		"client_id": clientID,
	}
}

// withType sets a real lead type of the caller's tenant.
func withType(t *testing.T, c *apptest.Client, p map[string]any) map[string]any {
	t.Helper()
	items := c.Get("/v1/api/dropdown-lead-type-master").Body
	var env struct {
		Data []struct {
			Label string `json:"label"`
			Value int64  `json:"value"`
		} `json:"data"`
	}
	apptest.MustJSON(t, items, &env)
	p["lead_type_id"] = env.Data[0].Value
	return p
}

func countLeads(t *testing.T, e *apptest.Env, f apptest.Tenant) int64 {
	t.Helper()
	page, err := e.DB.System(f.Tenant.ID, f.Admin.ID).ListLeads(context.Background(), store.LeadQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return page.Total
}

func TestLeadCreateFromSpecPayload(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		r := c.Do("POST", "/v1/api/lead/create-customer-lead", withType(t, c, specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000001", "Ana Silva")))
		if r.Status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		env := r.Env()
		d := env.Data
		if env.Message != "Lead created successfully" || d["customer_name"] != "Ana Silva" ||
			d["lead_stage_name"] != "Leads" || d["lead_status_name"] != "New lead" || d["lead_source_name"] != "Website" ||
			d["created_user_name"] == "" || d["createdAt"] == nil || d["created_at"] == nil ||
			d["billing_address"].(map[string]any)["flatNo"] != "12B" {
			t.Fatalf("created lead: %s", r.Body)
		}
		if d["company_type_id"] != nil {
			t.Fatalf("unknown business type kept: %v", d["company_type_id"])
		}
		// tenant_id 1 in the payload is ignored: the lead is the caller's tenant's.
		if got := countLeads(t, e, f); got != 1 {
			t.Fatalf("leads in tenant: %d", got)
		}
	})
}

func TestLeadCreateValidation(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		p := specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000002", "")
		p["company_email"] = "not-an-email"
		p["company_phone_number"] = "12345"
		p["company_name"] = "<b>Bold</b>"
		p["billing_address"] = map[string]string{"flatNo": "", "city": "", "state": "", "country": ""}
		r := c.Do("POST", "/v1/api/lead/create-customer-lead", p)
		env := r.Env()
		want := map[string]string{"customer_name": "required", "company_email": "invalidEmail",
			"company_phone_number": "invalidPhone", "company_name": "htmlNotAllowed", "lead_type_id": "required",
			"billing_address.flatNo": "required", "billing_address.city": "required",
			"billing_address.state": "required", "billing_address.country": "required"}
		if r.Status != 422 || env.Message != "Please correct the highlighted fields." {
			t.Fatalf("status %d %s", r.Status, r.Body)
		}
		for k, v := range want {
			if env.Errors[k] != v {
				t.Errorf("errors[%s] = %q, want %q (all: %v)", k, env.Errors[k], v, env.Errors)
			}
		}
		if countLeads(t, e, f) != 0 {
			t.Fatal("invalid lead stored")
		}
		// The admin rule (no client id): 10 to 15 digits, addresses optional.
		r = c.Do("POST", "/v1/api/lead/create-customer-lead", map[string]any{"customer_name": "Bo", "company_email": "bo@x.test", "company_phone_number": "123456789012"})
		if r.Status != 201 {
			t.Fatalf("admin create: %d %s", r.Status, r.Body)
		}
	})
}

func TestLeadCreateIsIdempotent(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		p := withType(t, c, specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000003", "Ravi Nair"))
		r1 := c.Do("POST", "/v1/api/lead/create-customer-lead", p, "Idempotency-Key", "key-1")
		r2 := c.Do("POST", "/v1/api/lead/create-customer-lead", p, "Idempotency-Key", "key-1")
		if r1.Status != 201 || r2.Status != 200 || r1.Env().Data["id"] != r2.Env().Data["id"] {
			t.Fatalf("repeat with the same key: %d %d %s", r1.Status, r2.Status, r2.Body)
		}
		// Same client id, new key: still the first lead.
		r3 := c.Do("POST", "/v1/api/lead/create-customer-lead", p, "Idempotency-Key", "key-2")
		if r3.Status != 200 || r3.Env().Data["id"] != r1.Env().Data["id"] {
			t.Fatalf("repeat with the same client id: %d %s", r3.Status, r3.Body)
		}
		// Same key, different payload: refused.
		p2 := withType(t, c, specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000004", "Other Person"))
		r4 := c.Do("POST", "/v1/api/lead/create-customer-lead", p2, "Idempotency-Key", "key-1")
		if r4.Status != 422 || r4.Env().Errors["idempotency_key"] != "idempotencyMismatch" {
			t.Fatalf("key reuse: %d %s", r4.Status, r4.Body)
		}
		if n := countLeads(t, e, f); n != 1 {
			t.Fatalf("rows: %d", n)
		}
	})
}

func TestLeadCreateConcurrentDuplicates(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		p := withType(t, c, specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000005", "Mia Rossi"))
		var wg sync.WaitGroup
		ids := make([]any, 8)
		statuses := make([]int, 8)
		for i := range ids {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				r := c.Do("POST", "/v1/api/lead/create-customer-lead", p, "Idempotency-Key", fmt.Sprintf("k-%d", i%2))
				statuses[i] = r.Status
				if r.Status < 300 {
					ids[i] = r.Env().Data["id"]
				}
			}(i)
		}
		wg.Wait()
		created := 0
		for i := range ids {
			if statuses[i] == 201 {
				created++
			}
			if statuses[i] >= 300 || ids[i] != ids[0] {
				t.Fatalf("concurrent create %d: %d id %v (first %v)", i, statuses[i], ids[i], ids[0])
			}
		}
		if created != 1 || countLeads(t, e, f) != 1 {
			t.Fatalf("created %d, rows %d", created, countLeads(t, e, f))
		}
	})
}

func TestLeadListSearchSortFilter(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		names := []string{"Zoe Adams", "Bob Brown", "Carla Cruz"}
		var firstID float64
		for i, n := range names {
			p := withType(t, c, specPayload(fmt.Sprintf("6f1c7c1e-1111-4a4a-9a9a-00000000010%d", i), n))
			p["company_phone_number"] = fmt.Sprintf("900000000%d", i)
			r := c.Do("POST", "/v1/api/lead/create-customer-lead", p)
			if r.Status != 201 {
				t.Fatal(r.Body)
			}
			if i == 0 {
				firstID = r.Env().Data["id"].(float64)
			}
		}
		list := func(q string) (ids []string, total float64, summary map[string]any) {
			r := c.Get("/v1/api/lead/list-customer-lead?" + q)
			env := r.Env()
			for _, row := range env.Data["result"].([]any) {
				ids = append(ids, row.(map[string]any)["customer_name"].(string))
			}
			return ids, env.Data["total"].(float64), env.Data["summary"].(map[string]any)
		}
		got, total, summary := list("page=1&limit=20")
		if strings.Join(got, ",") != "Carla Cruz,Bob Brown,Zoe Adams" || total != 3 || summary["won"] != 0.0 {
			t.Fatalf("recent: %v %v %v", got, total, summary)
		}
		if got, _, _ := list("sort=name"); strings.Join(got, ",") != "Bob Brown,Carla Cruz,Zoe Adams" {
			t.Fatalf("by name: %v", got)
		}
		if got, total, _ := list("page=2&limit=2"); len(got) != 1 || total != 3 {
			t.Fatalf("page 2: %v %v", got, total)
		}
		searches := map[string]string{
			"search=zoe":                        "Zoe Adams",
			"search=BROWN+LTD":                  "Bob Brown",
			"search=carla.cruz@":                "Carla Cruz",
			"search=9000000001":                 "Bob Brown",
			"search=new+lead&limit=1&sort=name": "Bob Brown",
			"search=LEADS&sort=name&limit=1":    "Bob Brown",
		}
		for q, want := range searches {
			if got, _, _ := list(q); len(got) == 0 || got[0] != want {
				t.Errorf("%s: got %v, want %s first", q, got, want)
			}
		}
		// An id also matches phone digits, so the lead with that id is among the results.
		if got, _, _ := list(fmt.Sprintf("search=%d", int(firstID))); !strings.Contains(strings.Join(got, ","), "Zoe Adams") {
			t.Errorf("search by id: %v", got)
		}
		if got, _, _ := list("search=nobody-at-all"); len(got) != 0 {
			t.Errorf("no match: %v", got)
		}
		// Move one lead to Won and filter by stage.
		ctx := context.Background()
		scope := e.DB.System(f.Tenant.ID, f.Admin.ID)
		stages, _ := scope.Masters(ctx, store.KindStage)
		var won int64
		for _, s := range stages {
			if s.IsWon {
				won = s.ID
			}
		}
		mustMoveStage(t, e, f, int64(firstID), won)
		got, total, summary = list(fmt.Sprintf("stage_id=%d", won))
		if len(got) != 1 || got[0] != "Zoe Adams" || total != 1 || summary["won"] != 1.0 || summary["lost"] != 0.0 {
			t.Fatalf("stage filter: %v %v %v", got, total, summary)
		}
		if got, _, _ := list("search=won"); len(got) != 1 {
			t.Fatalf("search by stage name: %v", got)
		}
	})
}

// mustMoveStage changes a lead's stage directly in the database (the stage-change call
// arrives with the admin leads work).
func mustMoveStage(t *testing.T, e *apptest.Env, f apptest.Tenant, id, stage int64) {
	t.Helper()
	_, err := e.DB.System(f.Tenant.ID, 0).Update((*store.Lead)(nil)).Set("lead_stage_id = ?", stage).Where("id = ?", id).Exec(context.Background())
	if err != nil {
		t.Fatal(err)
	}
}

func TestLeadTenantIsolationAndScopes(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		a := e.Tenant("Alpha")
		b := e.Tenant("Beta")
		ca := e.APIClient(a.Admin.Email)
		cb := e.APIClient(b.Admin.Email)
		r := ca.Do("POST", "/v1/api/lead/create-customer-lead", withType(t, ca, specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000201", "Alpha Lead")))
		id := int64(r.Env().Data["id"].(float64))

		// Beta sees nothing of Alpha's.
		if r := cb.Get(fmt.Sprintf("/v1/api/lead/view-customer-lead/%d", id)); r.Status != 404 {
			t.Fatalf("cross-tenant view: %d", r.Status)
		}
		if r := cb.Do("DELETE", fmt.Sprintf("/v1/api/lead/delete-customer-lead/%d", id), nil); r.Status != 404 {
			t.Fatalf("cross-tenant delete: %d", r.Status)
		}
		if r := cb.Get(fmt.Sprintf("/v1/api/lead/logo/%d", id)); r.Status != 404 {
			t.Fatalf("cross-tenant logo: %d", r.Status)
		}
		if env := cb.Get("/v1/api/lead/list-customer-lead?search=alpha").Env(); env.Data["total"] != 0.0 {
			t.Fatalf("cross-tenant search: %v", env.Data)
		}
		// The same client id in another tenant is another lead.
		r = cb.Do("POST", "/v1/api/lead/create-customer-lead", withType(t, cb, specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000201", "Beta Lead")))
		if r.Status != 201 || r.Env().Data["customer_name"] != "Beta Lead" {
			t.Fatalf("same client id in another tenant: %d %s", r.Status, r.Body)
		}

		// A sales user with "own" scope sees only the leads they own or created.
		sales := e.User(a, "sales@alpha.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeOwn, Create: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn}})
		cs := e.APIClient(sales.Email)
		r = cs.Do("POST", "/v1/api/lead/create-customer-lead", withType(t, cs, specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000202", "Sales Lead")))
		if r.Status != 201 {
			t.Fatal(r.Body)
		}
		env := cs.Get("/v1/api/lead/list-customer-lead").Env()
		if env.Data["total"] != 1.0 || env.Data["result"].([]any)[0].(map[string]any)["customer_name"] != "Sales Lead" {
			t.Fatalf("own scope list: %v", env.Data)
		}
		if r := cs.Get(fmt.Sprintf("/v1/api/lead/view-customer-lead/%d", id)); r.Status != 404 {
			t.Fatalf("own scope view of another's lead: %d", r.Status)
		}
		if r := cs.Do("DELETE", fmt.Sprintf("/v1/api/lead/delete-customer-lead/%d", id), nil); r.Status != 403 {
			t.Fatalf("delete without permission: %d", r.Status)
		}
		// The admin (all) sees both.
		if env := ca.Get("/v1/api/lead/list-customer-lead").Env(); env.Data["total"] != 2.0 {
			t.Fatalf("admin list: %v", env.Data["total"])
		}
		// Delete is recorded in the journey.
		if r := ca.Do("DELETE", fmt.Sprintf("/v1/api/lead/delete-customer-lead/%d", id), nil); r.Status != 200 {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		h, _ := e.DB.System(a.Tenant.ID, 0).History(context.Background(), "lead", id, 5)
		if len(h) != 2 || h[0].Action != "delete" || h[1].Action != "create" {
			t.Fatalf("journey: %+v", h)
		}
	})
}

func TestLeadPermissionRefusal(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		none := e.APIClient(e.User(f, "none@acme.test", map[auth.Feature]auth.Grant{auth.FeatureDashboard: {View: auth.ScopeAll, Export: auth.ScopeAll}}).Email)
		viewer := e.APIClient(e.User(f, "viewer@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll, Export: auth.ScopeAll}}).Email)
		for _, path := range []string{"/v1/api/lead/list-customer-lead", "/v1/api/lead/view-customer-lead/1",
			"/v1/api/lead/logo/1", "/v1/api/dropdown-lead-stage-master", "/v1/api/dropdown-lead-type-master"} {
			if r := none.Get(path); r.Status != 403 || r.Env().Message != "You do not have permission to do this." {
				t.Errorf("GET %s without leads: %d", path, r.Status)
			}
		}
		if r := viewer.Do("POST", "/v1/api/lead/create-customer-lead", specPayload("x", "X")); r.Status != 403 {
			t.Errorf("create without permission: %d", r.Status)
		}
		if r := e.Client().Get("/v1/api/lead/list-customer-lead"); r.Status != 401 {
			t.Errorf("anonymous list: %d", r.Status)
		}
	})
}

func TestLeadLogo(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.APIClient(f.Admin.Email)
		p := withType(t, c, specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000301", "Logo Lead"))
		p["company_logo"] = apptest.PNGDataURL(t, 8)
		r := c.Do("POST", "/v1/api/lead/create-customer-lead", p)
		url, _ := r.Env().Data["logo_url"].(string)
		if r.Status != 201 || url == "" {
			t.Fatalf("create with logo: %d %s", r.Status, r.Body)
		}
		img := c.Get(url)
		if img.Status != 200 || img.Header.Get("Content-Type") != "image/png" || !strings.HasPrefix(img.Body, "\x89PNG") {
			t.Fatalf("logo: %d %v", img.Status, img.Header)
		}
		bad := withType(t, c, specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000302", "Bad Logo"))
		bad["company_logo"] = "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("<svg onload=alert(1)>"))
		if r := c.Do("POST", "/v1/api/lead/create-customer-lead", bad); r.Status != 422 || r.Env().Errors["company_logo"] != "invalidImage" {
			t.Fatalf("non-image logo: %d %s", r.Status, r.Body)
		}
		bad["company_logo"] = "data:image/png;base64," + base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 2048*1024)...))
		if r := c.Do("POST", "/v1/api/lead/create-customer-lead", bad); r.Status != 422 || r.Env().Errors["company_logo"] != "fileTooLarge" {
			t.Fatalf("large logo: %d %.200s", r.Status, r.Body)
		}
	})
}
