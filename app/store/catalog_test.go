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
