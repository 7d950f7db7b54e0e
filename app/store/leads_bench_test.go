package store_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"crm/app/store"
	"crm/app/store/storetest"
)

// BenchmarkListLeads times ListLeads — every statement of a page: ids, names, count, won
// and lost — over a tenant of CRM_BENCH_LEADS generated leads (20,000 unless set) beside a
// tenant a tenth its size, on SQLite and, with TEST_DATABASE_URL, on PostgreSQL:
//
//	CRM_BENCH_LEADS=200000 go test ./app/store -run '^$' -bench ListLeads -benchtime 200x
//
// The load test against the running server is `just bench` (cmd/crmbench).
func BenchmarkListLeads(b *testing.B) {
	n := 20000
	if v, err := strconv.Atoi(os.Getenv("CRM_BENCH_LEADS")); err == nil && v > 0 {
		n = v
	}
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			ctx := context.Background()
			db := storetest.Open(b, d)
			tenant := func(name string, leads int) (store.Scope, *store.User) {
				tn, admin, err := db.CreateTenant(ctx, store.NewTenant{DefaultLocale: "en_US", Name: name, AdminEmail: "boss@" + name + ".test", AdminPassword: "Secret1!x"})
				if err != nil {
					b.Fatal(err)
				}
				s := db.System(tn.ID, admin.ID)
				sales, err := s.CreateUser(ctx, store.NewUser{Email: "sales@" + name + ".test", Password: "Secret1!x", Role: store.RoleSales})
				if err != nil {
					b.Fatal(err)
				}
				if err := s.SeedLeads(ctx, leads, nil); err != nil {
					b.Fatal(err)
				}
				return s, sales
			}
			tenant("other", max(n/10, 1))
			s, sales := tenant("big", n)
			perms, err := s.Permissions(ctx, sales.RoleID)
			if err != nil {
				b.Fatal(err)
			}
			own := db.System(s.TenantID, sales.ID).WithPermissions(perms)
			list := func(s store.Scope, q store.LeadQuery) *store.LeadPage {
				p, err := s.ListLeads(ctx, q)
				if err != nil {
					b.Fatal(err)
				}
				return p
			}
			// A cursor halfway down a sort: the Next of an offset page there.
			middle := func(q store.LeadQuery) store.LeadQuery {
				q.Limit, q.Page = store.MaxLeadLimit, n/2/store.MaxLeadLimit
				q.After, q.Page, q.Limit = list(s, q).Next, 0, 20
				return q
			}
			first := list(s, store.LeadQuery{})
			email := first.Rows[3].CompanyEmail
			stages, _ := s.Masters(ctx, store.KindStage)
			statuses, _ := s.Masters(ctx, store.KindStatus)
			cases := []struct {
				name string
				s    store.Scope
				q    store.LeadQuery
			}{
				{"page1", s, store.LeadQuery{}},
				{"page1-own", own, store.LeadQuery{}},
				{"page1-100", s, store.LeadQuery{Limit: 100}},
				{"keyset-middle-recent", s, middle(store.LeadQuery{})},
				{"keyset-middle-name", s, middle(store.LeadQuery{Sort: store.SortCustomer})},
				{"keyset-middle-stage", s, middle(store.LeadQuery{Sort: store.SortStage})},
				{"filter-stage-status", s, store.LeadQuery{StageIDs: []int64{stages[1].ID}, StatusIDs: []int64{statuses[0].ID, statuses[2].ID}}},
				{"search-selective", s, store.LeadQuery{Search: email[:strings.IndexByte(email, '@')]}},
				{"search-name", s, store.LeadQuery{Search: "giulia rossi"}},
				{"search-short", s, store.LeadQuery{Search: "jo"}},
				{"search-own", own, store.LeadQuery{Search: "sharma"}},
			}
			for _, c := range cases {
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						list(c.s, c.q)
					}
				})
			}
		})
	}
}
