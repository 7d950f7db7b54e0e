package store

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// An import batch on SQLite runs with synchronous NORMAL and a rarer checkpoint, then puts
// both back: the connection the pool hands out next (the one the batch used) is FULL
// again, so no other write goes unsynced. Its rows are there, counted once.
func TestImportBatchPutsSQLiteSettingsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s, _, _ := openImportTestDB(t, SQLite)
	read := func() (sync, checkpoint int) {
		t.Helper()
		conn, err := db.bun.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if err := conn.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&checkpoint); err != nil {
			t.Fatal(err)
		}
		return sync, checkpoint
	}
	wantSync, wantCheckpoint := read()
	if wantSync != 2 { // FULL, as Open sets it
		t.Fatalf("synchronous %d before the import", wantSync)
	}
	var inside [2]int
	err := s.importTx(ctx, func(tx Scope) error {
		if err := tx.idb.NewRaw("PRAGMA synchronous").Scan(ctx, &inside[0]); err != nil {
			return err
		}
		return tx.idb.NewRaw("PRAGMA wal_autocheckpoint").Scan(ctx, &inside[1])
	})
	if err != nil || inside != [2]int{1, 10000} {
		t.Fatalf("inside the batch: synchronous %d, checkpoint %d (%v)", inside[0], inside[1], err)
	}
	if sync, checkpoint := read(); sync != wantSync || checkpoint != wantCheckpoint {
		t.Errorf("after the batch: synchronous %d, checkpoint %d; want %d, %d", sync, checkpoint, wantSync, wantCheckpoint)
	}
	items := make([]ImportItem, 0, 3)
	for i, e := range []string{"a@x.test", "b@x.test", "a@x.test"} {
		it := ImportItem{Row: i + 2, Key: e, Set: map[string]bool{"customer_name": true, "company_email": true}}
		it.Lead.CustomerName, it.Lead.CompanyEmail = "N", e
		items = append(items, it)
	}
	im := runItems(t, db, s, EntityLead, ModeUpsert, MatchEmail, items, 2)
	if got, err := s.Import(ctx, im.ID); err != nil || got.Created != 2 || got.Skipped != 1 {
		t.Fatalf("import: %+v %v", got, err)
	}
	if sync, _ := read(); sync != wantSync {
		t.Errorf("after an import batch: synchronous %d", sync)
	}
}

// The key lookup of an import batch on PostgreSQL asks for the batch's keys in one
// statement, so whatever the statistics say of the tenant the plan reads it at most once a
// batch, never once a key (TEST_DATABASE_URL).
func TestImportKeyLookupReadsTheTenantAtMostOnce(t *testing.T) {
	t.Parallel()
	if os.Getenv("TEST_DATABASE_URL") == "" {
		t.Skip("TEST_DATABASE_URL not set")
	}
	ctx := context.Background()
	_, s, _, _ := openImportTestDB(t, Postgres)
	if err := s.SeedLeads(ctx, 3000, nil); err != nil {
		t.Fatal(err)
	}
	for _, col := range []string{MatchField(MatchEmail), MatchField(MatchPhone)} {
		keys := make([]string, 2000) // a batch's worth
		for i := range keys {
			keys[i] = fmt.Sprintf("k%d@x.test", i)
		}
		var recs []Lead
		var plans []string
		q := keysQuery(s, LeadEntity, &recs, "l."+col, keys)
		if err := s.idb.NewRaw("EXPLAIN "+q.String()).Scan(ctx, &plans); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plans, "\n")
		if strings.Contains(text, "Nested Loop") || !strings.Contains(text, col) {
			t.Errorf("%s lookup:\n%s", col, text)
		}
	}
}

// The statement timing names statements by verb and table, however long.
func TestStatementKind(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("(1, 'x'), ", 10000)
	for q, want := range map[string]string{
		`SELECT "l"."id" FROM "leads" AS "l" WHERE x`:                         "SELECT leads",
		`INSERT INTO "audit_log" ("a") VALUES ` + long:                        "INSERT audit_log",
		"WITH v (id, a) AS (VALUES " + long + ") UPDATE leads AS l SET a = 1": "UPDATE leads",
		`DELETE FROM "leads" AS "l" WHERE 1`:                                  "DELETE leads",
		"COMMIT":                                                              "COMMIT",
	} {
		if got := statementKind(q); got != want {
			t.Errorf("%.40s…: %q, want %q", q, got, want)
		}
	}
}

// The grouped UPDATE of an import batch on PostgreSQL probes the primary key once per
// record, in a tenant that is a small share of the table: given the tenant as a constant,
// the planner multiplied its share by the ids' and, expecting one lead, walked the tenant's
// leads to find the records (0.55 ms a record of a 100,000-row update; updateByID).
func TestImportUpdateProbesThePrimaryKey(t *testing.T) {
	t.Parallel()
	if os.Getenv("TEST_DATABASE_URL") == "" {
		t.Skip("TEST_DATABASE_URL not set")
	}
	ctx := context.Background()
	db, s, _, _ := openImportTestDB(t, Postgres)
	other, otherAdmin, err := db.CreateTenant(ctx, NewTenant{DefaultLocale: "en_US", Name: "Big", AdminEmail: "big@x.test", AdminPassword: "Secret1!x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.System(other.ID, otherAdmin.ID).SeedLeads(ctx, 20000, nil); err != nil {
		t.Fatal(err)
	}
	// The statistics are taken while the tenant is small, as before its first import.
	if err := s.SeedLeads(ctx, 20, nil); err != nil {
		t.Fatal(err)
	}
	analyzeAsOwner(t, s, "leads")
	if err := s.SeedLeads(ctx, 1000, nil); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	if err := s.idb.NewSelect().Table("leads").Column("id").Where("tenant_id = ? AND id % 7 = 0", s.TenantID).
		OrderExpr("id").Limit(150).Scan(ctx, &ids); err != nil {
		t.Fatal(err)
	}
	recs := make([]changedColumns, len(ids))
	for i, id := range ids {
		name := fmt.Sprintf("Renamed %d", i)
		recs[i] = changedColumns{id, []columnValue{{"company_name", name}, {"search_text", strings.ToLower(name)},
			{"updated_at", time.Now()}}}
	}
	stmts := s.updateStatements(LeadEntity, recs)
	if len(stmts) != 1 {
		t.Fatalf("%d statements for one group of %d records", len(stmts), len(recs))
	}
	var plan []byte
	err = s.importTx(ctx, func(tx Scope) error {
		return tx.idb.NewRaw("EXPLAIN (ANALYZE, FORMAT JSON) "+stmts[0].query, stmts[0].args...).Scan(ctx, &plan)
	})
	if err != nil {
		t.Fatal(err)
	}
	// Every node that reads leads reads the records and nothing else.
	type node struct {
		Relation string  `json:"Relation Name"`
		Type     string  `json:"Node Type"`
		Index    string  `json:"Index Name"`
		Rows     float64 `json:"Actual Rows"`
		Loops    float64 `json:"Actual Loops"`
		Removed  float64 `json:"Rows Removed by Filter"`
		Plans    []node  `json:"Plans"`
	}
	var plans []struct{ Plan node }
	if err := json.Unmarshal(plan, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("plan %s: %v", plan, err)
	}
	read, probes := 0.0, 0
	var walk func(n node)
	walk = func(n node) {
		if n.Relation == "leads" && n.Type != "ModifyTable" {
			read += n.Rows*n.Loops + n.Removed*n.Loops
			if n.Index == "leads_pkey" {
				probes++
			}
		}
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(plans[0].Plan)
	if probes != 1 || read > float64(len(ids)) {
		t.Errorf("the update read %.0f leads for %d records:\n%s", read, len(ids), plan)
	}
	var renamed int
	if err := s.idb.NewSelect().Table("leads").ColumnExpr("count(*)").Where("tenant_id = ? AND company_name LIKE 'Renamed %'", s.TenantID).
		Scan(ctx, &renamed); err != nil || renamed != len(ids) {
		t.Errorf("%d renamed of %d (%v)", renamed, len(ids), err)
	}
}
