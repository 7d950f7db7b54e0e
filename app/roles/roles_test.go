// Tests of team administration through the real router: a role built in the matrix
// changes what a team-scoped user's lists, counts and exports reach; concurrent saves;
// the Administrator is read-only; a role in use is deleted in two steps.
package roles_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
)

// user adds a user with the named role.
func user(t *testing.T, e *apptest.Env, f apptest.Tenant, name, role string) *store.User {
	t.Helper()
	u, err := e.Scope(f).CreateUser(context.Background(), store.NewUser{Email: strings.ToLower(name) + "@acme.test", Name: name,
		Password: apptest.Password, Role: role})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// leadNames lists the names of the leads c's list shows, and its total.
func leadNames(t *testing.T, c *apptest.Client) (string, float64) {
	t.Helper()
	r := c.Get("/v1/api/lead/list-customer-lead?limit=100")
	if r.Status != http.StatusOK {
		t.Fatalf("list: %d %s", r.Status, r.Body)
	}
	var names []string
	for _, row := range r.Env().Data["result"].([]any) {
		names = append(names, row.(map[string]any)["customer_name"].(string))
	}
	return strings.Join(names, ","), r.Env().Data["total"].(float64)
}

func TestTeamScopeBuiltInTheMatrix(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		admin := e.Browser(f.Admin.Email)
		r := admin.Form("/roles", url.Values{"name": {"Team sales"}}).WantStatus(http.StatusSeeOther)
		rolePath := r.Location()
		admin.Form(rolePath+"/permissions", url.Values{"version": {"1"}, "p.leads.view": {"team"}, "p.leads.create": {"own"},
			"p.leads.export": {"team"}, "p.dashboard.view": {"team"}}).WantStatus(http.StatusSeeOther)
		admin.Get(rolePath).WantStatus(http.StatusOK).
			Has(`<select name="p.leads.view"`, `<option value="team" selected>`, `name="version" value="2"`)

		ann, bob := user(t, e, f, "Ann", "Team sales"), user(t, e, f, "Bob", "Team sales")
		user(t, e, f, "Cat", "Team sales")
		api := e.APIClient(f.Admin.Email)
		tr := api.Do("POST", "/v1/api/create-team-master", map[string]any{"name": "North"})
		if tr.Status != http.StatusCreated {
			t.Fatalf("team: %d %s", tr.Status, tr.Body)
		}
		teamID := int64(tr.Env().Data["id"].(float64))
		for _, u := range []*store.User{ann, bob} {
			if r := api.Do("POST", fmt.Sprintf("/v1/api/add-team-member/%d", teamID), map[string]any{"user_id": u.ID}); r.Status != http.StatusOK {
				t.Fatalf("add member: %d %s", r.Status, r.Body)
			}
		}
		clients := map[string]*apptest.Client{}
		for i, name := range []string{"Ann", "Bob", "Cat"} {
			c := e.APIClient(strings.ToLower(name) + "@acme.test")
			clients[name] = c
			r := c.Do("POST", "/v1/api/lead/create-customer-lead", map[string]any{"customer_name": "Lead of " + name,
				"company_name": name + " Ltd", "company_email": fmt.Sprintf("l%d@example.test", i), "company_phone_number": "0123456789"})
			if r.Status != http.StatusCreated {
				t.Fatalf("lead of %s: %d %s", name, r.Status, r.Body)
			}
		}
		// Ann's team scope reaches Bob's lead, not Cat's; Cat, in no team, reaches their own.
		if names, total := leadNames(t, clients["Ann"]); !strings.Contains(names, "Lead of Ann") || !strings.Contains(names, "Lead of Bob") ||
			strings.Contains(names, "Lead of Cat") || total != 2 {
			t.Errorf("Ann (team) sees %q, total %v", names, total)
		}
		if names, total := leadNames(t, clients["Cat"]); names != "Lead of Cat" || total != 1 {
			t.Errorf("Cat (team of one) sees %q, total %v", names, total)
		}
		// The export reaches what the export scope does.
		csv := clients["Ann"].Get("/leads/export.csv")
		if csv.Status != http.StatusOK || !strings.Contains(csv.Body, "Lead of Bob") || strings.Contains(csv.Body, "Lead of Cat") {
			t.Errorf("Ann's export: %d %s", csv.Status, csv.Body)
		}
		// Cat's lead is not found for Ann.
		catsLead := e.APIClient(f.Admin.Email).Get("/v1/api/lead/list-customer-lead?search=Cat").Env().Data["result"].([]any)[0].(map[string]any)["id"].(float64)
		if r := clients["Ann"].Get(fmt.Sprintf("/v1/api/lead/view-customer-lead/%d", int64(catsLead))); r.Status != http.StatusNotFound {
			t.Errorf("Ann viewing Cat's lead: %d", r.Status)
		}
		// The dashboard counts the team's leads too (from the rows: per-user counters cannot be
		// summed over a team), the overview as well; Cat's counts their own.
		for who, want := range map[string]float64{"Ann": 2, "Cat": 1} {
			d := clients[who].Get("/v1/api/lead/dashboard/lead?period=all")
			if d.Status != http.StatusOK || d.Env().Data["total"] != want {
				t.Errorf("%s's dashboard: %d %s", who, d.Status, d.Body)
			}
			o := clients[who].Get("/v1/api/lead/dashboard/lead-overview?period=all")
			if o.Status != http.StatusOK || o.Env().Data["total"] != want {
				t.Errorf("%s's overview: %d %s", who, o.Status, o.Body)
			}
		}
		// get-allow-feature tells the scopes.
		al := clients["Ann"].Get("/v1/api/get-allow-feature").Env().Data["permissions"].(map[string]any)["leads"].(map[string]any)
		if al["view"] != true || al["scope"] != "team" || al["scopes"].(map[string]any)["export"] != "team" || al["import"] != false {
			t.Errorf("allowed leads: %v", al)
		}
		// Narrowed to own in the matrix, Ann's next call reaches only her lead.
		admin.Form(rolePath+"/permissions", url.Values{"version": {"2"}, "p.leads.view": {"own"}, "p.leads.create": {"own"}}).
			WantStatus(http.StatusSeeOther)
		if names, _ := leadNames(t, clients["Ann"]); names != "Lead of Ann" {
			t.Errorf("Ann (own) sees %q", names)
		}
		if r := clients["Ann"].Get("/leads/export.csv"); r.Status != http.StatusForbidden {
			t.Errorf("export without the export action: %d", r.Status)
		}
		// Removed from the team, Bob is no longer reached by Ann under team scope again.
		admin.Form(rolePath+"/permissions", url.Values{"version": {"3"}, "p.leads.view": {"team"}}).WantStatus(http.StatusSeeOther)
		if r := api.Do("POST", fmt.Sprintf("/v1/api/remove-team-member/%d", teamID), map[string]any{"user_id": bob.ID}); r.Status != http.StatusOK {
			t.Fatalf("remove member: %d %s", r.Status, r.Body)
		}
		if names, _ := leadNames(t, clients["Ann"]); names != "Lead of Ann" {
			t.Errorf("Ann without Bob in her team sees %q", names)
		}
	})
}

func TestConcurrentMatrixSavesDoNotLoseAChange(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		one, two := e.Browser(f.Admin.Email), e.Browser(f.Admin.Email)
		path := one.Form("/roles", url.Values{"name": {"Support"}}).WantStatus(http.StatusSeeOther).Location()
		// Both read version 1; the first save wins, the second is refused and shows the first's.
		one.Form(path+"/permissions", url.Values{"version": {"1"}, "p.clients.view": {"all"}}).WantStatus(http.StatusSeeOther)
		two.Form(path+"/permissions", url.Values{"version": {"1"}, "p.clients.view": {"own"}, "p.clients.delete": {"all"}}).
			WantStatus(http.StatusConflict).Has("Someone else saved this role", `name="version" value="2"`)
		api := e.APIClient(f.Admin.Email)
		id := strings.TrimPrefix(path, "/roles/")
		role := api.Get("/v1/api/view-role-permission/" + id).Env().Data
		clients := role["permissions"].(map[string]any)["clients"].(map[string]any)
		if clients["view"] != "all" || clients["delete"] != "none" || role["version"].(float64) != 2 {
			t.Errorf("after the conflict: %v", role)
		}
		// The API too: a stale version is 409 and changes nothing.
		r := api.Do("PUT", "/v1/api/update-role-permission/"+id, map[string]any{"version": 1, "permissions": map[string]any{"leads": map[string]any{"view": "all"}}})
		if r.Status != http.StatusConflict {
			t.Errorf("stale API save: %d %s", r.Status, r.Body)
		}
		r = api.Do("PUT", "/v1/api/update-role-permission/"+id, map[string]any{"version": 2, "permissions": map[string]any{"leads": map[string]any{"view": "sometimes"}}})
		if r.Status != http.StatusUnprocessableEntity {
			t.Errorf("unknown scope: %d %s", r.Status, r.Body)
		}
	})
}

func TestAdministratorIsReadOnlyAndRolesInUseMoveTheirUsers(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		ctx := context.Background()
		s := e.Scope(f)
		adminRole, err := s.RoleByName(ctx, store.RoleAdministrator)
		if err != nil {
			t.Fatal(err)
		}
		admin := e.Browser(f.Admin.Email)
		path := fmt.Sprintf("/roles/%d", adminRole.ID)
		admin.Get(path).WantStatus(http.StatusOK).Has(`data-testid="role-fixed"`, "disabled").Lacks(`data-testid="role-save"`)
		admin.Form(path+"/permissions", url.Values{"version": {"1"}, "p.roles.update": {"none"}}).
			WantStatus(http.StatusConflict).Has("the Administrator")
		if p, _ := s.Permissions(ctx, adminRole.ID); !p.Allows(auth.FeatureRoles, auth.Update) {
			t.Error("the Administrator lost roles update")
		}
		admin.Get(path + "/delete").WantStatus(http.StatusOK).Lacks(`data-testid="confirm-submit"`)

		// A role in use: the confirmation asks where its users go.
		rolePath := admin.Form("/roles", url.Values{"name": {"Temp"}}).WantStatus(http.StatusSeeOther).Location()
		u := user(t, e, f, "Dan", "Temp")
		admin.Get(rolePath+"/delete").WantStatus(http.StatusOK).Has(`name="move_to"`, "1 user has this role")
		admin.Form(rolePath+"/delete", url.Values{}).WantStatus(http.StatusConflict).Has(`name="move_to"`)
		sales, _ := s.RoleByName(ctx, store.RoleSales)
		admin.Form(rolePath+"/delete", url.Values{"move_to": {fmt.Sprint(sales.ID)}}).WantStatus(http.StatusSeeOther)
		moved, err := s.User(ctx, u.ID)
		if err != nil || moved.RoleID != sales.ID {
			t.Errorf("Dan's role after the delete: %+v %v", moved, err)
		}
		admin.Get(rolePath).WantStatus(http.StatusNotFound)
	})
}

func TestWithoutTheRolesPermissionEveryPageIsRefused(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		sales := e.Browser(e.User(f, "rep@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: auth.Full}).Email)
		for _, p := range []string{"/roles", "/teams"} {
			sales.Get(p).WantStatus(http.StatusForbidden)
		}
		// The menu offers roles and teams only to those who may see them.
		e.Browser(f.Admin.Email).Get("/home").WantStatus(http.StatusOK).Has(`href="/roles"`, `href="/teams"`)
		sales.Get("/leads").WantStatus(http.StatusOK).Lacks(`href="/roles"`, `href="/teams"`)
	})
}
