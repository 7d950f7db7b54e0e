package leads_test

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
)

// listAPIFixture is a tenant whose leads vary in every filtered and sorted field, a sales
// user with "own" leads, and another tenant with look-alike leads.
type listAPIFixture struct {
	leads   []*store.LeadView
	masters map[store.MasterKind][]store.Master
	salesID int64
	base    time.Time
	admin   *apptest.Client
	sales   *apptest.Client
	other   *apptest.Client
}

func newListAPIFixture(t *testing.T, e *apptest.Env) *listAPIFixture {
	t.Helper()
	ctx := context.Background()
	f, o := e.Tenant("Acme"), e.Tenant("Other")
	sales := e.User(f, "sales@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeOwn, Create: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn}})
	x := &listAPIFixture{masters: map[store.MasterKind][]store.Master{}, salesID: sales.ID,
		base: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	admin := e.DB.System(f.Tenant.ID, f.Admin.ID)
	for _, k := range []store.MasterKind{store.KindStage, store.KindStatus, store.KindSource, store.KindType} {
		ms, err := admin.Masters(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		x.masters[k] = ms
	}
	names := []string{"Zoe Adams", "bob brown", "Carla Cruz", "Bob Brown", "Dev Patel", "Ana Silva"}
	for i := range 12 {
		m := func(k store.MasterKind, n int) *int64 { return &x.masters[k][n%len(x.masters[k])].ID }
		created := x.base.Add(time.Duration(i) * 12 * time.Hour)
		in := store.LeadInput{Contact: store.Contact{CustomerName: names[i%len(names)], CompanyName: fmt.Sprintf("Company %c", 'A'+(11-i)),
			CompanyEmail: fmt.Sprintf("lead%d@acme.test", i), CompanyDialCode: "+91", CompanyPhoneNumber: fmt.Sprintf("90000000%02d", i),
		},
			LeadStageID: m(store.KindStage, i), LeadStatusID: m(store.KindStatus, i/2), LeadSourceID: m(store.KindSource, i/4),
			LeadTypeID: m(store.KindType, i), CreatedAt: &created}
		if i%3 == 0 {
			in.OwnerID = &sales.ID
		}
		v, _, err := admin.CreateLead(ctx, in, "", "")
		if err != nil {
			t.Fatal(err)
		}
		x.leads = append(x.leads, v)
	}
	for i := range 3 {
		if _, _, err := e.DB.System(o.Tenant.ID, o.Admin.ID).CreateLead(ctx, store.LeadInput{Contact: store.Contact{CustomerName: names[i],
			CompanyName: "Company A", CompanyEmail: fmt.Sprintf("other%d@other.test", i), CompanyPhoneNumber: "9000000001",
		}}, "", ""); err != nil {
			t.Fatal(err)
		}
	}
	x.admin, x.sales, x.other = e.APIClient(f.Admin.Email), e.APIClient(sales.Email), e.APIClient(o.Admin.Email)
	return x
}

// leadPageJSON is the data of a list answer.
type leadPageJSON struct {
	Result []struct {
		ID           int64  `json:"id"`
		CustomerName string `json:"customer_name"`
	} `json:"result"`
	Total       int64   `json:"total"`
	TotalCapped bool    `json:"total_capped"`
	Page        int     `json:"page"`
	Limit       int     `json:"limit"`
	Next        *string `json:"next"`
	Summary     struct {
		Won  int64 `json:"won"`
		Lost int64 `json:"lost"`
	} `json:"summary"`
}

func (p *leadPageJSON) ids() []int64 {
	out := []int64{}
	for _, r := range p.Result {
		out = append(out, r.ID)
	}
	return out
}

// listPage asks for a page of leads and decodes it; the answer must be 200.
func listPage(t *testing.T, c *apptest.Client, query string) *leadPageJSON {
	t.Helper()
	r := c.Get("/v1/api/lead/list-customer-lead?" + query)
	if r.Status != 200 {
		t.Fatalf("%s: %d %s", query, r.Status, r.Body)
	}
	var env struct {
		Data leadPageJSON `json:"data"`
	}
	apptest.MustJSON(t, r.Body, &env)
	return &env.Data
}

func (x *listAPIFixture) want(keep func(l *store.LeadView) bool) []int64 {
	out := []int64{}
	for _, l := range slices.Backward(x.leads) { // newest first
		if keep(l) {
			out = append(out, l.ID)
		}
	}
	return out
}

func idIs(p *int64, ids ...int64) bool { return p != nil && slices.Contains(ids, *p) }

func TestLeadListAPIFilters(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		x := newListAPIFixture(t, e)
		st, ss, so, ty := x.masters[store.KindStage], x.masters[store.KindStatus], x.masters[store.KindSource], x.masters[store.KindType]
		cases := []struct {
			query string
			keep  func(l *store.LeadView) bool
		}{
			{"", func(*store.LeadView) bool { return true }},
			{"stage_id=" + strconv.FormatInt(st[1].ID, 10), func(l *store.LeadView) bool { return idIs(l.LeadStageID, st[1].ID) }},
			{"stage_id=" + apptest.Bracket(st[0].ID, st[2].ID), func(l *store.LeadView) bool { return idIs(l.LeadStageID, st[0].ID, st[2].ID) }},
			{"status_id=" + apptest.Bracket(ss[1].ID), func(l *store.LeadView) bool { return idIs(l.LeadStatusID, ss[1].ID) }},
			{"status_id=" + apptest.Bracket(ss[0].ID, ss[2].ID) + "&stage_id=" + apptest.Bracket(st[0].ID, st[1].ID), func(l *store.LeadView) bool {
				return idIs(l.LeadStatusID, ss[0].ID, ss[2].ID) && idIs(l.LeadStageID, st[0].ID, st[1].ID)
			}},
			{"source_id=" + apptest.Bracket(so[2].ID, so[0].ID), func(l *store.LeadView) bool { return idIs(l.LeadSourceID, so[0].ID, so[2].ID) }},
			{"type_id=" + apptest.Bracket(ty[1].ID), func(l *store.LeadView) bool { return idIs(l.LeadTypeID, ty[1].ID) }},
			{"owner_id=" + apptest.Bracket(x.salesID), func(l *store.LeadView) bool { return idIs(l.OwnerID, x.salesID) }},
			{"from=2026-03-02&to=2026-03-03", func(l *store.LeadView) bool { // the "to" day is included
				return !l.CreatedAt.Before(x.base.Add(14*time.Hour)) && l.CreatedAt.Before(x.base.Add(62*time.Hour))
			}},
			{"from=2026-03-04", func(l *store.LeadView) bool { return !l.CreatedAt.Before(x.base.Add(62 * time.Hour)) }},
		}
		for _, c := range cases {
			want := x.want(c.keep)
			p := listPage(t, x.admin, c.query+"&limit=100")
			if !slices.Equal(p.ids(), want) || p.Total != int64(len(want)) || p.TotalCapped || p.Next != nil || p.Limit != 100 || p.Page != 1 {
				t.Errorf("%s: got %v total %d capped %v next %v, want %v", c.query, p.ids(), p.Total, p.TotalCapped, p.Next, want)
			}
		}
		// Refused queries name the parameter.
		for query, field := range map[string]string{
			"stage_id=" + url.QueryEscape("[1,x]"): "stage_id", "owner_id=-3": "owner_id", "from=yesterday": "from",
			"to=2026-02-30": "to", "sort=password_hash": "sort", "order=up": "order", "after=not-a-cursor": "after",
			"search=" + strings.Repeat("x", 201): "search",
		} {
			r := x.admin.Get("/v1/api/lead/list-customer-lead?" + query)
			if env := r.Env(); r.Status != 422 || env.Errors[field] == "" {
				t.Errorf("%s: %d %s", query, r.Status, r.Body)
			}
		}
	})
}

func TestLeadListAPISortAndKeyset(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		x := newListAPIFixture(t, e)
		byName := slices.Clone(x.leads)
		slices.SortStableFunc(byName, func(a, b *store.LeadView) int {
			return cmp.Or(strings.Compare(strings.ToLower(a.CustomerName), strings.ToLower(b.CustomerName)), cmp.Compare(a.ID, b.ID))
		})
		byCompanyDesc := slices.Clone(x.leads)
		slices.SortFunc(byCompanyDesc, func(a, b *store.LeadView) int { return -strings.Compare(a.CompanyName, b.CompanyName) })
		rank := func(l *store.LeadView) int {
			return slices.IndexFunc(x.masters[store.KindStage], func(m store.Master) bool { return idIs(l.LeadStageID, m.ID) })
		}
		byStage := slices.Clone(x.leads)
		slices.SortFunc(byStage, func(a, b *store.LeadView) int { return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(b.ID, a.ID)) })
		oldest := slices.Clone(x.leads)
		ids := func(rows []*store.LeadView) []int64 {
			out := []int64{}
			for _, r := range rows {
				out = append(out, r.ID)
			}
			return out
		}
		for query, want := range map[string][]int64{
			"sort=customer_name":             ids(byName),
			"sort=name":                      ids(byName),
			"sort=company_name&order=desc":   ids(byCompanyDesc),
			"sort=stage":                     ids(byStage),
			"sort=recent&order=asc":          ids(oldest),
			"sort=created_at":                ids(oldest),
			"sort=id&order=desc":             x.want(func(*store.LeadView) bool { return true }),
			"sort=company_email&order=desc":  nil, // checked for paging only
			"sort=status&search=lead&limit=": nil,
		} {
			// Keyset: follow next until it is null; every lead once, in order.
			var got []int64
			seen := map[int64]bool{}
			q := query + "&limit=5"
			for pages := 0; ; pages++ {
				p := listPage(t, x.admin, q)
				for _, id := range p.ids() {
					if seen[id] {
						t.Fatalf("%s: lead %d on two pages", query, id)
					}
					seen[id] = true
				}
				got = append(got, p.ids()...)
				if p.Next == nil || pages > 10 {
					break
				}
				if len(p.Result) != 5 || p.Total != int64(len(x.leads)) && !strings.Contains(query, "search") {
					t.Fatalf("%s: a page of %d before the end, total %d", query, len(p.Result), p.Total)
				}
				q = query + "&limit=5&after=" + url.QueryEscape(*p.Next)
			}
			if want != nil && !slices.Equal(got, want) {
				t.Errorf("%s: got %v, want %v", query, got, want)
			}
			if want == nil && len(got) == 0 {
				t.Errorf("%s: nothing", query)
			}
			// Offset pages (the mobile list's page and limit) agree with the first keyset page.
			if p := listPage(t, x.admin, query+"&page=2&limit=5"); want != nil && !slices.Equal(p.ids(), want[5:10]) || p.Page != 2 {
				t.Errorf("%s page 2: %v", query, p.ids())
			}
		}
		// A cursor belongs to its sort.
		next := listPage(t, x.admin, "sort=customer_name&limit=5").Next
		if r := x.admin.Get("/v1/api/lead/list-customer-lead?sort=company_name&after=" + url.QueryEscape(*next)); r.Status != 422 || r.Env().Errors["after"] != "invalid" {
			t.Errorf("cursor of another sort: %d %s", r.Status, r.Body)
		}
	})
}

func TestLeadListAPISearchScopesAndTenants(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		x := newListAPIFixture(t, e)
		l := x.leads[7]
		for term, want := range map[string][]int64{
			strconv.FormatInt(l.ID, 10):    {l.ID}, // id
			"COMPANY " + l.CompanyName[8:]: {l.ID}, // company, any case
			"lead7@":                       {l.ID}, // email
			"9000000007":                   {l.ID}, // phone
			"+919000000007":                {l.ID}, // dial code and phone
			"bob brown":                    x.want(func(l *store.LeadView) bool { return strings.EqualFold(l.CustomerName, "bob brown") }),
			"bo":                           x.want(func(l *store.LeadView) bool { return strings.EqualFold(l.CustomerName, "bob brown") }), // short: a prefix
			"nobody":                       {},
		} {
			if got := listPage(t, x.admin, "search="+url.QueryEscape(term)).ids(); !slices.Equal(got, want) {
				t.Errorf("search %q: got %v, want %v", term, got, want)
			}
		}
		stage := x.masters[store.KindStage][0]
		if got, want := listPage(t, x.admin, "limit=100&search="+url.QueryEscape(strings.ToUpper(stage.Name))).ids(),
			x.want(func(l *store.LeadView) bool { return idIs(l.LeadStageID, stage.ID) }); !slices.Equal(got, want) {
			t.Errorf("search by stage %q: got %v, want %v", stage.Name, got, want)
		}

		// A sales user with "own" records sees, searches and counts only theirs.
		mine := x.want(func(l *store.LeadView) bool { return idIs(l.OwnerID, x.salesID) || idIs(l.CreatedBy, x.salesID) })
		p := listPage(t, x.sales, "limit=100")
		if !slices.Equal(p.ids(), mine) || p.Total != int64(len(mine)) || len(mine) == 0 || len(mine) == len(x.leads) {
			t.Fatalf("own list: %v total %d, want %v", p.ids(), p.Total, mine)
		}
		var won, lost int64
		for _, l := range x.leads {
			if idIs(l.OwnerID, x.salesID) && l.LeadStageIsWon {
				won++
			}
			if idIs(l.OwnerID, x.salesID) && l.LeadStageIsLost {
				lost++
			}
		}
		if p.Summary.Won != won || p.Summary.Lost != lost {
			t.Errorf("own summary: %+v, want won %d lost %d", p.Summary, won, lost)
		}
		notMine := x.leads[1] // owned by the admin
		for _, q := range []string{"search=" + strconv.FormatInt(notMine.ID, 10), "search=" + url.QueryEscape(notMine.CompanyEmail),
			"search=dev", "sort=stage&limit=100", "stage_id=" + apptest.Bracket(*notMine.LeadStageID) + "&limit=100"} {
			for _, id := range listPage(t, x.sales, q).ids() {
				if !slices.Contains(mine, id) {
					t.Errorf("own list %s: lead %d is not theirs", q, id)
				}
			}
		}
		if p := listPage(t, x.sales, "search=dev"); p.Total != 0 {
			t.Errorf("own search of another's lead counts %d", p.Total)
		}

		// Another tenant sees only its three leads, whatever it asks.
		for _, q := range []string{"limit=100", "search=company+a", "search=" + strconv.FormatInt(l.ID, 10), "search=bo",
			"stage_id=" + apptest.Bracket(*l.LeadStageID), "owner_id=" + apptest.Bracket(x.salesID)} {
			p := listPage(t, x.other, q)
			for _, id := range p.ids() {
				if slices.ContainsFunc(x.leads, func(v *store.LeadView) bool { return v.ID == id }) {
					t.Errorf("other tenant %s: sees lead %d", q, id)
				}
			}
			if q == "limit=100" && p.Total != 3 {
				t.Errorf("other tenant: total %d", p.Total)
			}
		}
	})
}
