package users_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"crm/app/apptest"
	"crm/app/auth"
)

func TestInvitationSetsPasswordAndSignsIn(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		admin := e.APIClient(f.Admin.Email)
		roles := admin.Get("/v1/api/dropdown-role-master").Body
		sales := roleID(t, roles, "Sales")

		if r := admin.Get("/v1/api/check-user?email=new@acme.test"); r.Status != 200 || !strings.Contains(r.Body, `"available":true`) {
			t.Fatalf("check free: %d %s", r.Status, r.Body)
		}
		r := admin.Do("POST", "/v1/api/add-user", map[string]any{"email": "new@acme.test", "name": "New Person", "invite": true, "role_id": sales})
		if r.Status != 201 {
			t.Fatalf("invite: %d %s", r.Status, r.Body)
		}
		link, _ := r.Env().Data["invite_link"].(string)
		u, err := url.Parse(link)
		if err != nil || !strings.HasPrefix(u.Path, "/invite/") {
			t.Fatalf("invite link %q", link)
		}
		if r := admin.Get("/v1/api/check-user?email=new@acme.test"); !strings.Contains(r.Body, `"available":false`) {
			t.Fatalf("check taken: %s", r.Body)
		}
		// Before the password is set, no password signs in.
		anon := e.Client()
		if r := anon.Do("POST", "/v1/api/auth/login", map[string]string{"email": "new@acme.test", "password": ""}); r.Status == 200 {
			t.Fatalf("invitee signed in without a password")
		}
		if r := anon.Get(u.Path); r.Status != 200 || !strings.Contains(r.Body, "new@acme.test") {
			t.Fatalf("invite page: %d", r.Status)
		}
		if r := anon.Form(u.Path, url.Values{"password": {"weak"}}); r.Status != 422 {
			t.Fatalf("weak password: %d", r.Status)
		}
		if r := anon.Form(u.Path, url.Values{"password": {"Invited@1a"}}); r.Status != 303 {
			t.Fatalf("set password: %d %s", r.Status, r.Body)
		}
		// Single use: the link is spent.
		if r := anon.Get(u.Path); !strings.Contains(r.Body, `data-testid="invite-gone"`) {
			t.Fatalf("spent link still offered")
		}
		if r := anon.Do("POST", "/v1/api/auth/login", map[string]string{"email": "new@acme.test", "password": "Invited@1a"}); r.Status != 200 {
			t.Fatalf("invitee sign-in: %d %s", r.Status, r.Body)
		}
		log := admin.Get("/v1/api/list-security-log").Body
		for _, kind := range []string{"user_invited", "password_set", "sign_in"} {
			if !strings.Contains(log, `"kind":"`+kind+`"`) {
				t.Errorf("security log lacks %s: %s", kind, log)
			}
		}
	})
}

func TestDeactivationRefusesNextRequest(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		admin := e.APIClient(f.Admin.Email)
		m := e.User(f, "member@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: auth.Full})
		browser := e.Browser(m.Email)
		api := e.APIClient(m.Email)
		if r := browser.Get("/v1/api/get-user"); r.Status != 200 {
			t.Fatalf("member before: %d", r.Status)
		}
		r := admin.Do("PATCH", fmt.Sprintf("/v1/api/status-update-user/%d", m.ID), map[string]string{"status": "inactive"})
		if r.Status != 200 || r.Env().Data["active"] != false {
			t.Fatalf("deactivate: %d %s", r.Status, r.Body)
		}
		if r := browser.Get("/v1/api/get-user"); r.Status != 401 {
			t.Fatalf("session after deactivation: %d", r.Status)
		}
		if r := api.Get("/v1/api/get-user"); r.Status != 401 {
			t.Fatalf("token after deactivation: %d", r.Status)
		}
		if r := e.Client().Do("POST", "/v1/api/auth/login", map[string]string{"email": m.Email, "password": apptest.Password}); r.Status != 401 {
			t.Fatalf("inactive sign-in: %d", r.Status)
		}
		// Reactivated, the revoked token stays revoked.
		admin.Do("PATCH", fmt.Sprintf("/v1/api/status-update-user/%d", m.ID), map[string]string{"status": "active"})
		if r := api.Get("/v1/api/get-user"); r.Status != 401 {
			t.Fatalf("revoked token after reactivation: %d", r.Status)
		}
	})
}

func TestLastAdministratorAndSelf(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		admin := e.APIClient(f.Admin.Email)
		sales := roleID(t, admin.Get("/v1/api/dropdown-role-master").Body, "Sales")
		me := fmt.Sprintf("%d", f.Admin.ID)
		if r := admin.Do("PATCH", "/v1/api/status-update-user/"+me, map[string]string{"status": "inactive"}); r.Status != 409 {
			t.Fatalf("self deactivation: %d %s", r.Status, r.Body)
		}
		if r := admin.Do("DELETE", "/v1/api/delete-user/"+me, nil); r.Status != 409 {
			t.Fatalf("self delete: %d %s", r.Status, r.Body)
		}
		if r := admin.Do("PUT", "/v1/api/update-user/"+me, map[string]any{"name": "Me", "role_id": sales}); r.Status != 409 {
			t.Fatalf("last admin demoted: %d %s", r.Status, r.Body)
		}
		if r := admin.Do("PUT", "/v1/api/update-user/"+me, map[string]any{"name": "<b>x</b>", "phone": "12"}); r.Status != 422 ||
			r.Env().Errors["name"] != "htmlNotAllowed" || r.Env().Errors["phone"] != "invalidPhone" {
			t.Fatalf("field errors: %d %s", r.Status, r.Body)
		}
	})
}

// roleID finds a role's id in the role dropdown's answer.
func roleID(t *testing.T, body, name string) int64 {
	t.Helper()
	var env struct {
		Data []struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		} `json:"data"`
	}
	apptest.MustJSON(t, body, &env)
	for _, r := range env.Data {
		if r.Name == name {
			return r.ID
		}
	}
	t.Fatalf("no role %s in %s", name, body)
	return 0
}
