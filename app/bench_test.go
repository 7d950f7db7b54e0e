package app_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"testing"
	"time"

	"crm/app"
	"crm/app/assets"
	"crm/app/files"
	"crm/app/i18n"
	"crm/app/importer"
	"crm/app/leads"
	"crm/app/store"
	"crm/app/store/storetest"
	"crm/locales"
	"crm/static"
)

// BenchmarkRequestCost is the cost of a request outside its SQL (issue 13): list page 1,
// a lead view (the same lead every time) and views of many leads, served by the real router
// (bearer token, 20,000 seeded leads) next to the same store call alone. Each router run reports its statements per request and the
// SQL time inside it (Server-Timing), so ns/op of "router" against "store" is the app's
// share. "router-nocache" reads the caller and the token on every request, as before the
// caller cache. On PostgreSQL with TEST_DATABASE_URL.
//
//	go test ./app -run '^$' -bench RequestCost -benchtime 2000x
func BenchmarkRequestCost(b *testing.B) {
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) { benchRequestCost(b, d) })
	}
}

var timingRE = regexp.MustCompile(`db;dur=([0-9.]+);desc="([0-9]+) statements`)

func benchRequestCost(b *testing.B, d store.Dialect) {
	ctx := context.Background()
	db := storetest.Open(b, d)
	tn, admin, err := db.CreateTenant(ctx, store.NewTenant{Name: "Bench", DefaultLocale: "en_US",
		AdminEmail: "bench-admin@example.test", AdminPassword: "Secret1!x"})
	if err != nil {
		b.Fatal(err)
	}
	if err := db.System(tn.ID, admin.ID).SeedLeads(ctx, 20000, nil); err != nil {
		b.Fatal(err)
	}
	token, err := db.System(tn.ID, admin.ID).CreateToken(ctx, admin.ID)
	if err != nil {
		b.Fatal(err)
	}
	bundle, err := i18n.Load(locales.FS)
	if err != nil {
		b.Fatal(err)
	}
	as, err := assets.Load(static.FS)
	if err != nil {
		b.Fatal(err)
	}
	fs, err := files.NewLocal(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	imports := importer.NewRunner(db, log, 0)
	b.Cleanup(imports.Close)
	cfg := app.DefaultConfig()
	cfg.ServerTiming = true
	h := app.NewServer(app.Deps{Config: cfg, DB: db, I18n: bundle, Assets: as, Files: fs, Log: log, Imports: imports})

	_, _, perms, err := db.Caller(ctx, tn.ID, admin.ID)
	if err != nil {
		b.Fatal(err)
	}
	scope := db.Tenant(tn.ID, admin.ID).WithPermissions(perms)
	q, _, errs := leads.Query(url.Values{"page": {"1"}, "limit": {"20"}})
	if errs.Err() != nil {
		b.Fatal(errs.Err())
	}
	q.Page = 1
	page, err := scope.ListLeads(ctx, q)
	if err != nil || len(page.Rows) == 0 {
		b.Fatalf("list: %v", err)
	}
	leadID := page.Rows[len(page.Rows)/2].ID

	// "view-many" reads a different lead each time (a prime stride through the tenant's
	// ids), as a user's views do: a statement whose text carried the id would be new text
	// for every request, planned or compiled anew.
	var ids []int64
	p := q
	for p.Limit = 100; len(ids) < 2000; {
		page, err := scope.ListLeads(ctx, p)
		if err != nil || len(page.Rows) == 0 {
			b.Fatalf("ids: %v", err)
		}
		for _, l := range page.Rows {
			ids = append(ids, l.ID)
		}
		p.Page++
	}
	many := func(i int) int64 { return ids[(i*997)%len(ids)] }
	routes := []struct {
		name  string
		path  func(i int) string
		store func(ctx context.Context, i int) error
	}{
		{"list", func(int) string { return "/v1/api/lead/list-customer-lead?page=1&limit=20" }, func(ctx context.Context, _ int) error {
			_, err := scope.ListLeads(ctx, q)
			return err
		}},
		{"view", func(int) string { return fmt.Sprintf("/v1/api/lead/view-customer-lead/%d", leadID) }, func(ctx context.Context, _ int) error {
			_, err := scope.LeadView(ctx, leadID)
			return err
		}},
		{"view-many", func(i int) string { return fmt.Sprintf("/v1/api/lead/view-customer-lead/%d", many(i)) }, func(ctx context.Context, i int) error {
			_, err := scope.LeadView(ctx, many(i))
			return err
		}},
	}
	for _, rt := range routes {
		b.Run(rt.name+"/store", func(b *testing.B) {
			var statements int64
			for i := 0; b.Loop(); i++ {
				ctx, st := store.WithQueryStats(ctx)
				if err := rt.store(ctx, i); err != nil {
					b.Fatal(err)
				}
				statements += st.Statements()
			}
			b.ReportMetric(float64(statements)/float64(b.N), "statements/op")
		})
		for _, cached := range []bool{false, true} {
			name := rt.name + "/router"
			if !cached {
				name += "-nocache"
			}
			b.Run(name, func(b *testing.B) {
				if !cached {
					ttl := store.SetCallerCacheTTL(0)
					b.Cleanup(func() { store.SetCallerCacheTTL(ttl) })
				}
				var statements int64
				var sql time.Duration
				for i := 0; b.Loop(); i++ {
					req := httptest.NewRequest(http.MethodGet, rt.path(i), nil)
					req.Header.Set("Authorization", "Bearer "+token)
					req.Header.Set("Accept-Encoding", "gzip")
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						b.Fatalf("%s: %d %s", rt.path(i), rec.Code, rec.Body)
					}
					m := timingRE.FindStringSubmatch(rec.Header().Get("Server-Timing"))
					if m == nil {
						b.Fatalf("no Server-Timing: %v", rec.Header())
					}
					n, _ := strconv.ParseInt(m[2], 10, 64)
					ms, _ := strconv.ParseFloat(m[1], 64)
					statements += n
					sql += time.Duration(ms * float64(time.Millisecond))
				}
				b.ReportMetric(float64(statements)/float64(b.N), "statements/op")
				b.ReportMetric(float64(sql.Nanoseconds())/float64(b.N), "sql-ns/op")
			})
		}
	}
}
