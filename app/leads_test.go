package app_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"strings"
	"sync"
	"testing"

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
func withType(t *testing.T, c *client, p map[string]any) map[string]any {
	t.Helper()
	items := c.get("/v1/api/dropdown-lead-type-master").body
	var env struct {
		Data []struct {
			Label string `json:"label"`
			Value int64  `json:"value"`
		} `json:"data"`
	}
	mustJSON(t, items, &env)
	p["lead_type_id"] = env.Data[0].Value
	return p
}

func countLeads(t *testing.T, e *testEnv, f tenantFixture) int64 {
	t.Helper()
	page, err := e.db.Tenant(f.Tenant.ID, f.Admin.ID).ListLeads(context.Background(), store.LeadQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return page.Total
}

func TestLeadCreateFromSpecPayload(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.apiClient(f.Admin.Email)
		r := c.do("POST", "/v1/api/lead/create-customer-lead", withType(t, c, specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000001", "Ana Silva")))
		if r.status != http.StatusCreated {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		env := r.env()
		d := env.Data
		if env.Message != "Lead created successfully" || d["customer_name"] != "Ana Silva" ||
			d["lead_stage_name"] != "Leads" || d["lead_status_name"] != "New lead" || d["lead_source_name"] != "Website" ||
			d["created_user_name"] == "" || d["createdAt"] == nil || d["created_at"] == nil ||
			d["billing_address"].(map[string]any)["flatNo"] != "12B" {
			t.Fatalf("created lead: %s", r.body)
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
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.apiClient(f.Admin.Email)
		p := specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000002", "")
		p["company_email"] = "not-an-email"
		p["company_phone_number"] = "12345"
		p["company_name"] = "<b>Bold</b>"
		p["billing_address"] = map[string]string{"flatNo": "", "city": "", "state": "", "country": ""}
		r := c.do("POST", "/v1/api/lead/create-customer-lead", p)
		env := r.env()
		want := map[string]string{"customer_name": "required", "company_email": "invalidEmail",
			"company_phone_number": "invalidPhone", "company_name": "htmlNotAllowed", "lead_type_id": "required",
			"billing_address.flatNo": "required", "billing_address.city": "required",
			"billing_address.state": "required", "billing_address.country": "required"}
		if r.status != 422 || env.Message != "Please correct the highlighted fields." {
			t.Fatalf("status %d %s", r.status, r.body)
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
		r = c.do("POST", "/v1/api/lead/create-customer-lead", map[string]any{"customer_name": "Bo", "company_email": "bo@x.test", "company_phone_number": "123456789012"})
		if r.status != 201 {
			t.Fatalf("admin create: %d %s", r.status, r.body)
		}
	})
}

func TestLeadCreateIsIdempotent(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.apiClient(f.Admin.Email)
		p := withType(t, c, specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000003", "Ravi Nair"))
		r1 := c.do("POST", "/v1/api/lead/create-customer-lead", p, "Idempotency-Key", "key-1")
		r2 := c.do("POST", "/v1/api/lead/create-customer-lead", p, "Idempotency-Key", "key-1")
		if r1.status != 201 || r2.status != 200 || r1.env().Data["id"] != r2.env().Data["id"] {
			t.Fatalf("repeat with the same key: %d %d %s", r1.status, r2.status, r2.body)
		}
		// Same client id, new key: still the first lead.
		r3 := c.do("POST", "/v1/api/lead/create-customer-lead", p, "Idempotency-Key", "key-2")
		if r3.status != 200 || r3.env().Data["id"] != r1.env().Data["id"] {
			t.Fatalf("repeat with the same client id: %d %s", r3.status, r3.body)
		}
		// Same key, different payload: refused.
		p2 := withType(t, c, specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000004", "Other Person"))
		r4 := c.do("POST", "/v1/api/lead/create-customer-lead", p2, "Idempotency-Key", "key-1")
		if r4.status != 422 || r4.env().Errors["idempotency_key"] != "idempotencyMismatch" {
			t.Fatalf("key reuse: %d %s", r4.status, r4.body)
		}
		if n := countLeads(t, e, f); n != 1 {
			t.Fatalf("rows: %d", n)
		}
	})
}

func TestLeadCreateConcurrentDuplicates(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.apiClient(f.Admin.Email)
		p := withType(t, c, specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000005", "Mia Rossi"))
		var wg sync.WaitGroup
		ids := make([]any, 8)
		statuses := make([]int, 8)
		for i := range ids {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				r := c.do("POST", "/v1/api/lead/create-customer-lead", p, "Idempotency-Key", fmt.Sprintf("k-%d", i%2))
				statuses[i] = r.status
				if r.status < 300 {
					ids[i] = r.env().Data["id"]
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
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.apiClient(f.Admin.Email)
		names := []string{"Zoe Adams", "Bob Brown", "Carla Cruz"}
		var firstID float64
		for i, n := range names {
			p := withType(t, c, specPayload(fmt.Sprintf("6f1c7c1e-1111-4a4a-9a9a-00000000010%d", i), n))
			p["company_phone_number"] = fmt.Sprintf("900000000%d", i)
			r := c.do("POST", "/v1/api/lead/create-customer-lead", p)
			if r.status != 201 {
				t.Fatal(r.body)
			}
			if i == 0 {
				firstID = r.env().Data["id"].(float64)
			}
		}
		list := func(q string) (ids []string, total float64, summary map[string]any) {
			r := c.get("/v1/api/lead/list-customer-lead?" + q)
			env := r.env()
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
		scope := e.db.Tenant(f.Tenant.ID, f.Admin.ID)
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
func mustMoveStage(t *testing.T, e *testEnv, f tenantFixture, id, stage int64) {
	t.Helper()
	_, err := e.db.Tenant(f.Tenant.ID, 0).Update((*store.Lead)(nil)).Set("lead_stage_id = ?", stage).Where("id = ?", id).Exec(context.Background())
	if err != nil {
		t.Fatal(err)
	}
}

func TestLeadTenantIsolationAndScopes(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		a := e.tenant("Alpha")
		b := e.tenant("Beta")
		ca := e.apiClient(a.Admin.Email)
		cb := e.apiClient(b.Admin.Email)
		r := ca.do("POST", "/v1/api/lead/create-customer-lead", withType(t, ca, specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000201", "Alpha Lead")))
		id := int64(r.env().Data["id"].(float64))

		// Beta sees nothing of Alpha's.
		if r := cb.get(fmt.Sprintf("/v1/api/lead/view-customer-lead/%d", id)); r.status != 404 {
			t.Fatalf("cross-tenant view: %d", r.status)
		}
		if r := cb.do("DELETE", fmt.Sprintf("/v1/api/lead/delete-customer-lead/%d", id), nil); r.status != 404 {
			t.Fatalf("cross-tenant delete: %d", r.status)
		}
		if r := cb.get(fmt.Sprintf("/v1/api/lead/logo/%d", id)); r.status != 404 {
			t.Fatalf("cross-tenant logo: %d", r.status)
		}
		if env := cb.get("/v1/api/lead/list-customer-lead?search=alpha").env(); env.Data["total"] != 0.0 {
			t.Fatalf("cross-tenant search: %v", env.Data)
		}
		// The same client id in another tenant is another lead.
		r = cb.do("POST", "/v1/api/lead/create-customer-lead", withType(t, cb, specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000201", "Beta Lead")))
		if r.status != 201 || r.env().Data["customer_name"] != "Beta Lead" {
			t.Fatalf("same client id in another tenant: %d %s", r.status, r.body)
		}

		// A sales user with "own" scope sees only the leads they own or created.
		sales := e.user(a, "sales@alpha.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: true, Create: true, Scope: auth.ScopeOwn}})
		cs := e.apiClient(sales.Email)
		r = cs.do("POST", "/v1/api/lead/create-customer-lead", withType(t, cs, specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000202", "Sales Lead")))
		if r.status != 201 {
			t.Fatal(r.body)
		}
		env := cs.get("/v1/api/lead/list-customer-lead").env()
		if env.Data["total"] != 1.0 || env.Data["result"].([]any)[0].(map[string]any)["customer_name"] != "Sales Lead" {
			t.Fatalf("own scope list: %v", env.Data)
		}
		if r := cs.get(fmt.Sprintf("/v1/api/lead/view-customer-lead/%d", id)); r.status != 404 {
			t.Fatalf("own scope view of another's lead: %d", r.status)
		}
		if r := cs.do("DELETE", fmt.Sprintf("/v1/api/lead/delete-customer-lead/%d", id), nil); r.status != 403 {
			t.Fatalf("delete without permission: %d", r.status)
		}
		// The admin (all) sees both.
		if env := ca.get("/v1/api/lead/list-customer-lead").env(); env.Data["total"] != 2.0 {
			t.Fatalf("admin list: %v", env.Data["total"])
		}
		// Delete is recorded in the journey.
		if r := ca.do("DELETE", fmt.Sprintf("/v1/api/lead/delete-customer-lead/%d", id), nil); r.status != 200 {
			t.Fatalf("delete: %d %s", r.status, r.body)
		}
		h, _ := e.db.Tenant(a.Tenant.ID, 0).History(context.Background(), "lead", id, 5)
		if len(h) != 2 || h[0].Action != "delete" || h[1].Action != "create" {
			t.Fatalf("journey: %+v", h)
		}
	})
}

func TestLeadPermissionRefusal(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		none := e.apiClient(e.user(f, "none@acme.test", map[auth.Feature]auth.Grant{auth.FeatureDashboard: {View: true}}).Email)
		viewer := e.apiClient(e.user(f, "viewer@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: true}}).Email)
		for _, path := range []string{"/v1/api/lead/list-customer-lead", "/v1/api/lead/view-customer-lead/1",
			"/v1/api/lead/logo/1", "/v1/api/dropdown-lead-stage-master", "/v1/api/dropdown-lead-type-master"} {
			if r := none.get(path); r.status != 403 || r.env().Message != "You do not have permission to do this." {
				t.Errorf("GET %s without leads: %d", path, r.status)
			}
		}
		if r := viewer.do("POST", "/v1/api/lead/create-customer-lead", specPayload("x", "X")); r.status != 403 {
			t.Errorf("create without permission: %d", r.status)
		}
		if r := e.client().get("/v1/api/lead/list-customer-lead"); r.status != 401 {
			t.Errorf("anonymous list: %d", r.status)
		}
	})
}

func pngDataURL(t *testing.T, size int) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, size, size))); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

func TestLeadLogo(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.apiClient(f.Admin.Email)
		p := withType(t, c, specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000301", "Logo Lead"))
		p["company_logo"] = pngDataURL(t, 8)
		r := c.do("POST", "/v1/api/lead/create-customer-lead", p)
		url, _ := r.env().Data["logo_url"].(string)
		if r.status != 201 || url == "" {
			t.Fatalf("create with logo: %d %s", r.status, r.body)
		}
		img := c.get(url)
		if img.status != 200 || img.header.Get("Content-Type") != "image/png" || !strings.HasPrefix(img.body, "\x89PNG") {
			t.Fatalf("logo: %d %v", img.status, img.header)
		}
		bad := withType(t, c, specPayload("6f1c7c1e-1111-4a4a-9a9a-000000000302", "Bad Logo"))
		bad["company_logo"] = "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("<svg onload=alert(1)>"))
		if r := c.do("POST", "/v1/api/lead/create-customer-lead", bad); r.status != 422 || r.env().Errors["company_logo"] != "invalidImage" {
			t.Fatalf("non-image logo: %d %s", r.status, r.body)
		}
		bad["company_logo"] = "data:image/png;base64," + base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 2048*1024)...))
		if r := c.do("POST", "/v1/api/lead/create-customer-lead", bad); r.status != 422 || r.env().Errors["company_logo"] != "fileTooLarge" {
			t.Fatalf("large logo: %d %.200s", r.status, r.body)
		}
	})
}
