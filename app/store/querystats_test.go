package store

import "testing"

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
	} {
		if got := changesCallers(q); got != want {
			t.Errorf("changesCallers(%q) = %v, want %v", q, got, want)
		}
	}
}
