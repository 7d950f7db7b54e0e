// Long on purpose: one fixture of clients walked through every sort, filter, search and
// cursor of the client list, and the query plans at scale, on both databases.

package store_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/store/storetest"
	"crm/app/validate"
)

// clientFixture is a tenant with clients made to exercise every filter, sort and tie of the
// client list: names repeated in different cases, owners and creators that differ, clients
// converted from a lead and others not, two created at the same instant.
type clientFixture struct {
	db      *store.DB
	admin   store.Scope
	own     store.Scope // a user whose role reaches only the clients they own or created
	ownID   int64
	other   store.Scope // another tenant
	clients []store.ClientView
	base    time.Time
}

var clientNames = []string{"Ana Silva", "bob stone", "Carla Cruz", "ana silva", "Émile Roux", "Dev Patel", "Zoe Adams"}
var clientCompanies = []string{"Acme Textiles", "Blue Harbor", "cobalt labs", "Zenith & Co", ""}

// ownClientsRole gives a user every client action, on their own clients only.
var ownClientsRole = map[auth.Feature]auth.Grant{auth.FeatureClients: {View: auth.ScopeOwn, Create: auth.ScopeOwn, Update: auth.ScopeOwn, Delete: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn},
	auth.FeatureLeads: {View: auth.ScopeAll, Create: auth.ScopeAll, Update: auth.ScopeAll, Export: auth.ScopeAll, Import: auth.ScopeAll}}

func newClientFixture(t *testing.T, db *store.DB) *clientFixture {
	t.Helper()
	ctx := context.Background()
	tn, admin := newTenant(t, db, "Acme", "boss@acme.test")
	f := &clientFixture{db: db, admin: db.System(tn.ID, admin.ID), base: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	f.own, f.ownID = ownScope(t, db, f.admin, "rep@acme.test")
	for i := range 17 {
		in := store.ClientInput{Contact: store.Contact{CustomerName: clientNames[i%len(clientNames)], CompanyName: clientCompanies[i%len(clientCompanies)],
			CompanyEmail:    fmt.Sprintf("client%02d@%s.test", i, []string{"acme", "blue", "cobalt"}[i%3]),
			CompanyDialCode: "+91", CompanyPhoneNumber: fmt.Sprintf("98765%05d", i*37),
		}}
		creator := f.admin
		switch i % 3 {
		case 1: // the rep's own client
			creator = f.own
		case 2: // given to the rep by the admin
			in.OwnerID = &f.ownID
		}
		var id int64
		if i%4 == 0 { // converted from a lead
			l, _, err := f.admin.CreateLead(ctx, store.LeadInput{Contact: store.Contact{CustomerName: in.CustomerName, CompanyName: in.CompanyName,
				CompanyEmail: in.CompanyEmail, CompanyDialCode: "+91", CompanyPhoneNumber: in.CompanyPhoneNumber, OwnerID: in.OwnerID,
			}}, "", "")
			if err != nil {
				t.Fatal(err)
			}
			c, err := f.admin.ConvertLead(ctx, l.ID)
			if err != nil {
				t.Fatal(err)
			}
			id = c.ID
		} else {
			c, err := creator.CreateClient(ctx, in)
			if err != nil {
				t.Fatalf("client %d: %v", i, err)
			}
			id = c.ID
		}
		created := f.base.Add(time.Duration(i/2) * 24 * time.Hour) // two a day, at the same instant
		if _, err := f.admin.Update((*store.Client)(nil)).Set("created_at = ?", created).Where("id = ?", id).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	f.reload(t)
	otn, oadmin := newTenant(t, db, "Other", "boss@other.test")
	f.other = db.System(otn.ID, oadmin.ID)
	for i := range 3 {
		if _, err := f.other.CreateClient(ctx, store.ClientInput{Contact: store.Contact{CustomerName: clientNames[i], CompanyName: "Acme Textiles",
			CompanyEmail: fmt.Sprintf("other%d@acme.test", i), CompanyPhoneNumber: "9876500000",
		}}); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// ownScope adds a user with ownClientsRole and returns their scope.
func ownScope(t *testing.T, db *store.DB, admin store.Scope, email string) (store.Scope, int64) {
	t.Helper()
	ctx := context.Background()
	role, err := admin.CreateRole(ctx, "Own clients "+email, ownClientsRole)
	if err != nil {
		t.Fatal(err)
	}
	return userScope(t, db, admin, store.NewUser{Email: email, Name: "Rep " + email, Password: "Secret1!x", Role: role.Name})
}

// salesScope makes a user of the built-in sales role ("own records") in the admin's tenant
// and returns the scope that user's requests get, and the user's id.
func salesScope(t *testing.T, db *store.DB, admin store.Scope, email string) (store.Scope, int64) {
	t.Helper()
	return userScope(t, db, admin, store.NewUser{Email: email, Password: "Secret1!x", Role: store.RoleSales})
}

// userScope adds the user in the admin's tenant and returns the scope that user's requests
// get, with the permissions of their role, and the user's id.
func userScope(t *testing.T, db *store.DB, admin store.Scope, nu store.NewUser) (store.Scope, int64) {
	t.Helper()
	ctx := context.Background()
	u, err := admin.CreateUser(ctx, nu)
	if err != nil {
		t.Fatal(err)
	}
	perms, err := admin.Permissions(ctx, u.RoleID)
	if err != nil {
		t.Fatal(err)
	}
	return db.System(admin.TenantID, u.ID).WithPermissions(perms), u.ID
}

// reload reads every client of the tenant again, one by one (not through the list).
func (f *clientFixture) reload(t *testing.T) {
	t.Helper()
	var ids []int64
	if err := f.admin.Select((*store.Client)(nil)).Column("id").OrderExpr("id").Scan(context.Background(), &ids); err != nil {
		t.Fatal(err)
	}
	f.clients = f.clients[:0]
	for _, id := range ids {
		v, err := f.admin.ClientView(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		f.clients = append(f.clients, *v)
	}
}

func (f *clientFixture) where(keep func(c *store.ClientView) bool) []int64 {
	var out []int64
	for i := len(f.clients) - 1; i >= 0; i-- { // newest first, as the list's default
		if keep(&f.clients[i]) {
			out = append(out, f.clients[i].ID)
		}
	}
	return out
}

func clientIDs(rows []store.ClientView) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r.ID
	}
	return out
}

// fieldError reports whether err is a validation error on field.
func fieldError(err error, field string) bool {
	var verr validate.Errors
	return errors.As(err, &verr) && verr[field] != ""
}

func listClients(t *testing.T, s store.Scope, q store.ClientQuery) *store.ClientPage {
	t.Helper()
	p, err := s.ListClients(context.Background(), q)
	if err != nil {
		t.Fatalf("%+v: %v", q, err)
	}
	return p
}

// walkClients pages through q by keyset, forwards with Next to the end, then backwards with
// Prev to the start, checking every page on the way; it returns the ids in order.
func walkClients(t *testing.T, s store.Scope, q store.ClientQuery) []int64 {
	t.Helper()
	var out []int64
	var pages [][]int64
	seen := map[int64]bool{}
	p := listClients(t, s, q)
	if p.Prev != "" {
		t.Fatalf("%+v: first page has a previous page", q)
	}
	for {
		if len(p.Rows) > q.Limit || p.Next != "" && len(p.Rows) != q.Limit || len(pages) > 100 {
			t.Fatalf("%+v: page of %d rows, next %q", q, len(p.Rows), p.Next)
		}
		for _, r := range p.Rows {
			if seen[r.ID] {
				t.Fatalf("%+v: client %d repeated", q, r.ID)
			}
			seen[r.ID] = true
			out = append(out, r.ID)
		}
		pages = append(pages, clientIDs(p.Rows))
		if p.Next == "" {
			break
		}
		if len(pages) > 1 && p.Prev == "" {
			t.Fatalf("%+v: page %d has no previous page", q, len(pages))
		}
		q.After = p.Next
		p = listClients(t, s, q)
	}
	// Back to the start, page by page: the same pages in reverse.
	q.After = ""
	for i := len(pages) - 1; i > 0; i-- {
		if p.Prev == "" {
			t.Fatalf("%+v: page %d has no previous page", q, i+1)
		}
		q.Before = p.Prev
		p = listClients(t, s, q)
		if got := clientIDs(p.Rows); !slices.Equal(got, pages[i-1]) {
			t.Fatalf("%+v: back to page %d: %v, want %v", q, i, got, pages[i-1])
		}
	}
	if p.Prev != "" {
		t.Fatalf("%+v: back on the first page, it has a previous page", q)
	}
	return out
}

// expectedOrder sorts the fixture's clients the way a sort is documented to.
func (f *clientFixture) expectedOrder(sortName string, desc bool) []int64 {
	rows := slices.Clone(f.clients)
	key := func(c *store.ClientView) string {
		switch sortName {
		case store.SortCustomer:
			return strings.ToLower(c.CustomerName)
		case store.SortCompany:
			return strings.ToLower(c.CompanyName)
		case store.SortCreated:
			return c.CreatedAt.UTC().Format(time.RFC3339Nano)
		}
		return ""
	}
	slices.SortStableFunc(rows, func(a, b store.ClientView) int {
		c := cmp.Or(strings.Compare(key(&a), key(&b)), cmp.Compare(a.ID, b.ID))
		if desc {
			return -c
		}
		return c
	})
	return clientIDs(rows)
}

func TestListClientsSortAndPaging(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newClientFixture(t, db)
		for _, name := range store.ClientSorts[1:] {
			for _, order := range []string{"asc", "desc"} {
				want := f.expectedOrder(name, order == "desc")
				for _, limit := range []int{2, 5, 17} {
					q := store.ClientQuery{Sort: name, Order: order, Limit: limit}
					if got := walkClients(t, f.admin, q); !slices.Equal(got, want) {
						t.Errorf("%s %s by keyset, %d a page:\n got %v\nwant %v", name, order, limit, got, want)
					}
					var got []int64 // offset pages give the same sequence
					for page := 1; page <= (len(want)+limit-1)/limit+1; page++ {
						q.Page = page
						got = append(got, clientIDs(listClients(t, f.admin, q).Rows)...)
					}
					if !slices.Equal(got, want) {
						t.Errorf("%s %s by page, %d a page:\n got %v\nwant %v", name, order, limit, got, want)
					}
				}
			}
		}
		// The defaults and the older names: recent (newest first), name, company.
		for alias, canonical := range map[string][2]string{"": {store.SortID, "desc"}, store.SortRecent: {store.SortID, "desc"},
			store.SortName: {store.SortCustomer, "asc"}, store.SortCompanyShort: {store.SortCompany, "asc"}} {
			if got := clientIDs(listClients(t, f.admin, store.ClientQuery{Sort: alias, Limit: 100}).Rows); !slices.Equal(got, f.expectedOrder(canonical[0], canonical[1] == "desc")) {
				t.Errorf("sort %q: %v", alias, got)
			}
		}
		// A Before near the start serves the first page, full.
		p1 := listClients(t, f.admin, store.ClientQuery{Limit: 5})
		p2 := listClients(t, f.admin, store.ClientQuery{Limit: 5, After: listClients(t, f.admin, store.ClientQuery{Limit: 2}).Next})
		if back := listClients(t, f.admin, store.ClientQuery{Limit: 5, Before: p2.Prev}); !slices.Equal(clientIDs(back.Rows), clientIDs(p1.Rows)) || back.Prev != "" || back.Next == "" {
			t.Errorf("before the third client: %v (prev %q), want the first page %v", clientIDs(back.Rows), back.Prev, clientIDs(p1.Rows))
		}
		// The page size: 20 by default and when out of range, up to 100.
		for limit, want := range map[int][2]int{0: {20, 17}, -1: {20, 17}, 101: {20, 17}, 50: {50, 17}, 5: {5, 5}} {
			if p := listClients(t, f.admin, store.ClientQuery{Limit: limit}); p.Limit != want[0] || len(p.Rows) != want[1] || p.Total != 17 || p.TotalCapped {
				t.Errorf("limit %d: served %d with %d rows (total %d), want %v", limit, p.Limit, len(p.Rows), p.Total, want)
			}
		}
	})
}

func TestListClientsFilters(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newClientFixture(t, db)
		yes, no := true, false
		day := func(n int) time.Time { return time.Date(2026, 3, 1+n, 0, 0, 0, 0, time.UTC) }
		owns := func(c *store.ClientView, id int64) bool { return c.OwnerID != nil && *c.OwnerID == id }
		adminID := f.admin.UserID
		cases := []struct {
			name string
			q    store.ClientQuery
			keep func(c *store.ClientView) bool
		}{
			{"none", store.ClientQuery{}, func(*store.ClientView) bool { return true }},
			{"owner", store.ClientQuery{OwnerIDs: []int64{f.ownID}}, func(c *store.ClientView) bool { return owns(c, f.ownID) }},
			{"owners", store.ClientQuery{OwnerIDs: []int64{f.ownID, adminID}}, func(c *store.ClientView) bool { return owns(c, f.ownID) || owns(c, adminID) }},
			{"unknown owner", store.ClientQuery{OwnerIDs: []int64{999999}}, func(*store.ClientView) bool { return false }},
			{"converted", store.ClientQuery{Converted: &yes}, func(c *store.ClientView) bool { return c.LeadID != nil }},
			{"not converted", store.ClientQuery{Converted: &no}, func(c *store.ClientView) bool { return c.LeadID == nil }},
			{"created from", store.ClientQuery{CreatedFrom: day(5)}, func(c *store.ClientView) bool { return !c.CreatedAt.Before(day(5)) }},
			{"created before", store.ClientQuery{CreatedTo: day(3)}, func(c *store.ClientView) bool { return c.CreatedAt.Before(day(3)) }},
			{"created between, hours", store.ClientQuery{CreatedFrom: day(2).Add(9 * time.Hour), CreatedTo: day(4).Add(9 * time.Hour)}, func(c *store.ClientView) bool {
				return !c.CreatedAt.Before(day(2).Add(9*time.Hour)) && c.CreatedAt.Before(day(4).Add(9*time.Hour))
			}},
			{"all together", store.ClientQuery{OwnerIDs: []int64{f.ownID}, Converted: &no, CreatedFrom: day(1), Search: "a"}, func(c *store.ClientView) bool {
				return owns(c, f.ownID) && c.LeadID == nil && !c.CreatedAt.Before(day(1)) &&
					(strings.HasPrefix(strings.ToLower(c.CustomerName), "a") || strings.HasPrefix(strings.ToLower(c.CompanyName), "a"))
			}},
		}
		for _, c := range cases {
			want := f.where(c.keep)
			c.q.Limit = 100
			p := listClients(t, f.admin, c.q)
			if !slices.Equal(clientIDs(p.Rows), want) || p.Total != int64(len(want)) || p.TotalCapped {
				t.Errorf("%s: got %v (total %d), want %v", c.name, clientIDs(p.Rows), p.Total, want)
			}
			if p.Rows == nil {
				t.Errorf("%s: nil rows (a JSON list must be [])", c.name)
			}
			// The count of a first page that is not the last is the same (counters or counting).
			c.q.Limit = 2
			if p := listClients(t, f.admin, c.q); p.Total != int64(len(want)) || p.TotalCapped {
				t.Errorf("%s, 2 a page: total %d, want %d", c.name, p.Total, len(want))
			}
		}
		// The list rows are the clients as ClientView shows them.
		for _, r := range listClients(t, f.admin, store.ClientQuery{Limit: 100}).Rows {
			i := slices.IndexFunc(f.clients, func(v store.ClientView) bool { return v.ID == r.ID })
			if !reflect.DeepEqual(r, f.clients[i]) {
				t.Errorf("list row differs from ClientView:\n%+v\n%+v", r, f.clients[i])
			}
		}
	})
}

func TestListClientsSearch(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newClientFixture(t, db)
		contains := func(term string) func(c *store.ClientView) bool {
			return func(c *store.ClientView) bool {
				text := strings.ToLower(strings.Join([]string{c.CustomerName, c.CompanyName, c.CompanyEmail, c.CompanyDialCode + c.CompanyPhoneNumber}, " "))
				return strings.Contains(text, term)
			}
		}
		either := func(a, b func(c *store.ClientView) bool) func(c *store.ClientView) bool {
			return func(c *store.ClientView) bool { return a(c) || b(c) }
		}
		mid := f.clients[7]
		cases := []struct {
			term string
			keep func(c *store.ClientView) bool
		}{
			{"ANA SILVA", contains("ana silva")},
			{"harbor", contains("harbor")},
			{"Cobalt", contains("cobalt")},
			{"emile", either(contains("emile"), contains("émile"))}, // accents folded: "Émile" too
			{"émile", either(contains("emile"), contains("émile"))},
			{"client05@", contains("client05@")},
			{"blue.test", contains("blue.test")},
			{mid.CompanyPhoneNumber[3:], contains(mid.CompanyPhoneNumber[3:])},
			{"+91" + mid.CompanyPhoneNumber, contains("+91" + mid.CompanyPhoneNumber)},
			{"th & co", contains("th & co")},
			{"& co", func(*store.ClientView) bool { return false }}, // two letters: a prefix, of nothing
			{"zo", func(c *store.ClientView) bool { return strings.HasPrefix(strings.ToLower(c.CustomerName), "zo") }},
			{"cl", func(c *store.ClientView) bool { return strings.HasPrefix(c.CompanyEmail, "cl") }},
			{"#" + strconv.FormatInt(mid.ID, 10), func(c *store.ClientView) bool { return c.ID == mid.ID }},
			{strconv.FormatInt(mid.ID, 10), func(c *store.ClientView) bool { return c.ID == mid.ID }}, // short: the id, or a prefix
			{"100%", func(*store.ClientView) bool { return false }},
			{"nobody at all", func(*store.ClientView) bool { return false }},
		}
		for _, c := range cases {
			want := f.where(c.keep)
			p := listClients(t, f.admin, store.ClientQuery{Search: c.term, Limit: 100})
			if !slices.Equal(clientIDs(p.Rows), want) || p.Total != int64(len(want)) {
				t.Errorf("search %q: got %v (total %d), want %v", c.term, clientIDs(p.Rows), p.Total, want)
			}
			// Paged through by keyset, sorted by name: the same set.
			got := walkClients(t, f.admin, store.ClientQuery{Search: c.term, Sort: store.SortCustomer, Limit: 2})
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("search %q by name, 2 a page: %v, want %v", c.term, got, want)
			}
		}
		// A client's changed details are found under the new text, not the old.
		c := f.clients[3]
		if _, err := f.admin.UpdateClient(context.Background(), c.ID, store.ClientInput{Contact: store.Contact{CustomerName: "Quentin Blake",
			CompanyEmail: c.CompanyEmail, CompanyPhoneNumber: c.CompanyPhoneNumber,
		}}); err != nil {
			t.Fatal(err)
		}
		if got := clientIDs(listClients(t, f.admin, store.ClientQuery{Search: "quentin"}).Rows); !slices.Equal(got, []int64{c.ID}) {
			t.Errorf("renamed client: %v", got)
		}
		if p := listClients(t, f.admin, store.ClientQuery{Search: strings.ToLower(c.CustomerName)}); slices.Contains(clientIDs(p.Rows), c.ID) {
			t.Errorf("renamed client found under its old name")
		}
	})
}

func TestListClientsRefusesBadInput(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newClientFixture(t, db)
		byName := listClients(t, f.admin, store.ClientQuery{Sort: store.SortCustomer, Limit: 2}).Next
		for _, c := range []struct {
			q     store.ClientQuery
			field string
		}{
			{store.ClientQuery{Sort: "search_text"}, "sort"},
			{store.ClientQuery{Order: "sideways"}, "order"},
			{store.ClientQuery{After: "not a cursor"}, "after"},
			{store.ClientQuery{Before: "not a cursor"}, "before"},
			{store.ClientQuery{Sort: store.SortCustomer, After: byName, Before: byName}, "before"},
			{store.ClientQuery{Sort: store.SortCompany, After: byName}, "after"},                 // another sort's cursor
			{store.ClientQuery{Sort: store.SortCustomer, Order: "desc", After: byName}, "after"}, // the other direction's
			{store.ClientQuery{Search: strings.Repeat("x", 201)}, "search"},
		} {
			if _, err := f.admin.ListClients(context.Background(), c.q); !fieldError(err, c.field) {
				t.Errorf("%+v: got %v, want an error on %s", c.q, err, c.field)
			}
		}
	})
}

func TestListClientsOwnScopeAndTenants(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newClientFixture(t, db)
		mine := f.where(func(c *store.ClientView) bool {
			return c.OwnerID != nil && *c.OwnerID == f.ownID || c.CreatedBy != nil && *c.CreatedBy == f.ownID
		})
		if len(mine) == 0 || len(mine) == len(f.clients) {
			t.Fatalf("fixture: %d own clients of %d", len(mine), len(f.clients))
		}
		for _, q := range []store.ClientQuery{{}, {Limit: 2}, {Sort: store.SortCustomer}, {CreatedFrom: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)}} {
			var got []int64
			if q.Limit == 2 {
				got = walkClients(t, f.own, q)
			} else {
				q.Limit = 100
				got = clientIDs(listClients(t, f.own, q).Rows)
			}
			keep := func(id int64) bool {
				i := slices.IndexFunc(f.clients, func(c store.ClientView) bool { return c.ID == id })
				return f.clients[i].CreatedAt.Before(q.CreatedFrom) == false
			}
			want := slices.DeleteFunc(slices.Clone(mine), func(id int64) bool { return !keep(id) })
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("own scope %+v: %v, want %v", q, got, want)
			}
		}
		// The count from the counters follows the same rule.
		if p := listClients(t, f.own, store.ClientQuery{Limit: 2}); p.Total != int64(len(mine)) {
			t.Errorf("own scope total %d, want %d", p.Total, len(mine))
		}
		// Another tenant sees only its own three, whatever it searches.
		for _, term := range []string{"", "acme", "ana"} {
			p := listClients(t, f.other, store.ClientQuery{Search: term, Limit: 100})
			for _, r := range p.Rows {
				if slices.ContainsFunc(f.clients, func(c store.ClientView) bool { return c.ID == r.ID }) {
					t.Errorf("other tenant, search %q: sees client %d", term, r.ID)
				}
			}
			if term == "" && p.Total != 3 {
				t.Errorf("other tenant total %d", p.Total)
			}
		}
		// Filtering by a user of another tenant matches nothing.
		if p := listClients(t, f.other, store.ClientQuery{OwnerIDs: []int64{f.ownID}}); len(p.Rows) != 0 || p.Total != 0 {
			t.Errorf("another tenant's owner: %v", clientIDs(p.Rows))
		}
	})
}

func TestBulkClientOwnerAndDelete(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newClientFixture(t, db)
		notMine := f.where(func(c *store.ClientView) bool {
			return !(c.OwnerID != nil && *c.OwnerID == f.ownID || c.CreatedBy != nil && *c.CreatedBy == f.ownID)
		})
		mine := f.where(func(c *store.ClientView) bool { return c.CreatedBy != nil && *c.CreatedBy == f.ownID })
		// The admin gives three clients (one the rep has already) to the rep; another
		// tenant's id is skipped.
		otherClient := listClients(t, f.other, store.ClientQuery{}).Rows[0].ID
		ids := []int64{notMine[0], notMine[1], mine[0], otherClient}
		n, err := f.admin.BulkSetClientOwner(ctx, ids, f.ownID)
		if err != nil || n != 2 {
			t.Fatalf("bulk owner: %d %v", n, err)
		}
		for _, id := range ids[:3] {
			c, err := f.admin.ClientView(ctx, id)
			if err != nil || c.OwnerID == nil || *c.OwnerID != f.ownID {
				t.Errorf("client %d after the bulk change: %+v %v", id, c, err)
			}
		}
		h, err := f.admin.History(ctx, store.EntityClient, notMine[0], 5)
		ownerIn := func(s *string) float64 {
			var v struct {
				OwnerID float64 `json:"owner_id"`
			}
			if s != nil {
				_ = json.Unmarshal([]byte(*s), &v)
			}
			return v.OwnerID
		}
		if err != nil || len(h) < 2 || h[0].Action != "update" || h[0].ActorUserID == nil || *h[0].ActorUserID != f.admin.UserID ||
			ownerIn(h[0].Before) != float64(f.admin.UserID) || ownerIn(h[0].After) != float64(f.ownID) {
			t.Errorf("journey of the bulk change: %+v", h)
		}
		if got, _ := f.other.ClientView(ctx, otherClient); got.OwnerID != nil && *got.OwnerID == f.ownID {
			t.Error("another tenant's client changed")
		}
		// The rep now counts them as theirs: the counters moved with the owner.
		if p := listClients(t, f.own, store.ClientQuery{Limit: 1}); p.Total != int64(len(f.clients)-len(notMine)+2) {
			t.Errorf("rep's total after the change: %d", p.Total)
		}
		// An "own" user cannot give clients away, nor touch others'.
		if _, err := f.own.BulkSetClientOwner(ctx, mine, f.admin.UserID); !fieldError(err, "owner_id") {
			t.Errorf("own user giving clients away: %v", err)
		}
		if n, err := f.own.BulkSetClientOwner(ctx, notMine[2:4], f.ownID); err != nil || n != 0 {
			t.Errorf("own user taking others' clients: %d %v", n, err)
		}
		for _, c := range []struct {
			ids   []int64
			owner int64
			field string
		}{{nil, f.ownID, "ids"}, {make([]int64, store.MaxBulk+1), f.ownID, "ids"}, {mine, 0, "owner_id"}, {mine, 999999, "owner_id"}} {
			if _, err := f.admin.BulkSetClientOwner(ctx, c.ids, c.owner); !fieldError(err, c.field) {
				t.Errorf("bulk owner %v → %d: %v, want an error on %s", len(c.ids), c.owner, err, c.field)
			}
		}

		// Delete: the own user's reach only; each deletion in its journey.
		deleted, err := f.own.DeleteClients(ctx, []int64{mine[0], mine[1], notMine[3], otherClient})
		if err != nil || !slices.Equal(deleted, []int64{mine[0], mine[1]}) {
			t.Fatalf("own delete: %v %v", deleted, err)
		}
		for _, id := range deleted {
			if _, err := f.admin.ClientView(ctx, id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("deleted client %d: %v", id, err)
			}
			if h, _ := f.admin.History(ctx, store.EntityClient, id, 1); len(h) != 1 || h[0].Action != "delete" {
				t.Errorf("journey of deleted client %d: %+v", id, h)
			}
		}
		if _, err := f.admin.ClientView(ctx, notMine[3]); err != nil {
			t.Errorf("a client out of the rep's reach was deleted: %v", err)
		}
		if _, err := f.own.DeleteClients(ctx, []int64{notMine[3]}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("deleting only unreachable clients: %v", err)
		}
		if p := listClients(t, f.admin, store.ClientQuery{Limit: 1}); p.Total != int64(len(f.clients)-2) {
			t.Errorf("total after the deletion: %d", p.Total)
		}
		if p := listClients(t, f.admin, store.ClientQuery{Search: "client", Limit: 100}); slices.Contains(clientIDs(p.Rows), mine[0]) {
			t.Error("a deleted client is still found by the search")
		}
	})
}

// TestClientListPlansUseIndexes seeds 12,000 clients (past ClientCountCap) and reads the plan
// of every statement the list runs: none may scan the clients, and the plain pages may not
// sort. It checks the counts at that size too: exact from the counters, capped beyond.
func TestClientListPlansUseIndexes(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 12,000 clients on each engine")
	}
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tn, admin := newTenant(t, db, "Big", "boss@big.test")
		s := db.System(tn.ID, admin.ID)
		own, ownID := ownScope(t, db, s, "rep@big.test")
		const n = 12000
		base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		batch := make([]store.Client, 0, 1000)
		for i := range n {
			owner := admin.ID
			if i%100 == 0 {
				owner = ownID
			}
			c := store.Client{Contact: store.Contact{CustomerName: fmt.Sprintf("Bulk Person %05d", i), CompanyName: fmt.Sprintf("Company %03d", i%300),
				CompanyEmail: fmt.Sprintf("bulk%05d@x%d.test", i, i%7), CompanyDialCode: "+91", CompanyPhoneNumber: fmt.Sprintf("98%08d", i),
				OwnerID: &owner,
			}, CreatedBy: &admin.ID, CreatedAt: base.Add(time.Duration(i) * 37 * time.Minute)}
			c.UpdatedAt = c.CreatedAt
			c.SearchText = strings.ToLower(strings.Join([]string{c.CustomerName, c.CompanyName, c.CompanyEmail, c.CompanyDialCode + c.CompanyPhoneNumber, c.CompanyPhoneNumber}, " "))
			batch = append(batch, c)
			if len(batch) == cap(batch) {
				if _, err := s.Insert(&batch).Exec(ctx); err != nil {
					t.Fatal(err)
				}
				batch = batch[:0]
			}
		}
		// As autovacuum would: statistics, and (PostgreSQL) the rows moved from the GIN index's
		// pending list into the index proper.
		finish := []string{"ANALYZE"}
		if db.Dialect == store.Postgres {
			finish = []string{"ANALYZE clients, client_day_counts", "SELECT gin_clean_pending_list('clients_search_idx'::regclass)"}
		}
		if err := storetest.Owner(t, db).RunInTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			for _, stmt := range finish {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		yes, no := true, false
		// Counts: exact from the counters, capped by a filter, capped by a search.
		if p := listClients(t, s, store.ClientQuery{}); p.Total != n || p.TotalCapped {
			t.Errorf("unfiltered: %d capped %v", p.Total, p.TotalCapped)
		}
		if p := listClients(t, s, store.ClientQuery{CreatedFrom: base.AddDate(0, 0, 100)}); p.TotalCapped || p.Total != int64(n-100*24*60/37-1) {
			t.Errorf("from a day: %d capped %v", p.Total, p.TotalCapped)
		}
		if p := listClients(t, s, store.ClientQuery{Converted: &no}); p.Total != store.ClientCountCap || !p.TotalCapped {
			t.Errorf("not converted: %d capped %v, want %d capped", p.Total, p.TotalCapped, store.ClientCountCap)
		}
		if p := listClients(t, s, store.ClientQuery{Search: "bulk person"}); p.Total != store.SearchCountCap || !p.TotalCapped || len(p.Rows) != 20 || p.Next == "" {
			t.Errorf("common search: %d capped %v, %d rows", p.Total, p.TotalCapped, len(p.Rows))
		}
		if p := listClients(t, own, store.ClientQuery{}); p.Total != n/100 || p.TotalCapped {
			t.Errorf("own scope: %d capped %v", p.Total, p.TotalCapped)
		}
		deep := func(q store.ClientQuery) store.ClientQuery {
			q.Limit = 100
			for range 3 {
				q.After = listClients(t, s, q).Next
			}
			q.Limit = 20
			return q
		}
		back := func(q store.ClientQuery) store.ClientQuery {
			q = deep(q)
			q.Before, q.After = listClients(t, s, q).Prev, ""
			return q
		}
		cases := []struct {
			name   string
			q      store.ClientQuery
			sorted bool
		}{
			{"page 1", store.ClientQuery{}, true},
			{"page 3 by offset", store.ClientQuery{Page: 3}, true},
			{"keyset, recent", deep(store.ClientQuery{}), true},
			{"keyset back, recent", back(store.ClientQuery{}), true},
			{"keyset, oldest", deep(store.ClientQuery{Order: "asc"}), true},
			{"keyset, customer", deep(store.ClientQuery{Sort: store.SortCustomer}), true},
			{"keyset back, company desc", back(store.ClientQuery{Sort: store.SortCompany, Order: "desc"}), true},
			{"keyset, created desc", deep(store.ClientQuery{Sort: store.SortCreated, Order: "desc"}), true},
			{"owner filter", store.ClientQuery{OwnerIDs: []int64{ownID}}, false},
			{"converted", store.ClientQuery{Converted: &yes}, false},
			{"last month", store.ClientQuery{CreatedFrom: base.AddDate(0, 10, 0)}, false},
			{"search", store.ClientQuery{Search: "bulk00042"}, false},
			{"search, common word", store.ClientQuery{Search: "bulk person"}, false},
			{"search, short", store.ClientQuery{Search: "pe"}, false},
			{"search by id", store.ClientQuery{Search: "42"}, false},
		}
		fullClientScan := regexp.MustCompile(`(?m)^\s*(SCAN (c|clients)\b.*|.*Seq Scan on clients\b.*)$`)
		for _, c := range cases {
			for who, sc := range map[string]store.Scope{"admin": s, "own": own} {
				plans, err := sc.ExplainListClients(ctx, c.q)
				if err != nil {
					t.Fatalf("%s (%s): %v", c.name, who, err)
				}
				if len(plans) < 2 {
					t.Fatalf("%s (%s): %d statements explained", c.name, who, len(plans))
				}
				if db.Dialect == store.Postgres && c.q.Search == "bulk person" && who == "admin" {
					// A common word: counted by the probe, not through the trigram index
					// (SQLite collects a client search's matches through clients_fts).
					checkSearchProbe(t, c.name, db.Dialect, "clients", plans)
				}
				for _, plan := range plans {
					if m := fullClientScan.FindString(plan); m != "" {
						t.Errorf("%s (%s): full scan %q in\n%s", c.name, who, strings.TrimSpace(m), plan)
					}
					if m := sorting.FindString(plan); c.sorted && who == "admin" && m != "" {
						t.Errorf("%s (%s): sort %q in\n%s", c.name, who, strings.TrimSpace(m), plan)
					}
				}
			}
		}
	})
}
