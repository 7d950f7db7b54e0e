package users_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
)

// addUser adds a user of the named role straight through the store.
func addUser(t *testing.T, e *apptest.Env, f apptest.Tenant, name, role string) *store.User {
	t.Helper()
	u, err := e.Scope(f).CreateUser(context.Background(), store.NewUser{Email: strings.ToLower(strings.ReplaceAll(name, " ", "")) + "@acme.test",
		Name: name, Password: apptest.Password, Role: role})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func userPath(id int64, rest ...string) string {
	return fmt.Sprintf("/users/%d", id) + strings.Join(rest, "")
}

func TestUserPagesRenderAndRefuse(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		other := e.Tenant("Other")
		admin := e.Browser(f.Admin.Email)
		member := addUser(t, e, f, "Mia Member", store.RoleSales)

		admin.Get("/users").WantStatus(http.StatusOK).Has(`data-testid="user-table"`, "Mia Member", f.Admin.Email, `href="/users/new"`)
		admin.Get("/users/new").WantStatus(http.StatusOK).Has(`data-testid="user-form"`, `name="access"`, `value="invite"`, "Mr.")
		admin.Get(userPath(member.ID)).WantStatus(http.StatusOK).Has("Mia Member", `data-testid="user-deactivate"`, `data-testid="user-delete"`)
		admin.Get(userPath(member.ID, "/edit")).WantStatus(http.StatusOK).Has(`value="Mia Member"`)
		admin.Get(userPath(member.ID, "/delete")).WantStatus(http.StatusOK).Has(`data-testid="confirm-submit"`)
		admin.Get("/security-log").WantStatus(http.StatusOK).Has(`data-testid="log-table"`, `data-kind="user_created"`, "Mia Member")
		admin.Get("/home").WantStatus(http.StatusOK).Has(`href="/users"`)

		// A role without the users feature: 403 on every page, and no menu entry.
		leadsOnly := e.User(f, "leads@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: auth.Full, auth.FeatureDashboard: auth.Full})
		lc := e.Browser(leadsOnly.Email)
		for _, p := range []string{"/users", "/users/new", userPath(member.ID), userPath(member.ID, "/edit"), userPath(member.ID, "/delete"), "/security-log"} {
			lc.Get(p).WantStatus(http.StatusForbidden)
		}
		lc.Form(userPath(member.ID, "/status"), url.Values{"status": {"inactive"}}).WantStatus(http.StatusForbidden)
		lc.Get("/home").WantStatus(http.StatusOK).Lacks(`href="/users"`)

		// Another tenant's administrator: the user is not found, and nothing changes.
		oc := e.Browser(other.Admin.Email)
		for _, p := range []string{userPath(member.ID), userPath(member.ID, "/edit"), userPath(member.ID, "/delete")} {
			oc.Get(p).WantStatus(http.StatusNotFound)
		}
		oc.Form(userPath(member.ID, "/status"), url.Values{"status": {"inactive"}}).WantStatus(http.StatusNotFound)
		oc.Form(userPath(member.ID, "/delete"), url.Values{}).WantStatus(http.StatusNotFound)
		oc.Get("/users?search=mia").WantStatus(http.StatusOK).Lacks("Mia Member")
		if u, err := e.Scope(f).UserView(context.Background(), member.ID); err != nil || !u.Active {
			t.Fatalf("member after the other tenant's tries: %v %+v", err, u)
		}
	})
}

func TestUserListFiltersSortsAndPages(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		admin := e.Browser(f.Admin.Email)
		for i := range 24 {
			addUser(t, e, f, fmt.Sprintf("Person %02d", i), store.RoleSales)
		}
		ctx := context.Background()
		team, err := e.Scope(f).CreateTeam(ctx, "North")
		if err != nil {
			t.Fatal(err)
		}
		zed := addUser(t, e, f, "Zed Zimmer", store.RoleSales)
		if _, err := e.Scope(f).AddTeamMember(ctx, team.ID, zed.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Scope(f).SetUserActive(ctx, zed.ID, false); err != nil {
			t.Fatal(err)
		}

		// 26 users, 20 a page by name: the first page ends at Person 18, the next one holds the rest.
		first := admin.Get("/users").WantStatus(http.StatusOK).Has("26 users", "Person 00", "Person 18").Lacks("Person 19", "Zed Zimmer")
		next := regexp.MustCompile(`href="(/users\?after=[^"]+)"`).FindStringSubmatch(first.Body)
		if next == nil {
			t.Fatalf("no next page link")
		}
		second := admin.Get(strings.ReplaceAll(next[1], "&amp;", "&")).WantStatus(http.StatusOK).Has("Person 19", "Person 23", "Zed Zimmer").Lacks("Person 05")
		if !strings.Contains(second.Body, "before=") {
			t.Errorf("the second page has no link back")
		}
		// Sorted by email, descending: Zed first.
		desc := admin.Get("/users?sort=email&order=desc&limit=20").WantStatus(http.StatusOK)
		if zi, pi := strings.Index(desc.Body, "Zed Zimmer"), strings.Index(desc.Body, "Person 23"); zi < 0 || pi < 0 || zi > pi {
			t.Errorf("email descending: Zed at %d, Person 23 at %d", zi, pi)
		}
		admin.Get("/users?search=zimm").WantStatus(http.StatusOK).Has("1 user", "Zed Zimmer").Lacks("Person 01")
		admin.Get(fmt.Sprintf("/users?team_id=%d", team.ID)).WantStatus(http.StatusOK).Has("1 user", "Zed Zimmer", "North")
		admin.Get("/users?status=inactive").WantStatus(http.StatusOK).Has("1 user", "Zed Zimmer")
		admin.Get("/users?search=nobody-like-this").WantStatus(http.StatusOK).Has(`data-testid="users-empty"`)
		// The htmx request gets the results region alone.
		admin.Htmx("/users?status=active", "user-results").WantStatus(http.StatusOK).Has("25 users").Lacks("<h1")
	})
}

func TestUserFormShowsFieldErrors(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		admin := e.Browser(f.Admin.Email)
		r := admin.Form("/users/new", url.Values{"name": {"<b>Bad</b>"}, "email": {"not-an-email"}, "phone": {"12"},
			"access": {"password"}, "password": {"weak"}})
		r.WantStatus(http.StatusUnprocessableEntity).Has(`data-testid="error-summary"`)
		r.WantInlineError("f-name", "HTML is not allowed here.")
		r.WantInlineError("f-email", "Enter a valid email address.")
		r.WantInlineError("f-phone", "Enter 10 to 15 digits.")
		r.WantInlineError("f-password", "Use at least 8 characters with a lowercase letter, an uppercase letter, a digit and one of @$!%*?&.")
		r.WantInlineError("f-role-id", "This value is not valid.")
		r.Has(`value="not-an-email"`) // what was typed stays

		m := addUser(t, e, f, "Mia Member", store.RoleSales)
		sales := roleIDByName(t, e, f, store.RoleSales)
		r = admin.Form(userPath(m.ID, "/edit"), url.Values{"name": {"Mia"}, "phone": {"123"}, "role_id": {fmt.Sprint(sales)}, "time_zone": {"Mars/Olympus"}})
		r.WantStatus(http.StatusUnprocessableEntity)
		r.WantInlineError("f-phone", "Enter 10 to 15 digits.")
		r.WantInlineError("f-time-zone", "This value is not valid.")
		if u, _ := e.Scope(f).UserView(context.Background(), m.ID); u.Name != "Mia Member" {
			t.Fatalf("a refused edit changed the user: %q", u.Name)
		}
		// The email is taken across tenants.
		r = admin.Form("/users/new", url.Values{"name": {"Again"}, "email": {m.Email}, "role_id": {fmt.Sprint(sales)}, "access": {"invite"}})
		r.WantStatus(http.StatusUnprocessableEntity)
		r.WantInlineError("f-email", "This is already in use.")
	})
}

// roleIDByName is the id of the tenant's role.
func roleIDByName(t *testing.T, e *apptest.Env, f apptest.Tenant, name string) int64 {
	t.Helper()
	r, err := e.Scope(f).RoleByName(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return r.ID
}

func TestAddUserWithPasswordOrInvitation(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		admin := e.Browser(f.Admin.Email)
		ctx := context.Background()
		team, err := e.Scope(f).CreateTeam(ctx, "North")
		if err != nil {
			t.Fatal(err)
		}
		sales := fmt.Sprint(roleIDByName(t, e, f, store.RoleSales))
		loc := admin.Form("/users/new", url.Values{"title": {"Dr."}, "name": {"Pat Password"}, "email": {"pat@acme.test"},
			"phone": {"+33 6 12 34 56 78"}, "role_id": {sales}, "team_ids": {fmt.Sprint(team.ID)}, "locale": {"fr_FR"},
			"time_zone": {"Europe/Paris"}, "access": {"password"}, "password": {"Secret@12a"}}).Location()
		if !regexp.MustCompile(`^/users/\d+$`).MatchString(loc) {
			t.Fatalf("after adding: %s", loc)
		}
		admin.Get(loc).WantStatus(http.StatusOK).Has("Dr. Pat Password", "33612345678", "North", "Français", "Europe/Paris", store.RoleSales)
		if r := e.Client().Do("POST", "/v1/api/auth/login", map[string]string{"email": "pat@acme.test", "password": "Secret@12a"}); r.Status != 200 {
			t.Fatalf("the new user signs in: %d %s", r.Status, r.Body)
		}

		r := admin.Form("/users/new", url.Values{"name": {"Ivy Invited"}, "email": {"ivy@acme.test"}, "role_id": {sales}, "access": {"invite"}})
		r.WantStatus(http.StatusCreated).Has(`data-testid="invite-link"`)
		link := regexp.MustCompile(`value="(https?://[^"]+/invite/[^"]+)"`).FindStringSubmatch(r.Body)
		if link == nil {
			t.Fatalf("no invitation link: %s", r.Body)
		}
		u, err := url.Parse(link[1])
		if err != nil {
			t.Fatal(err)
		}
		anon := e.Client()
		anon.Get(u.Path).WantStatus(http.StatusOK).Has("ivy@acme.test")
		anon.Form(u.Path, url.Values{"password": {"Invited@1a"}}).WantStatus(http.StatusSeeOther)
		if r := anon.Do("POST", "/v1/api/auth/login", map[string]string{"email": "ivy@acme.test", "password": "Invited@1a"}); r.Status != 200 {
			t.Fatalf("the invitee signs in: %d %s", r.Status, r.Body)
		}
		admin.Get("/security-log?kind=user_invited").WantStatus(http.StatusOK).Has("Ivy Invited").Lacks(`data-kind="user_created"`)
		// An API sign-in creates a token; a role's change is logged too.
		admin.Get("/security-log?kind=token_created").WantStatus(http.StatusOK).Has("Pat Password", "Ivy Invited")
		admin.Form("/roles", url.Values{"name": {"Auditors"}}).WantStatus(http.StatusSeeOther)
		admin.Get("/security-log?kind=role_changed").WantStatus(http.StatusOK).Has("create: Auditors").Lacks(`data-kind="token_created"`)

		// Editing moves the teams and changes the title.
		id := strings.TrimPrefix(loc, "/users/")
		admin.Form(loc+"/edit", url.Values{"name": {"Pat P."}, "title": {"Mr."}, "role_id": {sales}}).WantStatus(http.StatusSeeOther)
		admin.Get(loc).WantStatus(http.StatusOK).Has("Mr. Pat P.").Lacks("North")
		admin.Get("/security-log?user_id="+id).WantStatus(http.StatusOK).Has(`data-kind="user_changed"`, `data-kind="sign_in"`)
		if r := admin.Form(loc+"/edit", url.Values{"name": {"Pat"}, "title": {"Sir"}, "role_id": {sales}}); r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("a title outside the master: %d", r.Status)
		}
	})
}

func TestSelfAndLastAdministratorAreRefusedOnThePage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		admin := e.Browser(f.Admin.Email)
		self := "You cannot deactivate or delete yourself."
		admin.Form(userPath(f.Admin.ID, "/status"), url.Values{"status": {"inactive"}}).WantStatus(http.StatusConflict).
			Has(`data-testid="user-error"`, self)
		admin.Get(userPath(f.Admin.ID, "/delete")).WantStatus(http.StatusOK).Has(self).Lacks(`data-testid="confirm-submit"`)
		admin.Form(userPath(f.Admin.ID, "/delete"), url.Values{}).WantStatus(http.StatusConflict).Has(self)

		// A user manager who is not an administrator cannot take away the last one.
		mgr := e.User(f, "manager@acme.test", map[auth.Feature]auth.Grant{auth.FeatureUsers: auth.Full})
		mc := e.Browser(mgr.Email)
		last := "The tenant must keep at least one active administrator."
		mc.Form(userPath(f.Admin.ID, "/status"), url.Values{"status": {"inactive"}}).WantStatus(http.StatusConflict).Has(last)
		mc.Get(userPath(f.Admin.ID, "/delete")).WantStatus(http.StatusOK).Has(last).Lacks(`data-testid="confirm-submit"`)
		mc.Form(userPath(f.Admin.ID, "/delete"), url.Values{}).WantStatus(http.StatusConflict).Has(last)
		sales := fmt.Sprint(roleIDByName(t, e, f, store.RoleSales))
		mc.Form(userPath(f.Admin.ID, "/edit"), url.Values{"name": {"Admin"}, "role_id": {sales}}).WantStatus(http.StatusConflict).
			Has(`data-testid="user-form-error"`, last)
		if u, _ := e.Scope(f).UserView(context.Background(), f.Admin.ID); !u.Active || u.RoleName != store.RoleAdministrator {
			t.Fatalf("the last administrator changed: %+v", u)
		}
	})
}

func TestDeactivationFromThePageEndsTheSession(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		admin := e.Browser(f.Admin.Email)
		m := e.User(f, "member@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: auth.Full})
		mb := e.Browser(m.Email)
		mb.Get("/leads").WantStatus(http.StatusOK)
		admin.Form(userPath(m.ID, "/status"), url.Values{"status": {"inactive"}}).WantStatus(http.StatusSeeOther)
		r := mb.Get("/leads")
		if r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/login") {
			t.Fatalf("a deactivated user's next request: %d %s", r.Status, r.Header.Get("Location"))
		}
		admin.Get(userPath(m.ID)).WantStatus(http.StatusOK).Has(`data-testid="user-activate"`)
		admin.Get("/security-log?kind=user_deactivated").Has("member@acme.test")
	})
}

func TestDeleteMovesTheRecordsToTheNewOwner(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		admin := e.Browser(f.Admin.Email)
		m := addUser(t, e, f, "Leaving Person", store.RoleSales)
		heir := addUser(t, e, f, "Heir Person", store.RoleSales)
		leads := []int64{apptest.AddLead(t, e, f, m.ID, "Kept One"), apptest.AddLead(t, e, f, m.ID, "Kept Two")}

		admin.Get(userPath(m.ID, "/delete")).WantStatus(http.StatusOK).Has(`data-testid="confirm-owns"`, `name="new_owner_id"`, "Heir Person")
		admin.Form(userPath(m.ID, "/delete"), url.Values{}).WantStatus(http.StatusConflict).
			Has("This user owns leads or clients: choose a new owner for them first.")
		admin.Form(userPath(m.ID, "/delete"), url.Values{"new_owner_id": {fmt.Sprint(m.ID + 1000)}}).WantStatus(http.StatusUnprocessableEntity)
		if loc := admin.Form(userPath(m.ID, "/delete"), url.Values{"new_owner_id": {fmt.Sprint(heir.ID)}}).Location(); loc != "/users" {
			t.Fatalf("after delete: %s", loc)
		}
		api := e.APIClient(f.Admin.Email)
		for _, id := range leads {
			l, err := e.Scope(f).LeadView(context.Background(), id)
			if err != nil || l.OwnerID == nil || *l.OwnerID != heir.ID {
				t.Fatalf("lead %d after the delete: %v %+v", id, err, l)
			}
			found := false
			for _, j := range apptest.Journey(t, api, id) {
				if j.After != nil && strings.Contains(*j.After, fmt.Sprint(heir.ID)) {
					found = true
				}
			}
			if !found {
				t.Errorf("lead %d has no journey entry of the new owner", id)
			}
		}
		admin.Get(userPath(m.ID)).WantStatus(http.StatusNotFound)
		admin.Get("/users").WantStatus(http.StatusOK).Lacks("Leaving Person")
		admin.Get("/security-log?kind=user_deleted").WantStatus(http.StatusOK).Has("Leaving Person")
	})
}
