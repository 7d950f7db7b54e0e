// Long on purpose: the client list page and API share one fixture walked through every sort,
// filter, search, page size, cursor and bulk action.

package clients_test

import (
	"cmp"
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
)

// clientListFixture is a tenant with 25 clients spread over three companies, two owners,
// 25 days, 5 of them converted from a lead; a second user (Sam) owns every third one.
type clientListFixture struct {
	f       apptest.Tenant
	sam     *store.User
	ids     []int64 // in creation order
	base    time.Time
	byOwner map[int64][]int64
	leadIDs map[int64]bool // clients converted from a lead
}

var fixtureCompanyNames = []string{"Acme Textiles", "Blue Harbor", "cobalt labs"}

func newClientListFixture(t *testing.T, e *apptest.Env) *clientListFixture {
	t.Helper()
	ctx := context.Background()
	x := &clientListFixture{f: e.Tenant("Acme"), base: time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC),
		byOwner: map[int64][]int64{}, leadIDs: map[int64]bool{}}
	x.sam = e.User(x.f, "sam@acme.test", map[auth.Feature]auth.Grant{auth.FeatureClients: auth.Full})
	admin := e.DB.System(x.f.Tenant.ID, x.f.Admin.ID)
	for i := range 25 {
		in := store.ClientInput{Contact: store.Contact{CustomerName: fmt.Sprintf("Person %02d", (i*7)%25), CompanyName: fixtureCompanyNames[i%3],
			CompanyEmail: fmt.Sprintf("person%02d@example.com", i), CompanyDialCode: "+91", CompanyPhoneNumber: fmt.Sprintf("98765%05d", i),
		}}
		owner := x.f.Admin.ID
		if i%3 == 0 {
			owner = x.sam.ID
		}
		in.OwnerID = &owner
		var id int64
		if i%5 == 0 {
			l, _, err := admin.CreateLead(ctx, store.LeadInput{Contact: store.Contact{CustomerName: in.CustomerName, CompanyName: in.CompanyName,
				CompanyEmail: in.CompanyEmail, CompanyDialCode: "+91", CompanyPhoneNumber: in.CompanyPhoneNumber, OwnerID: &owner,
			}}, "", "")
			if err != nil {
				t.Fatal(err)
			}
			c, err := admin.ConvertLead(ctx, l.ID)
			if err != nil {
				t.Fatal(err)
			}
			id = c.ID
			x.leadIDs[id] = true
		} else {
			c, err := admin.CreateClient(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			id = c.ID
		}
		if _, err := admin.Update((*store.Client)(nil)).Set("created_at = ?", x.base.AddDate(0, 0, i)).Where("id = ?", id).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		x.ids = append(x.ids, id)
		x.byOwner[owner] = append(x.byOwner[owner], id)
	}
	return x
}

// clientRow is a client as the list API returns it (the fields the tests look at).
type clientRow struct {
	ID           int64     `json:"id"`
	CustomerName string    `json:"customer_name"`
	CompanyName  string    `json:"company_name"`
	OwnerID      *int64    `json:"owner_id"`
	LeadID       *int64    `json:"lead_id"`
	CreatedAt    time.Time `json:"created_at"`
}

type clientPageJSON struct {
	Result      []clientRow `json:"result"`
	Total       int64       `json:"total"`
	TotalCapped bool        `json:"total_capped"`
	Page        int         `json:"page"`
	Limit       int         `json:"limit"`
	Next        *string     `json:"next"`
	Prev        *string     `json:"prev"`
}

func (p *clientPageJSON) ids() []int64 {
	out := make([]int64, len(p.Result))
	for i, r := range p.Result {
		out[i] = r.ID
	}
	return out
}

// clientPage fetches one page of the list API, failing the test unless it is a 200.
func clientPage(t *testing.T, c *apptest.Client, query string) *clientPageJSON {
	t.Helper()
	r := c.Get("/v1/api/client/list-customer-client?" + query)
	if r.Status != http.StatusOK {
		t.Fatalf("list %s: %d %s", query, r.Status, r.Body)
	}
	var env struct {
		Data clientPageJSON `json:"data"`
	}
	apptest.MustJSON(t, r.Body, &env)
	return &env.Data
}

// walkClientAPI follows `next` to the end and `prev` back to the start, checking that each
// page comes back the same, and returns every row in order.
func walkClientAPI(t *testing.T, c *apptest.Client, query string) []clientRow {
	t.Helper()
	var rows []clientRow
	var pages [][]int64
	seen := map[int64]bool{}
	p := clientPage(t, c, query)
	for {
		for _, r := range p.Result {
			if seen[r.ID] {
				t.Fatalf("%s: client %d twice", query, r.ID)
			}
			seen[r.ID] = true
		}
		rows = append(rows, p.Result...)
		pages = append(pages, p.ids())
		if p.Next == nil {
			break
		}
		p = clientPage(t, c, query+"&after="+url.QueryEscape(*p.Next))
	}
	for i := len(pages) - 1; i > 0; i-- {
		if p.Prev == nil {
			t.Fatalf("%s: page %d has no prev", query, i+1)
		}
		p = clientPage(t, c, query+"&before="+url.QueryEscape(*p.Prev))
		if !slices.Equal(p.ids(), pages[i-1]) {
			t.Fatalf("%s: back to page %d: %v, want %v", query, i, p.ids(), pages[i-1])
		}
	}
	if p.Prev != nil {
		t.Fatalf("%s: the first page has a prev", query)
	}
	return rows
}

func rowIDs(rows []clientRow) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r.ID
	}
	return out
}

func TestClientListAPISortFilterAndKeyset(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		x := newClientListFixture(t, e)
		c := e.APIClient(x.f.Admin.Email)
		// Every sort, both ways, page by page: each client once, in the sort's order.
		keys := map[string]func(r clientRow) string{
			"id":            func(clientRow) string { return "" },
			"customer_name": func(r clientRow) string { return strings.ToLower(r.CustomerName) },
			"company_name":  func(r clientRow) string { return strings.ToLower(r.CompanyName) },
			"created_at":    func(r clientRow) string { return r.CreatedAt.UTC().Format(time.RFC3339Nano) },
		}
		for name, key := range keys {
			for _, order := range []string{"asc", "desc"} {
				rows := walkClientAPI(t, c, "limit=7&sort="+name+"&order="+order)
				if len(rows) != 25 {
					t.Fatalf("%s %s: %d clients", name, order, len(rows))
				}
				sorted := slices.IsSortedFunc(rows, func(a, b clientRow) int {
					d := cmp.Or(strings.Compare(key(a), key(b)), cmp.Compare(a.ID, b.ID))
					if order == "desc" {
						return -d
					}
					return d
				})
				if !sorted {
					t.Errorf("%s %s: not in order: %v", name, order, rowIDs(rows))
				}
			}
		}
		// The default is newest first, and so is a sort the API does not know (as it always was).
		recent := slices.Clone(x.ids)
		slices.Reverse(recent)
		for _, q := range []string{"limit=100", "limit=100&sort=recent", "limit=100&sort=shoe_size"} {
			if got := clientPage(t, c, q).ids(); !slices.Equal(got, recent) {
				t.Errorf("%s: %v", q, got)
			}
		}
		// Offset paging still works, as the API always had it.
		if p := clientPage(t, c, "page=2&limit=10"); !slices.Equal(p.ids(), recent[10:20]) || p.Page != 2 || p.Total != 25 || p.Prev == nil {
			t.Errorf("page 2: %v (page %d, total %d)", p.ids(), p.Page, p.Total)
		}
		// Filters, alone and together, with exact totals.
		converted := func(keep bool) []int64 {
			var out []int64
			for _, id := range recent {
				if x.leadIDs[id] == keep {
					out = append(out, id)
				}
			}
			return out
		}
		samIDs := slices.Clone(x.byOwner[x.sam.ID])
		slices.Reverse(samIDs)
		day := func(n int) string { return x.base.AddDate(0, 0, n).Format(time.DateOnly) }
		for q, want := range map[string][]int64{
			"owner_id=" + strconv.FormatInt(x.sam.ID, 10):                                                    samIDs,
			"owner_id=[" + strconv.FormatInt(x.sam.ID, 10) + "," + strconv.FormatInt(x.f.Admin.ID, 10) + "]": recent,
			"converted=yes":                    converted(true),
			"converted=no":                     converted(false),
			"from=" + day(20):                  recent[:5],
			"to=" + day(4):                     recent[20:],
			"from=" + day(3) + "&to=" + day(5): recent[19:22],
			"converted=yes&owner_id=" + strconv.FormatInt(x.sam.ID, 10): {x.ids[15], x.ids[0]},
			"search=acme":        {x.ids[24], x.ids[21], x.ids[18], x.ids[15], x.ids[12], x.ids[9], x.ids[6], x.ids[3], x.ids[0]},
			"search=PERSON07%40": {x.ids[7]},
			"search=%23" + strconv.FormatInt(x.ids[4], 10): {x.ids[4]},
			"search=9876500013":                            {x.ids[13]},
			"search=nobody":                                {},
		} {
			p := clientPage(t, c, q+"&limit=100")
			if !slices.Equal(p.ids(), want) || p.Total != int64(len(want)) || p.TotalCapped {
				t.Errorf("%s: %v (total %d), want %v", q, p.ids(), p.Total, want)
			}
			if p2 := clientPage(t, c, q+"&limit=2"); p2.Total != int64(len(want)) {
				t.Errorf("%s, 2 a page: total %d, want %d", q, p2.Total, len(want))
			}
		}
		// Page sizes.
		for limit, want := range map[string]int{"20": 20, "50": 25, "100": 25, "0": 20, "500": 20} {
			if p := clientPage(t, c, "limit="+limit); len(p.Result) != want {
				t.Errorf("limit %s: %d rows", limit, len(p.Result))
			}
		}
		// Refusals.
		for q, field := range map[string]string{"order=sideways": "order", "converted=maybe": "converted", "owner_id=x": "owner_id",
			"from=yesterday": "from", "after=junk": "after", "before=junk": "before", "search=" + strings.Repeat("x", 201): "search"} {
			r := c.Get("/v1/api/client/list-customer-client?" + q)
			if r.Status != 422 || r.Env().Errors[field] == "" {
				t.Errorf("%s: %d %s", q, r.Status, r.Body)
			}
		}
	})
}

func TestClientListAPIScopesAndTenants(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		x := newClientListFixture(t, e)
		ctx := context.Background()
		rep := e.User(x.f, "rep@acme.test", map[auth.Feature]auth.Grant{auth.FeatureClients: {View: auth.ScopeOwn, Create: auth.ScopeOwn, Update: auth.ScopeOwn, Delete: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn}})
		repScope := e.DB.System(x.f.Tenant.ID, rep.ID)
		var mine []int64
		for i, name := range []string{"Rep One", "Rep Two", "Rep Three"} {
			c, err := repScope.CreateClient(ctx, store.ClientInput{Contact: store.Contact{CustomerName: name, CompanyName: "Acme Textiles",
				CompanyEmail: fmt.Sprintf("rep%d@example.com", i), CompanyPhoneNumber: "9876543210",
			}})
			if err != nil {
				t.Fatal(err)
			}
			mine = append([]int64{c.ID}, mine...)
		}
		// One of the admin's clients given to the rep is theirs too.
		given := x.ids[1]
		if _, err := e.DB.System(x.f.Tenant.ID, x.f.Admin.ID).BulkSetClientOwner(ctx, []int64{given}, rep.ID); err != nil {
			t.Fatal(err)
		}
		mine = append(mine, given)
		rc := e.APIClient(rep.Email)
		if got := rowIDs(walkClientAPI(t, rc, "limit=2")); !slices.Equal(got, mine) {
			t.Errorf("own scope: %v, want %v", got, mine)
		}
		if p := clientPage(t, rc, "search=acme&limit=100"); !slices.Equal(p.ids(), mine[:3]) || p.Total != 3 {
			t.Errorf("own scope search: %v", p.ids())
		}
		if p := clientPage(t, rc, "limit=1"); p.Total != 4 {
			t.Errorf("own scope total: %d", p.Total)
		}
		// Another tenant sees nothing of these, whatever it asks.
		other := e.APIClient(e.Tenant("Other").Admin.Email)
		for _, q := range []string{"", "search=acme", "owner_id=" + strconv.FormatInt(x.sam.ID, 10), "converted=yes"} {
			if p := clientPage(t, other, q); len(p.Result) != 0 || p.Total != 0 {
				t.Errorf("other tenant %q: %v", q, p.ids())
			}
		}
		// Without the client permission: refused.
		blind := e.APIClient(e.User(x.f, "blind@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: auth.Full}).Email)
		if r := blind.Get("/v1/api/client/list-customer-client"); r.Status != http.StatusForbidden {
			t.Errorf("without permission: %d", r.Status)
		}
	})
}

func TestClientBulkAPI(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		x := newClientListFixture(t, e)
		ctx := context.Background()
		admin := e.APIClient(x.f.Admin.Email)
		other := e.Tenant("Other")
		otherClient, err := e.DB.System(other.Tenant.ID, other.Admin.ID).CreateClient(ctx, store.ClientInput{Contact: store.Contact{CustomerName: "Theirs",
			CompanyEmail: "theirs@example.com", CompanyPhoneNumber: "9876543210",
		}})
		if err != nil {
			t.Fatal(err)
		}
		// Three of the admin's clients (one Sam's already) and another tenant's to Sam.
		ids := []int64{x.ids[1], x.ids[2], x.ids[3], otherClient.ID}
		r := admin.Do("PATCH", "/v1/api/client/bulk-update-customer-client", map[string]any{"ids": ids, "owner_id": x.sam.ID})
		if r.Status != 200 || r.Env().Data["count"] != 2.0 || r.Env().Message != "2 clients updated" {
			t.Fatalf("bulk owner: %d %s", r.Status, r.Body)
		}
		for _, id := range ids[:3] {
			got := admin.Get(fmt.Sprintf("/v1/api/client/view-customer-client/%d", id)).Env().Data
			if got["owner_id"] != float64(x.sam.ID) {
				t.Errorf("client %d owner %v", id, got["owner_id"])
			}
		}
		if c, _ := e.DB.System(other.Tenant.ID, other.Admin.ID).ClientView(ctx, otherClient.ID); c.OwnerID == nil || *c.OwnerID != other.Admin.ID {
			t.Error("another tenant's client changed owner")
		}
		// The journey records each change, as an edit does.
		if h, _ := e.DB.System(x.f.Tenant.ID, x.f.Admin.ID).History(ctx, store.EntityClient, x.ids[1], 1); len(h) != 1 || h[0].Action != "update" {
			t.Errorf("journey: %+v", h)
		}
		for _, body := range []map[string]any{
			{"ids": ids, "owner_id": other.Admin.ID}, // another tenant's user
			{"ids": []int64{}, "owner_id": x.sam.ID},
			{"ids": ids},
		} {
			if r := admin.Do("PATCH", "/v1/api/client/bulk-update-customer-client", body); r.Status != 422 {
				t.Errorf("%v: %d %s", body, r.Status, r.Body)
			}
		}
		if r := admin.Do("PATCH", "/v1/api/client/bulk-update-customer-client", `{"ids":[1],"owner_id":1,"tenant_id":2}`); r.Status != 400 {
			t.Errorf("unknown field: %d %s", r.Status, r.Body)
		}
		viewer := e.APIClient(e.User(x.f, "viewer@acme.test", map[auth.Feature]auth.Grant{auth.FeatureClients: {View: auth.ScopeAll, Export: auth.ScopeAll}}).Email)
		if r := viewer.Do("PATCH", "/v1/api/client/bulk-update-customer-client", map[string]any{"ids": ids, "owner_id": x.sam.ID}); r.Status != 403 {
			t.Errorf("view-only bulk update: %d", r.Status)
		}
		if r := viewer.Do("DELETE", "/v1/api/client/delete-customer-client?ids="+apptest.Bracket(ids...), nil); r.Status != 403 {
			t.Errorf("view-only bulk delete: %d", r.Status)
		}

		// Delete many: the reachable ones go, with their journeys.
		r = admin.Do("DELETE", "/v1/api/client/delete-customer-client?ids="+apptest.Bracket(x.ids[4], x.ids[5], otherClient.ID), nil)
		if r.Status != 200 || r.Env().Data["count"] != 2.0 || r.Env().Message != "2 clients deleted" {
			t.Fatalf("bulk delete: %d %s", r.Status, r.Body)
		}
		if p := clientPage(t, admin, "limit=1"); p.Total != 23 {
			t.Errorf("total after delete: %d", p.Total)
		}
		if _, err := e.DB.System(other.Tenant.ID, other.Admin.ID).ClientView(ctx, otherClient.ID); err != nil {
			t.Errorf("another tenant's client: %v", err)
		}
		if r := admin.Do("DELETE", "/v1/api/client/delete-customer-client?ids="+apptest.Bracket(otherClient.ID), nil); r.Status != 404 {
			t.Errorf("only another tenant's: %d %s", r.Status, r.Body)
		}
		if r := admin.Do("DELETE", "/v1/api/client/delete-customer-client?ids=nope", nil); r.Status != 422 {
			t.Errorf("bad ids: %d %s", r.Status, r.Body)
		}
	})
}

// pagerLinks reads the paging bar of a client list page: its links by their text.
func pagerLinks(t *testing.T, body string) map[string]string {
	t.Helper()
	nav := regexp.MustCompile(`(?s)<nav class="pager".*?</nav>`).FindString(body)
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(?s)<a href="([^"]+)"[^>]*>\s*([^<]+?)\s*</a>`).FindAllStringSubmatch(nav, -1) {
		out[m[2]] = html.UnescapeString(m[1])
	}
	return out
}

// pageRowIDs are the client ids of a list page's table, in order.
func pageRowIDs(body string) []int64 {
	var out []int64
	for _, m := range regexp.MustCompile(`<tr data-client-id="(\d+)"`).FindAllStringSubmatch(body, -1) {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		out = append(out, id)
	}
	return out
}

func TestClientListPage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		x := newClientListFixture(t, e)
		b := e.Browser(x.f.Admin.Email)
		recent := slices.Clone(x.ids)
		slices.Reverse(recent)

		// The first page: the form that holds the state, the count, the table, the paging.
		first := b.Get("/clients").WantStatus(200).Has(`id="client-filters"`, `method="get"`, `hx-get="/clients"`,
			`data-testid="client-search"`, `name="owner_id"`, `name="converted"`, `name="from"`, `name="to"`, `name="limit"`,
			"25 clients", `data-testid="client-bulk-tools"`, `formaction="/clients/bulk/delete"`, `href="/clients/export.csv"`,
			`data-sort="customer_name"`, `aria-sort="descending"`, `href="/leads/`)
		if got := pageRowIDs(first.Body); !slices.Equal(got, recent[:20]) {
			t.Fatalf("first page: %v", got)
		}
		// Keyset paging by the links, sorted by name: every client once, and back.
		var seen []int64
		var pages [][]int64
		r := b.Get("/clients?sort=customer_name&order=asc&limit=20")
		for n := 0; ; n++ {
			seen = append(seen, pageRowIDs(r.Body)...)
			pages = append(pages, pageRowIDs(r.Body))
			next, ok := pagerLinks(t, r.Body)["Next page"]
			if !ok || n > 5 {
				break
			}
			if !strings.Contains(next, "after=") || !strings.Contains(next, "sort=customer_name") {
				t.Fatalf("next link %q", next)
			}
			r = b.Get(next).WantStatus(200)
		}
		if len(seen) != 25 || len(pages) != 2 {
			t.Fatalf("paging by name: %d clients on %d pages", len(seen), len(pages))
		}
		sortedSeen := slices.Clone(seen)
		slices.Sort(sortedSeen)
		if len(slices.Compact(sortedSeen)) != 25 {
			t.Fatalf("paging repeated clients: %v", seen)
		}
		links := pagerLinks(t, r.Body)
		if links["Previous page"] == "" || links["First page"] == "" {
			t.Fatalf("last page links: %v", links)
		}
		back := b.Get(links["Previous page"]).WantStatus(200)
		if got := pageRowIDs(back.Body); !slices.Equal(got, pages[0]) {
			t.Fatalf("previous page: %v, want %v", got, pages[0])
		}
		if _, ok := pagerLinks(t, back.Body)["Previous page"]; ok {
			t.Fatal("the first page has a previous page")
		}
		// Page sizes.
		if got := pageRowIDs(b.Get("/clients?limit=50").Body); len(got) != 25 {
			t.Fatalf("50 a page: %d", len(got))
		}

		// Search, filters and sort through the address, kept by the links.
		r = b.Get("/clients?search=ACME&converted=no&sort=created_at&order=asc").WantStatus(200).Has(`value="ACME"`,
			`<option value="no" selected`, "7 clients", `aria-sort="ascending"`)
		want := []int64{x.ids[3], x.ids[6], x.ids[9], x.ids[12], x.ids[18], x.ids[21], x.ids[24]}
		if got := pageRowIDs(r.Body); !slices.Equal(got, want) {
			t.Fatalf("search and filter: %v, want %v", got, want)
		}
		if !strings.Contains(r.Body, `href="/clients/export.csv?converted=no&amp;order=asc&amp;search=ACME&amp;sort=created_at"`) {
			t.Fatalf("export link does not hold the view:\n%.3000s", r.Body)
		}
		if got := pageRowIDs(b.Get("/clients?owner_id=" + strconv.FormatInt(x.sam.ID, 10) + "&from=" + x.base.AddDate(0, 0, 10).Format(time.DateOnly)).Body); !slices.Equal(got, []int64{x.ids[24], x.ids[21], x.ids[18], x.ids[15], x.ids[12]}) {
			t.Fatalf("owner and from: %v", got)
		}
		b.Get("/clients?search=nobody+at+all").Has(`data-testid="clients-empty"`, "No clients match this search and these filters.")
		b.Get("/clients?from=yesterday&converted=yes").Has(`aria-invalid="true"`, "5 clients", `href="/clients/export.csv?converted=yes"`)

		// With htmx: only the results, with the sort fields out of band.
		frag := b.Htmx("/clients?search=blue&sort=customer_name", "client-results").WantStatus(200)
		frag.Has(`data-testid="client-table"`, `id="client-sort"`, `hx-swap-oob="true"`, `value="customer_name"`, "8 clients").
			Lacks("<html", `id="client-filters"`)
		if vary := strings.Join(frag.Header.Values("Vary"), ", "); !strings.Contains(vary, "HX-Target") {
			t.Errorf("fragment Vary: %q", vary)
		}
		b.Htmx("/clients", "main").WantStatus(200).Has(`id="client-filters"`).Lacks("<html")

		// A mangled cursor, or one past every row left, starts again from the first page.
		last := pagerLinks(t, b.Get("/clients?limit=20").Body)["Next page"]
		if _, err := e.DB.System(x.f.Tenant.ID, x.f.Admin.ID).Delete((*store.Client)(nil)).Where("id < ?", x.ids[5]).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"/clients?after=junk", "/clients?before=junk", last} {
			if got := pageRowIDs(b.Get(p).WantStatus(200).Body); !slices.Equal(got, recent[:20]) {
				t.Fatalf("%s: %v", p, got)
			}
		}
	})
}

// TestClientListPageCappedCount: past SearchCountCap matches, a search counts "100+".
func TestClientListPageCappedCount(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		s := e.DB.System(f.Tenant.ID, f.Admin.ID)
		batch := make([]store.Client, 0, store.SearchCountCap+5)
		for i := range cap(batch) {
			c := store.Client{Contact: store.Contact{CustomerName: fmt.Sprintf("Many Person %04d", i), CompanyEmail: fmt.Sprintf("many%04d@example.com", i),
				CompanyPhoneNumber: fmt.Sprintf("98%08d", i), OwnerID: &f.Admin.ID,
			}, CreatedBy: &f.Admin.ID}
			c.SearchText = strings.ToLower(c.CustomerName + " " + c.CompanyEmail + " " + c.CompanyPhoneNumber)
			batch = append(batch, c)
		}
		if _, err := s.Insert(&batch).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		b := e.Browser(f.Admin.Email)
		b.Get("/clients").Has(fmt.Sprintf("%d clients", store.SearchCountCap+5))
		b.Get("/clients?search=many+person").Has("100+ clients")
		p := clientPage(t, e.APIClient(f.Admin.Email), "search=many+person")
		if p.Total != store.SearchCountCap || !p.TotalCapped || p.Next == nil {
			t.Errorf("API: total %d capped %v", p.Total, p.TotalCapped)
		}
	})
}

func TestClientBulkPages(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		x := newClientListFixture(t, e)
		b := e.Browser(x.f.Admin.Email)
		ids := []string{strconv.FormatInt(x.ids[1], 10), strconv.FormatInt(x.ids[2], 10)}
		sam := strconv.FormatInt(x.sam.ID, 10)

		// Nothing selected, or no owner chosen: the list view again, with the reason.
		b.Form("/clients/bulk/owner", url.Values{"owner_id": {sam}, "back": {"/clients?search=acme"}}).
			WantStatus(422).Has("Select at least one client first.", `value="acme"`, `data-testid="client-bulk-error"`)
		b.Form("/clients/bulk/owner", url.Values{"ids": ids, "back": {"/clients"}}).WantStatus(422).Has("Choose the new value first.")
		// Another tenant's user as the owner.
		other := e.Tenant("Other")
		b.Form("/clients/bulk/owner", url.Values{"ids": ids, "owner_id": {strconv.FormatInt(other.Admin.ID, 10)}, "back": {"/clients"}}).
			WantStatus(422).Has(`data-testid="client-bulk-error"`)

		// Give two clients to Sam: back to the same view, with a toast and a journey entry.
		loc := b.Form("/clients/bulk/owner", url.Values{"ids": ids, "owner_id": {sam}, "back": {"/clients?sort=customer_name"}}).Location()
		if loc != "/clients?sort=customer_name" {
			t.Fatalf("bulk owner went back to %s", loc)
		}
		b.Get(loc).Has("2 clients updated")
		for _, id := range x.ids[1:3] {
			c, err := e.DB.System(x.f.Tenant.ID, x.f.Admin.ID).ClientView(context.Background(), id)
			if err != nil || c.OwnerID == nil || *c.OwnerID != x.sam.ID {
				t.Fatalf("client %d not given to Sam", id)
			}
		}
		b.Get("/clients/"+ids[0]).Has(`data-action="update"`, "changed the client")
		// A back address off the list is not followed.
		if loc := b.Form("/clients/bulk/owner", url.Values{"ids": ids, "owner_id": {sam}, "back": {"https://evil.example/"}}).Location(); loc != "/clients" {
			t.Fatalf("back to %s", loc)
		}

		// Delete: the first post lists what will go and deletes nothing.
		del := append(slices.Clone(ids), strconv.FormatInt(x.ids[3], 10))
		confirm := b.Form("/clients/bulk/delete", url.Values{"ids": del, "back": {"/clients?limit=50"}}).WantStatus(200)
		confirm.Has(`data-testid="confirm"`, "These 3 clients, their documents and files will be deleted.", `name="confirm" value="1"`,
			`href="/clients/`+ids[0]+`"`, `name="back" value="/clients?limit=50"`)
		if p := clientPage(t, e.APIClient(x.f.Admin.Email), "limit=1"); p.Total != 25 {
			t.Fatal("deleted before the confirmation")
		}
		loc = b.Form("/clients/bulk/delete", url.Values{"ids": del, "back": {"/clients?limit=50"}, "confirm": {"1"}}).Location()
		if loc != "/clients?limit=50" {
			t.Fatalf("bulk delete went to %s", loc)
		}
		after := b.Get(loc).Has("3 clients deleted", "22 clients")
		for _, id := range del {
			if strings.Contains(after.Body, `data-client-id="`+id+`"`) {
				t.Fatalf("client %s still listed", id)
			}
			b.Get("/clients/" + id).WantStatus(404)
		}
		b.Form("/clients/bulk/delete", url.Values{"back": {"/clients"}}).WantStatus(422).Has("Select at least one client first.")

		// Another tenant's admin: nothing of these to change or delete.
		oc := e.Browser(other.Admin.Email)
		rest := []string{strconv.FormatInt(x.ids[6], 10)}
		oc.Form("/clients/bulk/delete", url.Values{"ids": rest}).WantStatus(404)
		oc.Form("/clients/bulk/delete", url.Values{"ids": rest, "confirm": {"1"}}).WantStatus(404)
		if loc := oc.Form("/clients/bulk/owner", url.Values{"ids": rest, "owner_id": {strconv.FormatInt(other.Admin.ID, 10)}}).Location(); loc != "/clients" {
			t.Fatalf("other tenant bulk owner: %s", loc)
		}
		oc.Get("/clients").Has("0 clients")
		if c, _ := e.DB.System(x.f.Tenant.ID, x.f.Admin.ID).ClientView(context.Background(), x.ids[6]); c.OwnerID == nil || *c.OwnerID != x.sam.ID {
			t.Fatal("another tenant changed a client's owner")
		}

		// Permissions: view only sees no bulk tools and is refused both posts.
		viewer := e.Browser(e.User(x.f, "viewer@acme.test", map[auth.Feature]auth.Grant{auth.FeatureClients: {View: auth.ScopeAll, Export: auth.ScopeAll}}).Email)
		viewer.Get("/clients").WantStatus(200).Lacks(`data-testid="client-bulk-tools"`, `name="ids"`)
		viewer.Form("/clients/bulk/owner", url.Values{"ids": rest, "owner_id": {sam}}).WantStatus(403)
		viewer.Form("/clients/bulk/delete", url.Values{"ids": rest, "confirm": {"1"}}).WantStatus(403)
		leadsOnly := e.Browser(e.User(x.f, "leads@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: auth.Full}).Email)
		leadsOnly.Get("/clients").WantStatus(403)
		leadsOnly.Get("/clients/export.csv").WantStatus(403)
	})
}

func TestClientListPagesOwnScope(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		x := newClientListFixture(t, e)
		rep := e.User(x.f, "rep@acme.test", map[auth.Feature]auth.Grant{auth.FeatureClients: {View: auth.ScopeOwn, Create: auth.ScopeOwn, Update: auth.ScopeOwn, Delete: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn}})
		c, err := e.DB.System(x.f.Tenant.ID, rep.ID).CreateClient(context.Background(), store.ClientInput{Contact: store.Contact{CustomerName: "Rep Own",
			CompanyEmail: "rep.own@example.com", CompanyPhoneNumber: "9876543210",
		}})
		if err != nil {
			t.Fatal(err)
		}
		b := e.Browser(rep.Email)
		page := b.Get("/clients").WantStatus(200).Has("1 client", "Rep Own")
		if got := pageRowIDs(page.Body); !slices.Equal(got, []int64{c.ID}) {
			t.Fatalf("own scope list: %v", got)
		}
		// The bulk owner choice is themselves alone; others' clients are out of reach.
		if n := strings.Count(regexp.MustCompile(`(?s)<select id="bulk-owner_id".*?</select>`).FindString(page.Body), "<option"); n != 2 {
			t.Errorf("own scope bulk owner choices: %d options", n)
		}
		b.Form("/clients/bulk/owner", url.Values{"ids": {strconv.FormatInt(c.ID, 10)}, "owner_id": {strconv.FormatInt(x.sam.ID, 10)}}).
			WantStatus(422)
		b.Form("/clients/bulk/delete", url.Values{"ids": {strconv.FormatInt(x.ids[0], 10)}}).WantStatus(404)
		recs := apptest.ExportCSV(t, b, "/clients/export.csv", ',')
		if ids := apptest.ExportIDs(t, recs); !slices.Equal(ids, []int64{c.ID}) {
			t.Errorf("own scope export: %v", ids)
		}
	})
}

func TestClientExportHonoursFilters(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		x := newClientListFixture(t, e)
		api := e.APIClient(x.f.Admin.Email)
		b := e.Browser(x.f.Admin.Email)
		for _, q := range []string{
			"",
			"sort=customer_name&order=desc",
			"search=acme&sort=company_name",
			"owner_id=" + strconv.FormatInt(x.sam.ID, 10),
			"converted=yes",
			"converted=no&from=" + x.base.AddDate(0, 0, 5).Format(time.DateOnly) + "&to=" + x.base.AddDate(0, 0, 15).Format(time.DateOnly),
		} {
			want := rowIDs(walkClientAPI(t, api, q+"&limit=3"))
			if got := apptest.ExportIDs(t, apptest.ExportCSV(t, b, "/clients/export.csv?"+q, ',')); !slices.Equal(got, want) {
				t.Errorf("export %q: %v, want %v", q, got, want)
			}
			if got := apptest.ExportIDs(t, apptest.ExportCSV(t, api, "/v1/api/client/export-customer-client?"+q, ',')); !slices.Equal(got, want) {
				t.Errorf("API export %q: %v, want %v", q, got, want)
			}
		}
		// The export of a view is the view's: the page's export link leads to the same rows.
		page := b.Get("/clients?converted=yes&sort=created_at&order=asc&limit=20")
		m := regexp.MustCompile(`href="(/clients/export\.csv[^"]*)"`).FindStringSubmatch(page.Body)
		if m == nil {
			t.Fatal("no export link")
		}
		got := apptest.ExportIDs(t, apptest.ExportCSV(t, b, html.UnescapeString(m[1]), ','))
		if !slices.Equal(got, []int64{x.ids[0], x.ids[5], x.ids[10], x.ids[15], x.ids[20]}) {
			t.Errorf("export of the page's view: %v", got)
		}
		if r := api.Get("/v1/api/client/export-customer-client?converted=maybe"); r.Status != 422 {
			t.Errorf("bad filter: %d", r.Status)
		}
	})
}

// pickerHost is the element of a picker field (views/components PickerField) whose props
// name testid, failing the test if the page has none.
func pickerHost(t *testing.T, r *apptest.Response, testid string) string {
	t.Helper()
	for _, m := range regexp.MustCompile(`<div class="picker-slot"[^>]*>`).FindAllString(r.Body, -1) {
		if strings.Contains(m, `data-island="picker"`) && strings.Contains(m, `&#34;testid&#34;:&#34;`+testid+`&#34;`) {
			return m
		}
	}
	t.Fatalf("no picker field %s: %.4000s", testid, r.Body)
	return ""
}

// The client list's created-date range is the shared picker field, as on the lead list: the
// native date inputs (same names, ids and errors as before) inside the island's element,
// which waits for the user before its bundle loads; no page names the bundle in a script
// tag of its own. The reminder forms and /notifications use the same field, loaded at once.
func TestClientListDatePicker(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		x := newClientListFixture(t, e)
		b := e.Browser(x.f.Admin.Email)
		islands := regexp.MustCompile(`<script src="/static/build/admin-[^"]+\.js" defer data-islands="{&#34;picker&#34;:&#34;/static/build/picker-[^"&]+\.js&#34;}"></script>`)
		pickerScript := regexp.MustCompile(`<script src="/static/build/picker-`)
		day := func(n int) string { return x.base.AddDate(0, 0, n).Format(time.DateOnly) }

		page := b.Get("/clients?from=" + day(3) + "&to=" + day(5)).WantStatus(200)
		host := pickerHost(t, page, "client-created-range")
		for _, want := range []string{`data-load="intent"`, `&#34;mode&#34;:&#34;range&#34;`, `&#34;id&#34;:&#34;c-from&#34;`,
			`&#34;label&#34;:&#34;Created between&#34;`, `&#34;name&#34;:&#34;from&#34;`, `&#34;nameTo&#34;:&#34;to&#34;`,
			`&#34;value&#34;:&#34;` + day(3) + `&#34;`, `&#34;valueTo&#34;:&#34;` + day(5) + `&#34;`, `&#34;locale&#34;:&#34;en_US&#34;`,
			`&#34;set&#34;:&#34;Set&#34;`, `&#34;required&#34;:false`} {
			if !strings.Contains(host, want) {
				t.Errorf("client list picker lacks %s: %s", want, host)
			}
		}
		page.Has(`<input type="date" value="`+day(3)+`" id="c-from" name="from">`, `<input type="date" value="`+day(5)+`" id="c-to" name="to">`,
			`<label for="c-from">Created from`, `<label for="c-to">Created to`)
		// The field is in the filter grid, whose changes apply the filters; the search box's
		// own change still does not.
		grid := regexp.MustCompile(`(?s)<div class="grid filter-grid" id="client-filter-grid">.*?</div>\s*<input type="hidden" id="client-sort"`).FindString(page.Body)
		if !strings.Contains(grid, `data-island="picker"`) || !strings.Contains(grid, `id="c-to"`) {
			t.Fatalf("the picker is not in the filter grid: %.3000s", grid)
		}
		page.Has(`hx-trigger="submit, change from:#client-filter-grid, input changed delay:300ms from:#c-search, search from:#c-search"`)
		if got := pageRowIDs(page.Body); !slices.Equal(got, []int64{x.ids[5], x.ids[4], x.ids[3]}) {
			t.Fatalf("created range: %v", got)
		}
		if !islands.MatchString(page.Body) || pickerScript.MatchString(page.Body) {
			t.Fatalf("client list: the shell script should name the picker bundle, and no script tag load it: %.3000s", page.Body)
		}
		if n := strings.Count(page.Body, `data-island="picker"`); n != 1 {
			t.Fatalf("%d picker fields on the client list", n)
		}

		// An invalid day stays at its native field, and the island gets the message.
		bad := b.Get("/clients?to=2026-02-30").WantStatus(200)
		bad.WantInlineError("c-to", "Enter a valid date.")
		if !strings.Contains(pickerHost(t, bad, "client-created-range"), `&#34;errorId&#34;:&#34;c-to-error&#34;`) {
			t.Fatalf("the island does not carry the error of the to field: %.3000s", bad.Body)
		}
		// Reached by htmx (the side navigation), the page brings the field; the results
		// fragment does not (the form, and the island in it, stay).
		b.Htmx("/clients", "main").WantStatus(200).Has(`data-island="picker"`, `id="c-from"`).Lacks("<html", "<script")
		b.Htmx("/clients?from="+day(3), "client-results").WantStatus(200).Lacks(`data-island="picker"`, `id="c-from"`)

		// The reminder forms and /notifications: the shared field too, loaded as soon as it
		// is on the page, with no script of their own.
		api := e.APIClient(x.f.Admin.Email)
		lead := fmt.Sprintf("/leads/%d", apptest.NewLead(t, api, "Picker Lead"))
		for _, r := range []*apptest.Response{
			b.Get(lead).WantStatus(200),
			b.Form(lead+"/reminders", url.Values{"title": {"Call"}, "due_at": {"31/31/2020"}}).WantStatus(422),
		} {
			due := pickerHost(t, r, "due-picker")
			if !strings.Contains(due, `data-load="intent"`) || !strings.Contains(due, `&#34;withTime&#34;:true`) || !strings.Contains(due, `&#34;required&#34;:true`) {
				t.Errorf("reminder due picker: %s", due)
			}
			r.Has(`type="datetime-local"`, `id="f-due-at" name="due_at"`)
			if !islands.MatchString(r.Body) || pickerScript.MatchString(r.Body) {
				t.Fatalf("reminder form: the shell script should name the picker bundle, and no script tag load it: %.3000s", r.Body)
			}
		}
		refused := b.Form(lead+"/reminders", url.Values{"title": {"Call"}, "due_at": {"31/31/2020"}})
		if due := pickerHost(t, refused, "due-picker"); !strings.Contains(due, `&#34;errorId&#34;:&#34;f-due-at-error&#34;`) {
			t.Errorf("the refused reminder's picker lacks its error: %s", due)
		}
		notes := b.Get("/notifications?from=2026-01-05&to=2026-01-09").WantStatus(200)
		due := pickerHost(t, notes, "due-range")
		if strings.Contains(due, `data-load=`) || !strings.Contains(due, `&#34;mode&#34;:&#34;range&#34;`) || !strings.Contains(due, `&#34;label&#34;:&#34;Due between&#34;`) {
			t.Errorf("notifications picker: %s", due)
		}
		notes.Has(`<input type="date" value="2026-01-05" id="f-due-from" name="from">`, `<input type="date" value="2026-01-09" id="f-due-from-to" name="to">`)
		if !islands.MatchString(notes.Body) || pickerScript.MatchString(notes.Body) {
			t.Fatalf("notifications: the shell script should name the picker bundle, and no script tag load it: %.3000s", notes.Body)
		}
	})
}
