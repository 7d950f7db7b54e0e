package store_test

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"

	"crm/app/store"
	"crm/app/store/storetest"
)

// globalTables have a tenant_id column but are looked up before the tenant is known;
// each is small and would be a Citus reference table.
var globalTables = map[string]bool{"user_directory": true}

// TestPostgresTenantKeysLeadWithTenant reads the catalog: every tenant table's primary key,
// unique constraints and foreign keys to other tenant tables include tenant_id, so the
// schema can be distributed by tenant without a rewrite.
func TestPostgresTenantKeysLeadWithTenant(t *testing.T) {
	t.Parallel()
	if os.Getenv("TEST_DATABASE_URL") == "" {
		t.Skip("TEST_DATABASE_URL not set")
	}
	url := storetest.URL(t, store.Postgres)
	db, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	conn, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	rows, err := conn.Query(`
SELECT c.relname, con.contype, con.conname,
       (SELECT string_agg(a.attname, ',') FROM unnest(con.conkey) k JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k),
       COALESCE((SELECT string_agg(a.attname, ',') FROM unnest(con.confkey) k JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k), ''),
       COALESCE(fc.relname, ''),
       EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = con.confrelid AND a.attname = 'tenant_id')
FROM pg_constraint con
JOIN pg_class c ON c.oid = con.conrelid
LEFT JOIN pg_class fc ON fc.oid = con.confrelid
WHERE c.relnamespace = current_schema()::regnamespace
  AND con.contype IN ('p', 'u', 'f')
  AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id')`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	tables := map[string]bool{}
	for rows.Next() {
		var table, kind, name, cols, fcols, ftable string
		var ftenant bool
		if err := rows.Scan(&table, &kind, &name, &cols, &fcols, &ftable, &ftenant); err != nil {
			t.Fatal(err)
		}
		if globalTables[table] {
			continue
		}
		tables[table] = true
		has := strings.Contains(","+cols+",", ",tenant_id,")
		switch kind {
		case "p", "u":
			if !has {
				t.Errorf("%s: %s (%s) does not include tenant_id", table, name, cols)
			}
		case "f":
			if ftenant && (!has || !strings.Contains(","+fcols+",", ",tenant_id,")) {
				t.Errorf("%s: foreign key %s (%s) -> %s (%s) does not include tenant_id", table, name, cols, ftable, fcols)
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"users", "roles", "role_permissions", "api_tokens", "audit_log"} {
		if !tables[want] {
			t.Errorf("tenant table %s not found in the catalog", want)
		}
	}
}

// rlsExempt are the tables with tenant_id that are read before a tenant is known.
var rlsExempt = map[string]bool{"user_directory": true}

// TestPostgresTenantTablesHaveRowLevelSecurity reads the catalog: every table with a tenant_id
// column (but the directory read at sign-in) has row-level security enabled and forced and
// the tenant_isolation policy on app.tenant_id, for reading and for writing. A migration that
// adds a tenant table without SELECT tenant_rls('…') fails here.
func TestPostgresTenantTablesHaveRowLevelSecurity(t *testing.T) {
	t.Parallel()
	if os.Getenv("TEST_DATABASE_URL") == "" {
		t.Skip("TEST_DATABASE_URL not set")
	}
	db := storetest.Open(t, store.Postgres)
	var tables []struct {
		Name       string `bun:"relname"`
		Enabled    bool   `bun:"relrowsecurity"`
		Forced     bool   `bun:"relforcerowsecurity"`
		Policies   int    `bun:"policies"`
		Qual       string `bun:"qual"`
		WithCheck  string `bun:"with_check"`
		Permissive string `bun:"permissive"`
		Cmd        string `bun:"cmd"`
		Roles      string `bun:"roles"`
	}
	err := storetest.Owner(t, db).System(0, 0).Raw(`
SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity,
       (SELECT count(*) FROM pg_policies p WHERE p.schemaname = current_schema() AND p.tablename = c.relname) AS policies,
       COALESCE(p.qual, '') AS qual, COALESCE(p.with_check, '') AS with_check,
       COALESCE(p.permissive, '') AS permissive, COALESCE(p.cmd, '') AS cmd, COALESCE(array_to_string(p.roles, ','), '') AS roles
FROM pg_class c
LEFT JOIN pg_policies p ON p.schemaname = current_schema() AND p.tablename = c.relname AND p.policyname = 'tenant_isolation'
WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
  AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped)
ORDER BY c.relname`).Scan(context.Background(), &tables)
	if err != nil {
		t.Fatal(err)
	}
	const want = "(tenant_id = (NULLIF(current_setting('app.tenant_id'::text, true), ''::text))::bigint)"
	seen := map[string]bool{}
	for _, tb := range tables {
		seen[tb.Name] = true
		if rlsExempt[tb.Name] || globalTables[tb.Name] {
			if tb.Enabled {
				t.Errorf("%s is read before the tenant is known but has row-level security", tb.Name)
			}
			continue
		}
		if !tb.Enabled || !tb.Forced {
			t.Errorf("%s: row-level security enabled %v, forced %v; want both (SELECT tenant_rls('%s'))", tb.Name, tb.Enabled, tb.Forced, tb.Name)
		}
		if tb.Policies != 1 {
			t.Errorf("%s: %d policies, want only tenant_isolation (another permissive policy would widen it)", tb.Name, tb.Policies)
		}
		if tb.Qual != want || tb.WithCheck != want || tb.Permissive != "PERMISSIVE" || tb.Cmd != "ALL" || tb.Roles != "public" {
			t.Errorf("%s: policy tenant_isolation is %s %s to %s using %q with check %q; want ALL to public using and checking %s",
				tb.Name, tb.Permissive, tb.Cmd, tb.Roles, tb.Qual, tb.WithCheck, want)
		}
	}
	for _, name := range []string{"leads", "clients", "users", "lead_counts", "lead_day_counts", "imports", "reminders"} {
		if !seen[name] {
			t.Errorf("tenant table %s not found in the catalog", name)
		}
	}
	// The list's search and keyset conditions may drive indexes ahead of the policy only
	// with these LEAKPROOF (the migration marks them when run by a superuser, as here).
	var leaky []string
	err = db.System(0, 0).Raw(`SELECT oid::regprocedure::text FROM pg_proc
WHERE oid IN ('pg_catalog.lower(text)'::regprocedure, 'pg_catalog.textlike(text, text)'::regprocedure) AND NOT proleakproof`).
		Scan(context.Background(), &leaky)
	if err != nil {
		t.Fatal(err)
	}
	if len(leaky) > 0 {
		t.Errorf("not LEAKPROOF: %v; the list's search plans would read every row of a tenant", leaky)
	}
}
