package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// Storage per lead (migration 20261124900000_storage): addresses are stored as arrays of
// their parts, rows written before as objects are still read, and the records read back
// are the ones written.
func TestAddressesStoredCompact(t *testing.T) {
	eachImportDB(t, func(t *testing.T, db *DB, s Scope, admin, rep *User) {
		ctx := context.Background()
		bill := &Address{FlatNo: "12B", Street: `7 "Quoted" Road, Dvořák`, City: "Brno", State: "South Moravia", Zip: "60200", Country: "Czechia"}
		ship := &Address{Country: "India"}
		v, _, err := s.CreateLead(ctx, LeadInput{Contact: Contact{CustomerName: "Ana Novák", CompanyEmail: "ana@x.test",
			CompanyDialCode: "+420", CompanyPhoneNumber: "6012345678", BillingAddress: bill, ShippingAddress: ship}}, "", "")
		if err != nil {
			t.Fatal(err)
		}
		var col struct {
			Billing  string `bun:"billing"`
			Shipping string `bun:"shipping"`
			Text     string `bun:"search_text"`
		}
		read := func() {
			t.Helper()
			err := s.Select((*Lead)(nil)).ColumnExpr("CAST(l.billing_address AS TEXT) AS billing, CAST(l.shipping_address AS TEXT) AS shipping, l.search_text").
				Where("l.id = ?", v.ID).Scan(ctx, &col)
			if err != nil {
				t.Fatal(err)
			}
		}
		read()
		for _, js := range []string{col.Billing, col.Shipping} {
			if !strings.HasPrefix(js, addressSep) || strings.Count(js, addressSep) != 6 {
				t.Errorf("address stored as %q, want its six parts, each after a separator", js)
			}
		}
		// The phone number once, with its dial code.
		if want := "ana novak  ana@x.test +4206012345678"; col.Text != want {
			t.Errorf("search_text = %q, want %q", col.Text, want)
		}
		got, err := s.LeadView(ctx, v.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.BillingAddress, bill) || !reflect.DeepEqual(got.ShippingAddress, ship) {
			t.Errorf("read back %+v / %+v, want %+v / %+v", got.BillingAddress, got.ShippingAddress, bill, ship)
		}

		// A row written before the migration: objects, read as they always were.
		if _, err := s.Update((*Lead)(nil)).Set(`billing_address = '{"flatNo":"9","city":"Pune","zip":"411001"}'`).
			Set("shipping_address = NULL").Where("id = ?", v.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		got, err = s.LeadView(ctx, v.ID)
		if err != nil {
			t.Fatal(err)
		}
		if want := (&Address{FlatNo: "9", City: "Pune", Zip: "411001"}); !reflect.DeepEqual(got.BillingAddress, want) || got.ShippingAddress != nil {
			t.Errorf("old row read as %+v / %+v, want %+v / nil", got.BillingAddress, got.ShippingAddress, want)
		}

		// An edit writes the compact form again; a client too.
		in := LeadInput{Contact: got.Contact}
		in.ShippingAddress = &Address{City: "Mumbai"}
		if _, err := s.UpdateLead(ctx, v.ID, in); err != nil {
			t.Fatal(err)
		}
		read()
		if !strings.HasPrefix(col.Billing, addressSep) || !strings.HasPrefix(col.Shipping, addressSep) {
			t.Errorf("after an edit: %q / %q, want separated parts", col.Billing, col.Shipping)
		}
		c, err := s.CreateClient(ctx, ClientInput{Contact: Contact{CustomerName: "Client", CompanyEmail: "c@x.test", BillingAddress: bill}})
		if err != nil {
			t.Fatal(err)
		}
		var js string
		if err := s.Select((*Client)(nil)).ColumnExpr("CAST(c.billing_address AS TEXT)").Where("c.id = ?", c.ID).Scan(ctx, &js); err != nil {
			t.Fatal(err)
		}
		cv, err := s.ClientView(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(js, addressSep) || !reflect.DeepEqual(cv.BillingAddress, bill) {
			t.Errorf("client address stored %s, read %+v", js, cv.BillingAddress)
		}
	})
}

func TestAddressScanRefusesOtherJSON(t *testing.T) {
	var a Address
	for _, src := range []any{42, `"x"`, `[1,2]`} {
		if err := a.Scan(src); err == nil {
			t.Errorf("Scan(%v) accepted", src)
		}
	}
	if err := a.Scan(`["1","2"]`); err != nil || a != (Address{FlatNo: "1", Street: "2"}) {
		t.Errorf("a short array: %+v, %v", a, err)
	}
	for _, src := range []string{"\x1f1\x1f2", "\x1f1\x1f2\x1f3\x1f4\x1f5\x1f6\x1f7"} {
		if err := a.Scan(src); err == nil {
			t.Errorf("%d separated parts accepted: %+v", strings.Count(src, "\x1f"), a)
		}
	}
	if err := a.Scan("\x1f1\x1f2\x1f3\x1f4\x1f5\x1f"); err != nil || a != (Address{FlatNo: "1", Street: "2", City: "3", State: "4", Zip: "5"}) {
		t.Errorf("six parts, the last empty: %+v, %v", a, err)
	}
	// A part holding the separator: stored as a JSON array, read back whole.
	odd := Address{FlatNo: "a\x1fb", City: "Pune"}
	v, _ := odd.Value()
	if js, _ := v.(string); !strings.HasPrefix(js, "[") {
		t.Errorf("a part with a separator stored as %q", js)
	}
	if err := a.Scan(v); err != nil || a != odd {
		t.Errorf("read back %+v, %v; want %+v", a, err, odd)
	}
	// Separated parts, empty ones too.
	full := Address{Street: "MG Road", City: "Pune", Country: "India"}
	v, _ = full.Value()
	if err := a.Scan([]byte(v.(string))); err != nil || a != full || v != "\x1f\x1fMG Road\x1fPune\x1f\x1f\x1fIndia" {
		t.Errorf("%q read back %+v, %v", v, a, err)
	}
}

// The one email index serves the equality lookups (duplicate warnings, an import's match
// by email) as well as the sort: on PostgreSQL the column has the "C" collation, so an
// equality can use leads_email_c_idx. Sequential scans are disabled, so a plan that cannot
// use the index shows a Seq Scan.
func TestEmailLookupsUseTheSortIndex(t *testing.T) {
	eachImportDB(t, func(t *testing.T, db *DB, s Scope, admin, rep *User) {
		if db.Dialect != Postgres {
			return
		}
		ctx := context.Background()
		// Some leads and their statistics: on an empty table every index of (tenant_id, …)
		// costs the same, and the planner may take the smallest, say (tenant_id, created_by).
		if err := s.SeedLeads(ctx, 500, nil); err != nil {
			t.Fatal(err)
		}
		analyzeAsOwner(t, s, "leads")
		plan := func(q string) string { return explainWithoutSeqScan(t, s, q) }
		for q, index := range map[string]string{
			"SELECT id FROM leads l WHERE l.tenant_id = 1 AND l.company_email = 'a@x.test'":                                              "leads_email_c_idx",
			"SELECT id FROM leads l WHERE l.tenant_id = 1 AND l.company_email IN ('a@x.test', 'b@x.test')":                               "leads_email_c_idx",
			"SELECT id FROM clients c WHERE c.tenant_id = 1 AND c.company_email IN ('a@x.test', 'b@x.test')":                             "clients_email_c_idx",
			"SELECT id FROM leads l WHERE l.tenant_id = 1 AND l.client_id = 'k1'":                                                        "leads_client_id_key",
			"SELECT id FROM leads l WHERE l.tenant_id = 1 AND l.company_email = 'a@x.test' ORDER BY l.company_email COLLATE \"C\", l.id": "leads_email_c_idx",
		} {
			if p := plan(q); !strings.Contains(p, index) || strings.Contains(p, "Seq Scan") {
				t.Errorf("%s:\n%s\nwant %s", q, p, index)
			}
		}
	})
}

// explainWithoutSeqScan is the plan of q with sequential scans disabled, so a plan that
// cannot use an index shows a Seq Scan.
func explainWithoutSeqScan(t *testing.T, s Scope, q string) string {
	t.Helper()
	ctx := context.Background()
	var lines []string
	err := s.Tx(ctx, func(tx Scope) error {
		if _, err := tx.idb.ExecContext(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
			return err
		}
		rows, err := tx.idb.QueryContext(ctx, "EXPLAIN "+q)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var l string
			if err := rows.Scan(&l); err != nil {
				return err
			}
			lines = append(lines, l)
		}
		return errors.Join(rows.Err(), errRollback)
	})
	if !errors.Is(err, errRollback) {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// Third round (migration 20261126200000_group_indexes_packed): the stage, status and owner
// indexes are (X, id) without the tenant, which inserts pack; a tenant's leads without one
// of them come from leads_unset_idx, bounded by the tenant, not from a range of NULLs that
// every tenant shares. Each query the list, the "own records" scope and the users admin
// ask of them reads its index for a rare value (TestLeadListPlansUseIndexes has the list's
// common values, read in index order without a sort).
func TestGroupIndexesServeTheirQueries(t *testing.T) {
	eachImportDB(t, func(t *testing.T, db *DB, s Scope, admin, rep *User) {
		if db.Dialect != Postgres {
			return
		}
		ctx := context.Background()
		if err := s.SeedLeads(ctx, 2000, nil); err != nil {
			t.Fatal(err)
		}
		// A rare stage, status and owner, and a few leads with none: values whose few leads
		// the planner reads through an index rather than walking the tenant's newest leads.
		stage, err := s.CreateMaster(ctx, KindStage, "Rare stage")
		if err != nil {
			t.Fatal(err)
		}
		status, err := s.CreateMaster(ctx, KindStatus, "Rare status")
		if err != nil {
			t.Fatal(err)
		}
		owner, err := s.CreateUser(ctx, NewUser{Email: "rare@x.test", Password: "Secret1!x", Role: RoleSales})
		if err != nil {
			t.Fatal(err)
		}
		execAsOwner(t, s,
			fmt.Sprintf("UPDATE leads SET lead_stage_id = %d, lead_status_id = %d, owner_id = %d WHERE tenant_id = %d AND id %% 400 = 1",
				stage.ID, status.ID, owner.ID, s.TenantID),
			fmt.Sprintf("UPDATE leads SET lead_stage_id = NULL, lead_status_id = NULL, owner_id = NULL WHERE tenant_id = %d AND id %% 400 = 2", s.TenantID),
			"ANALYZE leads")
		// Each query, and what its plan's index conditions must hold: the value, or for the
		// leads without one, the tenant.
		bound := fmt.Sprintf("tenant_id = %d", s.TenantID)
		for q, cond := range map[string]string{
			fmt.Sprintf("l.lead_stage_id = %d ORDER BY l.id DESC LIMIT 21", stage.ID):                 fmt.Sprintf("lead_stage_id = %d", stage.ID),
			fmt.Sprintf("l.lead_stage_id = %d AND l.id < 1500 ORDER BY l.id DESC LIMIT 21", stage.ID): fmt.Sprintf("lead_stage_id = %d", stage.ID),
			fmt.Sprintf("l.lead_status_id = %d ORDER BY l.id DESC LIMIT 21", status.ID):               fmt.Sprintf("lead_status_id = %d", status.ID),
			fmt.Sprintf("l.owner_id = %d ORDER BY l.id DESC LIMIT 21", owner.ID):                      fmt.Sprintf("owner_id = %d", owner.ID),
			fmt.Sprintf("(l.owner_id = %d OR l.created_by = %d)", owner.ID, owner.ID):                 fmt.Sprintf("owner_id = %d", owner.ID),
			"l.lead_stage_id IS NULL ORDER BY l.id DESC LIMIT 21":                                     bound,
			"l.lead_status_id IS NULL ORDER BY l.id DESC LIMIT 21":                                    bound,
			"l.owner_id IS NULL ORDER BY l.id DESC LIMIT 21":                                          bound,
		} {
			q = "SELECT id FROM leads l WHERE l." + bound + " AND " + q
			p := explainWithoutSeqScan(t, s, q)
			conds := indexCond.FindAllString(p, -1)
			if strings.Contains(p, "Seq Scan") || len(conds) == 0 {
				t.Errorf("%s: not through an index:\n%s", q, p)
			}
			for _, c := range conds {
				if !strings.Contains(c, cond) && !(strings.Contains(q, " OR ") && strings.Contains(c, "created_by")) {
					t.Errorf("%s: an index read without %s:\n%s", q, cond, p)
				}
			}
		}
	})
}

// indexCond is an index condition of a plan.
var indexCond = regexp.MustCompile(`Index Cond: .*`)

// Second round (migration 20261124920000_storage_shipping): a shipping address equal to the
// billing address is stored once on PostgreSQL (the column holds "[]") and read back, on
// every path, as the billing address; an update of the billing address alone leaves the
// shipping address what it was. SQLite stores both, but reads the marker the same way.
func TestShippingSameAsBillingStoredOnce(t *testing.T) {
	eachImportDB(t, func(t *testing.T, db *DB, s Scope, admin, rep *User) {
		ctx := context.Background()
		bill := &Address{FlatNo: "4", Street: "Rue Haute", City: "Liège", Zip: "4000", Country: "Belgium"}
		same := *bill
		v, _, err := s.CreateLead(ctx, LeadInput{Contact: Contact{CustomerName: "Eva Peeters", CompanyEmail: "eva@x.test",
			BillingAddress: bill, ShippingAddress: &same}}, "", "")
		if err != nil {
			t.Fatal(err)
		}
		stored := func() string {
			t.Helper()
			var js string
			if err := s.Select((*Lead)(nil)).ColumnExpr("CAST(l.shipping_address AS TEXT)").Where("l.id = ?", v.ID).Scan(ctx, &js); err != nil {
				t.Fatal(err)
			}
			return js
		}
		want := "[]"
		if db.Dialect == SQLite {
			want = bill.column()
		}
		if js := stored(); js != want {
			t.Errorf("shipping stored as %s, want %s", js, want)
		}
		check := func(what string, ship *Address) {
			t.Helper()
			got, err := s.LeadView(ctx, v.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.ShippingAddress, ship) || got.ShippingAddress == got.BillingAddress {
				t.Errorf("%s: view's shipping %+v, want %+v (a copy)", what, got.ShippingAddress, ship)
			}
			page, err := s.ListLeads(ctx, LeadQuery{Search: "eva peeters"})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Rows) != 1 || !reflect.DeepEqual(page.Rows[0].ShippingAddress, ship) {
				t.Errorf("%s: list's rows %+v, want one with shipping %+v", what, page.Rows, ship)
			}
		}
		check("created", bill)

		// The billing address alone changes (as an import's set-based update writes it): the
		// shipping address stays the old billing address.
		moved := &Address{City: "Namur", Country: "Belgium"}
		if _, err := s.Update((*Lead)(nil)).Set("billing_address = ?", moved).Where("id = ?", v.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		check("billing moved", bill)
		var back Address
		if err := back.Scan(stored()); err != nil || back != *bill {
			t.Errorf("after the billing address moved, shipping stored as %s, want %s", stored(), bill.column())
		}
		// An edit that makes them equal again, then one that drops the shipping address.
		got, err := s.LeadView(ctx, v.ID)
		if err != nil {
			t.Fatal(err)
		}
		in := LeadInput{Contact: got.Contact}
		in.ShippingAddress = copyAddress(moved)
		if _, err := s.UpdateLead(ctx, v.ID, in); err != nil {
			t.Fatal(err)
		}
		check("edited to equal", moved)
		if db.Dialect == Postgres && stored() != "[]" {
			t.Errorf("edited to equal: shipping stored as %s", stored())
		}
		// Another column changes: the marker stays, and still reads as the billing address.
		if _, err := s.Update((*Lead)(nil)).Set("notes = 'x'").Where("id = ?", v.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		check("notes changed", moved)

		// Converted to a client: the client has both addresses.
		cv, err := s.ConvertLead(ctx, v.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(cv.BillingAddress, moved) || !reflect.DeepEqual(cv.ShippingAddress, moved) {
			t.Errorf("client: %+v / %+v, want %+v twice", cv.BillingAddress, cv.ShippingAddress, moved)
		}

		in.ShippingAddress = nil
		if _, err := s.UpdateLead(ctx, v.ID, in); err != nil {
			t.Fatal(err)
		}
		check("shipping dropped", nil)

		// The marker as a row may hold it, on either engine (SQLite: written by hand).
		if _, err := s.Update((*Lead)(nil)).Set("shipping_address = '[]'").Where("id = ?", v.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		check("marker", moved)
		// Read without the billing address, the marker cannot be resolved: an error, not a
		// wrong address.
		var l Lead
		if err := s.Select(&l).Column("l.id", "l.shipping_address").Where("l.id = ?", v.ID).Scan(ctx); err == nil {
			t.Errorf("shipping read without billing: no error, %+v", l.ShippingAddress)
		}
	})
}

// analyzeAsOwner gathers the statistics of tables as autovacuum would, as the owner of the
// PostgreSQL database of s (TEST_DATABASE_URL's role, ownerURL): the scope's own
// role may not analyze them.
func analyzeAsOwner(t *testing.T, s Scope, tables string) {
	t.Helper()
	execAsOwner(t, s, "ANALYZE "+tables)
}

// ownerURL reaches the PostgreSQL database of s as its owner: TEST_DATABASE_URL's role on
// the scope's database.
func ownerURL(t *testing.T, s Scope) string {
	t.Helper()
	var database string
	if err := s.idb.NewRaw("SELECT current_database()").Scan(context.Background(), &database); err != nil {
		t.Fatal(err)
	}
	u, err := neturl.Parse(os.Getenv("TEST_DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + database
	return u.String()
}

// execAsOwner runs statements as the owner of the PostgreSQL schema of s, one at a time
// (VACUUM runs outside any transaction).
func execAsOwner(t *testing.T, s Scope, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	owner, err := sql.Open("pgx", ownerURL(t, s))
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	for _, stmt := range stmts {
		if _, err := owner.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}

// A seed leaves the counters packed: its transactions update every counter row once a
// statement, and the old versions would otherwise stay as pages the list's count and the
// dashboards read (crm_bench: lead_counts 929 pages for 3,530 rows). The seed rewrites the
// four tables (VACUUM FULL gives each a new file). Their size right after is no test: a
// rewrite keeps the versions another transaction may still see, and the suite's parallel
// tests hold such snapshots.
func TestSeedLeavesTheCountersPacked(t *testing.T) {
	t.Parallel()
	db, s := openPostgresImportTestDB(t)
	ctx := context.Background()
	tables := []string{"lead_counts", "lead_user_counts", "lead_day_counts", "lead_month_counts"}
	files := func() map[string]int64 {
		out := map[string]int64{}
		for _, table := range tables {
			var n int64
			if err := db.bun.NewRaw("SELECT pg_relation_filenode(?::regclass)", table).Scan(ctx, &n); err != nil {
				t.Fatal(err)
			}
			out[table] = n
		}
		return out
	}
	before := files()
	// As crm seed does it: as the owner, whose VACUUM the tables let run.
	owner, err := Open(ctx, ownerURL(t, s))
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	if err := owner.System(s.TenantID, s.UserID).SeedLeads(ctx, 2*SeedBatch, nil); err != nil {
		t.Fatal(err)
	}
	after := files()
	for _, table := range tables {
		if after[table] == before[table] {
			t.Errorf("%s: the seed did not rewrite it (file %d before and after)", table, after[table])
		}
	}
}
