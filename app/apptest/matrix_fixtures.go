package apptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"crm/app/assets"
	"crm/app/auth"
	"crm/app/importer"
	"crm/app/store"
	"crm/static"
)

// The fixtures of the route matrix: tenant A's records (each named with Marker), tenant B's
// administrator, and one user of tenant A per permission the matrix names, whose role has
// every grant but that one.

// caller is one of the matrix's users: a client for the pages and one for /v1/api.
type caller struct {
	name      string
	user      *store.User
	page, api *Client
	vals      map[string]string // {my.*}, and fixtures of its own ({import})
}

// matrixFixtures are the records and users a matrix run calls routes with.
type matrixFixtures struct {
	e       *Env
	a, b    Tenant
	vals    map[string]string // tenant A's fixtures by name
	owner   *caller           // tenant A's administrator
	other   *caller           // tenant B's administrator
	nobody  *caller           // a user of tenant A whose role grants nothing
	lacking map[string]*caller
	imports map[int64]int64 // user → that user's import in tenant A
}

// lackKey names the user lacking the permissions.
func lackKey(ps []Perm) string {
	names := make([]string, 0, len(ps))
	for _, p := range ps {
		names = append(names, p.String())
	}
	sort.Strings(names)
	return strings.Join(names, "+")
}

func newMatrixFixtures(t *testing.T, e *Env, routes map[string]Route) *matrixFixtures {
	t.Helper()
	ctx := context.Background()
	fx := &matrixFixtures{e: e, a: e.Tenant("Matrix A"), b: e.Tenant("Matrix B"), lacking: map[string]*caller{},
		imports: map[int64]int64{}}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	sa := e.Scope(fx.a)
	v := map[string]string{"kind": string(store.KindSource), "file": "en.json", "any": "anything",
		"login.email": fx.a.Admin.Email, "login.password": Password}
	as, err := assets.Load(static.FS)
	must(err)
	v["asset"] = strings.TrimPrefix(as.URL("admin.js"), assets.Prefix)

	// A master of each kind; the lead sits in the new stage.
	for _, k := range []store.MasterKind{store.KindStage, store.KindStatus, store.KindSource, store.KindType, store.KindTitle, store.KindBusinessType, store.KindEventType} {
		m, err := sa.CreateMaster(ctx, k, strings.ToUpper(string(k[:1]))+string(k[1:])+" "+Marker)
		must(err)
		v[string(k)] = id(m.ID)
	}
	stages, err := sa.Masters(ctx, store.KindStage)
	must(err)
	var all []string
	for _, m := range stages {
		all = append(all, id(m.ID))
	}
	v["stage1"], v["stage2"], v["stage3"], v["stages"] = all[0], all[1], all[2], strings.Join(all, ",")

	role, err := sa.CreateRole(ctx, "Role "+Marker, nil)
	must(err)
	v["role"] = id(role.ID)
	team, err := sa.CreateTeam(ctx, "Team "+Marker)
	must(err)
	_, err = sa.AddTeamMember(ctx, team.ID, fx.a.Admin.ID)
	must(err)
	v["team"], v["teamUser"] = id(team.ID), id(fx.a.Admin.ID)
	// A member of tenant A to view, change, deactivate and delete.
	member, err := sa.CreateUser(ctx, store.NewUser{Email: "member-" + strings.ToLower(Marker) + "@example.test",
		Name: "Member " + Marker, Password: Password, Role: store.RoleSales})
	must(err)
	v["user"] = id(member.ID)
	// A named API token of tenant A's administrator (matrix_profile.go).
	tok, err := e.DB.System(fx.a.Tenant.ID, fx.a.Admin.ID).CreateAPIToken(ctx, store.NewAPIToken{Name: "Token " + Marker, Days: 30})
	must(err)
	v["apiToken"] = id(tok.ID)

	fx.owner = fx.signIn(t, "tenant A's administrator", fx.a, fx.a.Admin, true)
	api := fx.owner.api
	v["leadEmail"] = "lead-" + strings.ToLower(Marker) + "@example.test"
	logo := PNGDataURL(t, 1)
	r := api.Do("POST", "/v1/api/lead/create-customer-lead", map[string]any{"customer_name": "Lead " + Marker,
		"company_name": "Leadco " + Marker, "company_email": v["leadEmail"], "company_phone_number": "0123456789",
		"lead_stage_id": atoi(v["stage"]), "company_logo": logo})
	v["lead"] = createdID(t, r)
	r = api.Do("POST", "/v1/api/client/create-customer-client", map[string]any{"customer_name": "Client " + Marker,
		"company_name": "Clientco " + Marker, "company_email": "client-" + strings.ToLower(Marker) + "@example.test",
		"company_phone_number": "0123456789", "company_type_id": atoi(v["business_type"])})
	v["client"] = createdID(t, r)
	for _, d := range []struct{ entity, record, doc string }{{store.EntityLead, "lead", "leadDoc"}, {store.EntityClient, "client", "clientDoc"}} {
		r := api.UploadFiles("/v1/api/"+d.entity+"/create-document/"+v[d.record], "tag",
			Upload{Name: "note " + Marker + ".txt", Data: []byte("a note about " + Marker + "\n")})
		var out struct {
			Data []struct {
				ID int64 `json:"id"`
			} `json:"data"`
		}
		MustJSON(t, r.Body, &out)
		if r.Status != http.StatusCreated || len(out.Data) != 1 {
			t.Fatalf("upload to %s: %d %s", d.record, r.Status, r.Body)
		}
		v[d.doc] = id(out.Data[0].ID)
	}
	// A reminder due an hour ago and fired, so it is among the administrator's notifications.
	r = api.Do("POST", "/v1/api/lead/create-remainders", map[string]any{"lead_id": atoi(v["lead"]), "title": "Reminder " + Marker,
		"due_at": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), "assignee_id": fx.a.Admin.ID})
	v["reminder"] = createdID(t, r)
	_, err = e.DB.FireDueReminders(ctx, time.Now(), 100)
	must(err)
	sv, err := sa.SaveView(ctx, "View "+Marker, "search=x")
	must(err)
	v["view"] = id(sv.ID)
	mailFixtures(t, sa, v)     // matrix_mail.go
	campaignFixtures(t, sa, v) // matrix_campaigns.go
	kitFixtures(t, sa, v)      // matrix_kit.go
	fx.vals = v
	v["import"] = id(fx.newImport(t, fx.a.Admin))

	// Tenant B: its administrator, with a stage and a status of its own.
	fx.other = fx.signIn(t, "tenant B's administrator", fx.b, fx.b.Admin, true)

	// Tenant A's users: one without each permission (or group of permissions) the matrix names.
	lacks := map[string][]Perm{}
	for _, r := range routes {
		for _, p := range r.Perms {
			lacks[lackKey([]Perm{p})] = []Perm{p}
		}
		if len(r.AnyOf) > 0 {
			lacks[lackKey(r.AnyOf)] = r.AnyOf
		}
	}
	keys := slices.Sorted(maps.Keys(lacks))
	for _, key := range append(keys, "") { // "": a role that grants nothing
		grants := map[auth.Feature]auth.Grant{}
		if key != "" {
			for _, f := range auth.Features {
				grants[f] = auth.Full
			}
		}
		for _, p := range lacks[key] {
			g := grants[p.Feature].With(p.Action, auth.ScopeNone)
			grants[p.Feature] = g
		}
		email, name := "nobody@matrix.test", "a user whose role grants nothing"
		if key != "" {
			email, name = "without-"+strings.ReplaceAll(key, "+", "-")+"@matrix.test", "a user without "+strings.ReplaceAll(key, "+", " and ")
		}
		u := e.User(fx.a, email, grants)
		c := fx.signIn(t, name, fx.a, u, false)
		c.vals["import"] = id(fx.newImport(t, u))
		tok, err := e.DB.System(fx.a.Tenant.ID, u.ID).CreateAPIToken(ctx, store.NewAPIToken{Name: "Token of " + name, Days: 30})
		must(err)
		c.vals["apiToken"] = id(tok.ID) // a token is its user's: each revokes their own
		if key == "" {
			fx.nobody = c
		} else {
			fx.lacking[key] = c
		}
	}
	return fx
}

// signIn gives u an API token for /v1/api and, with browser, signs it in through the login
// form for the pages. Without browser the pages get the token too: the caller is the same
// Principal either way (sessions have tests of their own), and tenant A's many users are
// signed in without a password check each.
func (fx *matrixFixtures) signIn(t *testing.T, name string, tn Tenant, u *store.User, browser bool) *caller {
	t.Helper()
	ctx := context.Background()
	s := fx.e.DB.System(tn.Tenant.ID, u.ID)
	token, err := s.CreateToken(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	api := fx.e.Client()
	api.Token = token
	c := &caller{name: name, user: u, page: api, api: api, vals: map[string]string{"my.user": id(u.ID)}}
	if browser {
		c.page = fx.e.Browser(u.Email)
	}
	for k, kind := range map[string]store.MasterKind{"my.stage": store.KindStage, "my.status": store.KindStatus} {
		ms, err := s.Masters(ctx, kind)
		if err != nil || len(ms) == 0 {
			t.Fatalf("%s of %s: %v", kind, tn.Tenant.Name, err)
		}
		c.vals[k] = id(ms[0].ID)
	}
	return c
}

// newImport keeps an uploaded lead import of u in tenant A, waiting for its mapping.
func (fx *matrixFixtures) newImport(t *testing.T, u *store.User) int64 {
	t.Helper()
	data := []byte("Name,Email\nPerson " + Marker + ",person@example.test\n")
	in, err := importer.Inspect(data)
	if err != nil {
		t.Fatal(err)
	}
	im, err := fx.e.DB.System(fx.a.Tenant.ID, u.ID).CreateImport(context.Background(), store.NewImport{Entity: store.EntityLead,
		FileName: "people " + Marker + ".csv", Content: data, Delimiter: importer.DelimiterName(in.Format.Delimiter),
		Encoding: in.Format.Encoding, Header: in.Header, Preview: in.Preview, TotalRows: in.Rows,
		Mapping: []string{"customer_name", "company_email"}})
	if err != nil {
		t.Fatal(err)
	}
	fx.imports[u.ID] = im.ID
	return im.ID
}

// lookup is a fixture's value for the caller: its own values first, then tenant A's.
func (fx *matrixFixtures) lookup(c *caller, name string) (string, bool) {
	if c != nil {
		if v, ok := c.vals[name]; ok {
			return v, true
		}
	} else if v, ok := fx.owner.vals[name]; ok { // anonymous: tenant A's administrator's
		return v, true
	}
	v, ok := fx.vals[name]
	return v, ok
}

// snapshot is tenant A's fixtures as stored, by record, to compare before and after a run.
func (fx *matrixFixtures) snapshot(t *testing.T) map[string]string {
	t.Helper()
	ctx := context.Background()
	s := fx.e.Scope(fx.a)
	out := map[string]string{}
	put := func(name string, v any, err error) {
		if err != nil {
			out[name] = "error: " + err.Error()
			return
		}
		b, _ := json.Marshal(v)
		out[name] = string(b)
	}
	lead, client := int64(atoi(fx.vals["lead"])), int64(atoi(fx.vals["client"]))
	lv, err := s.LeadView(ctx, lead)
	put("lead", lv, err)
	logo, err := s.LeadLogo(ctx, lead)
	if err == nil {
		put("lead logo", len(logo.Data), nil)
	} else {
		put("lead logo", nil, err)
	}
	_, err = s.ClientOfLead(ctx, lead)
	if errors.Is(err, store.ErrNotFound) {
		put("lead converted", false, nil)
	} else {
		put("lead converted", true, err)
	}
	rows, n, err := s.Journey(ctx, lead, 1, 100)
	put("lead journey", map[string]any{"entries": len(rows), "total": n}, err)
	cv, err := s.ClientView(ctx, client)
	put("client", cv, err)
	docs, err := s.Documents(ctx, store.EntityLead, lead)
	put("lead documents", docs, err)
	docs, err = s.Documents(ctx, store.EntityClient, client)
	put("client documents", docs, err)
	rm, err := s.ReminderView(ctx, int64(atoi(fx.vals["reminder"])))
	put("reminder", rm, err)
	views, err := s.SavedViews(ctx)
	put("saved views", views, err)
	member, err := s.UserView(ctx, int64(atoi(fx.vals["user"])))
	put("user", member, err)
	for _, k := range []store.MasterKind{store.KindStage, store.KindStatus, store.KindSource, store.KindType, store.KindTitle, store.KindBusinessType, store.KindEventType} {
		ms, err := s.Masters(ctx, k)
		put("masters "+string(k), ms, err)
	}
	st, err := s.StageSettings(ctx)
	put("stage settings", st, err)
	leads, err := s.ListLeads(ctx, store.LeadQuery{Page: 1, Limit: 100})
	if err == nil {
		put("leads", leads.Total, nil)
	} else {
		put("leads", nil, err)
	}
	clients, err := s.ListClients(ctx, store.ClientQuery{Page: 1, Limit: 100})
	if err == nil {
		put("clients", clients.Total, nil)
	} else {
		put("clients", nil, err)
	}
	kv, err := s.KeepInTouch(ctx, int64(atoi(fx.vals["kit"])))
	put("keep in touch", kv, err)
	for user, imID := range fx.imports {
		im, err := fx.e.DB.System(fx.a.Tenant.ID, user).Import(ctx, imID)
		put(fmt.Sprintf("import %d of user %d", imID, user), im, err)
	}
	return out
}

func createdID(t *testing.T, r *Response) string {
	t.Helper()
	if r.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	v, ok := r.Env().Data["id"].(float64)
	if !ok {
		t.Fatalf("create: no id in %s", r.Body)
	}
	return id(int64(v))
}

func id(n int64) string { return strconv.FormatInt(n, 10) }

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
