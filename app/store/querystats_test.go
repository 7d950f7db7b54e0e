package store

import (
	"strings"
	"testing"
)

// TestChangesCallers: the statements that end the cached callers are the writes to the
// caller tables, however they are spelled, and no others.
func TestChangesCallers(t *testing.T) {
	for q, want := range map[string]bool{
		`UPDATE "users" AS "u" SET active = FALSE WHERE (u.id = 3)`:                        true,
		`INSERT INTO "role_permissions" AS "rp" ("tenant_id") VALUES (1)`:                  true,
		`DELETE FROM "team_members" AS "tm" WHERE (team_id = 1)`:                           true,
		`UPDATE api_tokens SET expires_at = '2020-01-01'`:                                  true,
		`  update "public"."tenants" SET name = 'x'`:                                       true,
		`WITH x AS (SELECT 1) UPDATE "roles" AS "r" SET require_2fa = TRUE`:                true,
		`INSERT INTO "leads" AS "l" ("tenant_id") VALUES (1)`:                              false,
		`UPDATE "user_directory" SET email = 'a'`:                                          false,
		`SELECT "u"."id" FROM "users" AS "u"`:                                              false,
		`INSERT INTO "sessions" AS "session" ("token") VALUES ('x') ON CONFLICT DO UPDATE`: false,
		`COMMIT`: false,
		"WITH v(id) AS (VALUES (1)) DELETE FROM team_members WHERE id IN (SELECT id FROM v)":              true,
		"with d as (delete from leads returning 1) insert into \"public\".\"api_tokens\" (id) values (1)": true,
		// the words of a literal or a comment are not the statement's
		`INSERT INTO "leads" ("notes") VALUES ('please UPDATE users today'), ('it''s DELETE FROM roles')`: false,
		`WITH v AS (VALUES ('a''b', 'insert into tenants')) UPDATE "leads" SET notes = v.column1 FROM v`:  false,
		"-- don't update users here\nUPDATE \"leads\" SET name = 'x'":                                     false,
		"/* it's */ UPDATE \"roles\" SET name = 'x'":                                                      true,
		"SELECT 1 -- UPDATE users\n": false,
		`INSERT INTO "leads" ("notes") VALUES ('it''s')  ;  UPDATE teams SET name = 'x'`: true,
		// a read is skipped whole, unless it is not alone
		"\n  select \"u\".\"id\" from users where name = 'update users'": false,
		`SELECT 1; UPDATE "users" SET name = 'x'`:                        true,
		`SELECT 'a;b'; DELETE FROM "roles"`:                              true,
		`SELECTED FROM x; UPDATE roles SET name = 'x'`:                   true,
	} {
		if got := changesCallers(q); got != want {
			t.Errorf("changesCallers(%q) = %v, want %v", q, got, want)
		}
	}
}

// BenchmarkChangesCallersOnAnImportBatch: the check runs after every statement, and an
// import's batch statement is megabytes of values (docs/PERFORMANCE.md, "Twenty-sixth round").
func BenchmarkChangesCallersOnAnImportBatch(b *testing.B) {
	var q strings.Builder
	q.WriteString(`WITH v (id, name, notes) AS (VALUES `)
	for i := range 2000 {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString(`(1, 'Ana O''Brien', 'Called about the update; users of the new plan. Ünïcödé notes, a second line` + "\n" + `and more text to make a realistic row of about a kilobyte ` + strings.Repeat("lorem ipsum ", 60) + `')`)
	}
	q.WriteString(`) UPDATE "leads" AS "l" SET name = v.name, notes = v.notes FROM v WHERE l.id = v.id`)
	query := q.String()
	b.SetBytes(int64(len(query)))
	for b.Loop() {
		if changesCallers(query) {
			b.Fatal("an update of leads changes callers")
		}
	}
}
