package exports_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
)

// listIDs walks the lead list for q page by page, as the list page would show it.
func listIDs(t *testing.T, s store.Scope, q store.LeadQuery) []int64 {
	t.Helper()
	var out []int64
	q.Limit = 7
	for {
		page, err := s.ListLeads(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range page.Rows {
			out = append(out, l.ID)
		}
		if page.Next == "" {
			return out
		}
		q.After = page.Next
	}
}

func sameIDs(a, b []int64) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

func TestLeadExportMatchesFiltersAndScope(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		f := e.Tenant("Acme")
		rep := e.User(f, "rep@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeOwn, Create: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn}})
		admin := e.DB.System(f.Tenant.ID, f.Admin.ID)
		stages := []int64{apptest.MasterID(t, e, f, store.KindStage, "Leads"), apptest.MasterID(t, e, f, store.KindStage, "Deals"), apptest.MasterID(t, e, f, store.KindStage, "Won")}
		for i := range 230 {
			in := store.LeadInput{Contact: store.Contact{CustomerName: fmt.Sprintf("Lead %03d", i), CompanyName: fmt.Sprintf("Co %d", i%7),
				CompanyEmail: fmt.Sprintf("lead%d@x.test", i),
			}, LeadStageID: &stages[i%3]}
			if i%10 == 0 {
				in.OwnerID = &rep.ID
			}
			if _, _, err := admin.CreateLead(ctx, in, "", ""); err != nil {
				t.Fatal(err)
			}
		}
		repScope := e.DB.System(f.Tenant.ID, rep.ID)
		hot := apptest.MasterID(t, e, f, store.KindType, "Hot")
		special, _, err := repScope.CreateLead(ctx, store.LeadInput{Contact: store.Contact{CustomerTitle: "Ms.", CustomerName: "Zed, \"the\" Rep", CompanyName: "Rep Co",
			CompanyEmail: "zed@x.test", CompanyDialCode: "+91", CompanyPhoneNumber: "9876543210",
			BillingAddress:  &store.Address{FlatNo: "12", Street: "Main St", City: "Chennai", State: "Tamil Nadu", Zip: "600001", Country: "India"},
			ShippingAddress: &store.Address{City: "Pune"}, Notes: "=HYPERLINK(\"http://evil.test\")\nline two",
		}, LeadTypeID: &hot}, "", "")
		if err != nil {
			t.Fatal(err)
		}
		other := e.Tenant("Globex")
		if _, _, err := e.DB.System(other.Tenant.ID, other.Admin.ID).CreateLead(ctx, store.LeadInput{Contact: store.Contact{CustomerName: "Other", CompanyEmail: "other@x.test"}}, "", ""); err != nil {
			t.Fatal(err)
		}

		b := e.Browser(f.Admin.Email)
		recs := apptest.ExportCSV(t, b, "/leads/export.csv", ',')
		want := []string{"ID", "Customer title", "Customer name", "Company", "Email", "Dial code", "Phone", "Company type", "Type",
			"Source", "Status", "Stage", "Owner", "Created by", "Created at", "Billing flat/door no", "Billing street", "Billing city",
			"Billing state", "Billing zip", "Billing country", "Shipping flat/door no", "Shipping street", "Shipping city",
			"Shipping state", "Shipping zip", "Shipping country", "Notes"}
		if strings.Join(recs[0], "|") != strings.Join(want, "|") {
			t.Fatalf("header: %q", recs[0])
		}
		// Everything of the tenant, newest first, through the pages of the list.
		all := listIDs(t, admin, store.LeadQuery{})
		if got := apptest.ExportIDs(t, recs); len(got) != 231 || !sameIDs(got, all) {
			t.Fatalf("all leads: %d exported, want %d in list order", len(got), len(all))
		}
		first := recs[1]
		created := special.CreatedAt.UTC().Format("2006-01-02 15:04:05")
		wantFirst := []string{strconv.FormatInt(special.ID, 10), "Ms.", `Zed, "the" Rep`, "Rep Co", "zed@x.test", "+91", "9876543210",
			"", "Hot", "Website", "New lead", "Leads", rep.Name, rep.Name, created, "12", "Main St", "Chennai", "Tamil Nadu", "600001",
			"India", "", "", "Pune", "", "", "", "'=HYPERLINK(\"http://evil.test\")\nline two"}
		if strings.Join(first, "|") != strings.Join(wantFirst, "|") {
			t.Fatalf("first row:\n%q\nwant\n%q", first, wantFirst)
		}

		// The list's filters, search and sort: the same leads in the same order.
		for _, tc := range []struct {
			query string
			q     store.LeadQuery
		}{
			{"stage_id=" + strconv.FormatInt(stages[1], 10), store.LeadQuery{StageIDs: []int64{stages[1]}}},
			{"search=lead+1&sort=customer_name&order=desc", store.LeadQuery{Search: "lead 1", Sort: "customer_name", Order: "desc"}},
			{fmt.Sprintf("stage_id=[%d,%d]&owner_id=%d&sort=stage", stages[0], stages[2], rep.ID),
				store.LeadQuery{StageIDs: []int64{stages[0], stages[2]}, OwnerIDs: []int64{rep.ID}, Sort: "stage"}},
			{"type_id=" + strconv.FormatInt(hot, 10), store.LeadQuery{TypeIDs: []int64{hot}}},
			{"from=" + time.Now().UTC().AddDate(0, 0, 1).Format("2006-01-02"), store.LeadQuery{CreatedFrom: time.Now().UTC().AddDate(0, 0, 1)}},
			{"search=co+3&limit=20&after=junk", store.LeadQuery{Search: "co 3"}},
		} {
			got := apptest.ExportIDs(t, apptest.ExportCSV(t, b, "/leads/export.csv?"+tc.query, ','))
			if tc.q.CreatedFrom.IsZero() {
				if wantIDs := listIDs(t, admin, tc.q); !sameIDs(got, wantIDs) || len(got) == 0 {
					t.Errorf("%s: exported %v, want %v", tc.query, got, wantIDs)
				}
			} else if len(got) != 0 {
				t.Errorf("%s: %d leads created tomorrow", tc.query, len(got))
			}
		}
		// The API path is the same export; a semicolon on request.
		api := e.APIClient(f.Admin.Email)
		apiRecs := apptest.ExportCSV(t, api, "/v1/api/lead/export-customer-lead?stage_id="+strconv.FormatInt(stages[2], 10)+"&delimiter=semicolon", ';')
		if got := apptest.ExportIDs(t, apiRecs); !sameIDs(got, listIDs(t, admin, store.LeadQuery{StageIDs: []int64{stages[2]}})) {
			t.Errorf("API export: %v", got)
		}
		if r := api.Get("/v1/api/lead/export-customer-lead?stage_id=abc"); r.Status != 422 || r.Env().Errors["stage_id"] != "invalid" {
			t.Errorf("bad filter: %d %s", r.Status, r.Body)
		}
		// Gzip when the client takes it.
		r := api.Get("/v1/api/lead/export-customer-lead", "Accept-Encoding", "gzip")
		if r.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("not compressed: %v", r.Header)
		}
		zr, err := gzip.NewReader(bytes.NewReader([]byte(r.Body)))
		if err != nil {
			t.Fatal(err)
		}
		if plain, _ := io.ReadAll(zr); !bytes.HasPrefix(plain, []byte(apptest.BOM+"ID,")) || bytes.Count(plain, []byte("@x.test")) != 231 {
			t.Errorf("gzip body: %.60q", plain)
		}

		// A user limited to their own leads exports only those (owned or created).
		repRecs := apptest.ExportCSV(t, e.APIClient(rep.Email), "/v1/api/lead/export-customer-lead", ',')
		if got := apptest.ExportIDs(t, repRecs); len(got) != 24 || !sameIDs(got, listIDs(t, repScope.WithPermissions(auth.Permissions{
			auth.FeatureLeads: {View: auth.ScopeOwn, Export: auth.ScopeOwn}}), store.LeadQuery{})) {
			t.Errorf("own leads: %d exported", len(got))
		}
		// Without view permission: 403.
		blind := e.User(f, "blind@acme.test", map[auth.Feature]auth.Grant{auth.FeatureClients: {View: auth.ScopeAll, Export: auth.ScopeAll}})
		if r := e.APIClient(blind.Email).Get("/v1/api/lead/export-customer-lead"); r.Status != 403 {
			t.Errorf("without permission: %d", r.Status)
		}
		if r := e.Browser(blind.Email).Get("/leads/export.csv"); r.Status != 403 {
			t.Errorf("page without permission: %d", r.Status)
		}
	})
}

func TestClientExportMatchesSearchAndScope(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		f := e.Tenant("Acme")
		rep := e.User(f, "rep@acme.test", map[auth.Feature]auth.Grant{auth.FeatureClients: {View: auth.ScopeOwn, Create: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn}})
		admin := e.DB.System(f.Tenant.ID, f.Admin.ID)
		partnership := apptest.MasterID(t, e, f, store.KindBusinessType, "Partnership")
		for i := range 130 {
			in := store.ClientInput{Contact: store.Contact{CustomerName: fmt.Sprintf("Client %03d", i), CompanyEmail: fmt.Sprintf("c%d@x.test", i)}}
			if i%2 == 0 {
				in.CompanyTypeID = &partnership
			}
			if _, err := admin.CreateClient(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
		mine, err := e.DB.System(f.Tenant.ID, rep.ID).CreateClient(ctx, store.ClientInput{Contact: store.Contact{CustomerName: "Rep's Client",
			CompanyEmail: "mine@x.test", ShippingAddress: &store.Address{Country: "India"},
		}})
		if err != nil {
			t.Fatal(err)
		}
		b := e.Browser(f.Admin.Email)
		recs := apptest.ExportCSV(t, b, "/clients/export.csv", ',')
		if strings.Join(recs[0], "|") != "ID|Customer title|Customer name|Company|Email|Dial code|Phone|Company type|Owner|Created by|Created at|"+
			"Billing flat/door no|Billing street|Billing city|Billing state|Billing zip|Billing country|Shipping flat/door no|"+
			"Shipping street|Shipping city|Shipping state|Shipping zip|Shipping country|Notes" {
			t.Fatalf("header: %q", recs[0])
		}
		ids := apptest.ExportIDs(t, recs)
		if len(ids) != 131 || ids[0] != mine.ID {
			t.Fatalf("all clients: %d, first %v", len(ids), ids[:1])
		}
		seen := map[int64]bool{}
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("client %d exported twice", id)
			}
			seen[id] = true
		}
		if recs[1][8] != rep.Name || recs[1][22] != "India" || recs[len(recs)-1][7] != "Partnership" {
			t.Errorf("rows: %q … %q", recs[1], recs[len(recs)-1])
		}
		got := apptest.ExportIDs(t, apptest.ExportCSV(t, e.APIClient(f.Admin.Email), "/v1/api/client/export-customer-client?search=client+01&sort=name", ','))
		if len(got) != 10 {
			t.Errorf("search: %d clients", len(got))
		}
		own := apptest.ExportIDs(t, apptest.ExportCSV(t, e.APIClient(rep.Email), "/v1/api/client/export-customer-client", ','))
		if len(own) != 1 || own[0] != mine.ID {
			t.Errorf("own clients: %v", own)
		}
		blind := e.User(f, "blind@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll, Export: auth.ScopeAll}})
		if r := e.APIClient(blind.Email).Get("/v1/api/client/export-customer-client"); r.Status != 403 {
			t.Errorf("without permission: %d", r.Status)
		}
		other := e.APIClient(e.Tenant("Globex").Admin.Email)
		if recs := apptest.ExportCSV(t, other, "/v1/api/client/export-customer-client", ','); len(recs) != 1 {
			t.Errorf("another tenant sees %d clients", len(recs)-1)
		}
	})
}

// TestExportThroughput exports every seeded lead, whole, in each order and for a search,
// and times it: 500 leads by default, EXPORT_ROWS (e.g. 100000) of them to measure on each
// engine (TEST_DATABASE_URL for PostgreSQL; the figures go to docs/PERFORMANCE.md).
func TestExportThroughput(t *testing.T) {
	t.Parallel()
	n, _ := strconv.Atoi(os.Getenv("EXPORT_ROWS"))
	if n <= 0 {
		n = 500
	}
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Bench")
		if err := e.DB.System(f.Tenant.ID, f.Admin.ID).SeedLeads(context.Background(), n, nil); err != nil {
			t.Fatal(err)
		}
		c := e.APIClient(f.Admin.Email)
		for _, q := range []string{"", "?sort=customer_name", "?search=an"} {
			start := time.Now()
			r := c.Get("/v1/api/lead/export-customer-lead"+q, "Accept-Encoding", "gzip")
			took := time.Since(start)
			if r.Status != http.StatusOK || r.Header.Get("Content-Encoding") != "gzip" {
				t.Fatalf("export%s: %d %q", q, r.Status, r.Header.Get("Content-Encoding"))
			}
			zr, err := gzip.NewReader(strings.NewReader(r.Body))
			if err != nil {
				t.Fatal(err)
			}
			plain, err := io.ReadAll(zr)
			if err != nil {
				t.Fatalf("export%s: a broken gzip stream: %v", q, err)
			}
			rows := bytes.Count(plain, []byte("\n")) - 1 // the header line
			switch {
			case q == "?search=an" && (rows < 1 || rows > n):
				t.Fatalf("export%s: %d rows of %d leads", q, rows, n)
			case q != "?search=an" && rows != n:
				t.Fatalf("export%s: %d rows, want every one of the %d leads", q, rows, n)
			}
			t.Logf("%s export%s: %d rows in %s (%.0f rows/s), %d bytes gzip, %d bytes CSV",
				e.DB.Dialect, q, rows, took.Round(time.Millisecond), float64(rows)/took.Seconds(), len(r.Body), len(plain))
		}
	})
}
