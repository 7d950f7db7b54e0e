package store

import (
	"context"
	"testing"
	"time"

	"crm/app/validate"
)

// A batch's journey entries and its rows' outcomes are written on PostgreSQL with their
// values apart from the text (insert_apart.go) and on SQLite by bun: either way a row reads
// back as bun writes it, every column, NULLs, quotes, accents and JSON included, the
// tenant the scope's and a zero time the statement's.
func TestJourneyAndImportRowsReadBackAsBunWritesThem(t *testing.T) {
	t.Parallel()
	eachImportDB(t, func(t *testing.T, db *DB, s Scope, admin, _ *User) {
		ctx := context.Background()
		str := func(v string) *string { return &v }
		at := time.Date(2026, 3, 4, 5, 6, 7, 891011000, time.UTC)
		entries := func(base int64) []AuditEntry {
			return []AuditEntry{
				{ActorUserID: &admin.ID, Entity: "lead", EntityID: base + 1, Action: "create", After: str(`{"name":"Zoë O'Brien","notes":"a\nb <&> \"q\""}`)},
				{Entity: "lead", EntityID: base + 2, Action: "update", Before: str(`{"company_name":"Ærø"}`), After: str(`{"company_name":"Aero"}`), CreatedAt: at},
				{ActorUserID: &admin.ID, Entity: "client", EntityID: base + 3, Action: "import_undo", After: str(`{"import_id":1,"row":2,"outcome":"updated"}`)},
			}
		}
		stamped := func(es []AuditEntry) []AuditEntry {
			for i := range es {
				es[i].TenantID = 999 // the scope's tenant is written whatever the entry says
			}
			return es
		}
		began := time.Now().Add(-time.Minute)
		if _, err := s.Insert(new(stamped(entries(100)))).Returning("NULL").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.insertJourney(ctx, stamped(entries(200))); err != nil {
			t.Fatal(err)
		}
		var got []AuditEntry
		if err := s.Select(&got).Where("al.entity_id > 100").OrderExpr("al.entity_id").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		if len(got) != 6 {
			t.Fatalf("%d entries read back, want 6", len(got))
		}
		for i := range 3 {
			b, a := got[i], got[i+3]
			if a.TenantID != s.TenantID || b.TenantID != s.TenantID {
				t.Errorf("entry %d: tenants %d and %d, want %d", i, b.TenantID, a.TenantID, s.TenantID)
			}
			if a.EntityID != b.EntityID+100 || a.Entity != b.Entity || a.Action != b.Action || !samePtr(a.ActorUserID, b.ActorUserID) ||
				!samePtr(a.Before, b.Before) || !samePtr(a.After, b.After) {
				t.Errorf("entry %d apart:\n%+v\nby bun:\n%+v", i, a, b)
			}
			if i == 1 {
				// (bun on SQLite leaves a column out of every row of a statement when its
				// first row's value is the default; the import sets no time.)
				if s.Dialect() == Postgres && (!a.CreatedAt.Equal(at) || !b.CreatedAt.Equal(at)) {
					t.Errorf("a time given: %v and %v, want %v", b.CreatedAt, a.CreatedAt, at)
				}
			} else if a.CreatedAt.Before(began) || b.CreatedAt.Before(began) {
				t.Errorf("a zero time: %v and %v, want the statement's", b.CreatedAt, a.CreatedAt)
			}
		}

		im := claimedImport(t, db, s, EntityLead, ModeUpsert, MatchEmail, 10, "apart")
		id := int64(7)
		rows := func(base int) []importRow {
			return []importRow{
				{ImportID: im.ID, RowNo: base, Outcome: OutcomeCreated, EntityID: &id},
				{ImportID: im.ID, RowNo: base + 1, Outcome: OutcomeUpdated, EntityID: &id, Before: str(`{"notes":"l'été"}`), Undone: true},
				{ImportID: im.ID, RowNo: base + 2, Outcome: OutcomeFailed, Reason: &RowReason{Code: "invalid", Field: "email", Value: "<x@y>",
					Errors: validate.Errors{"company_email": "invalid_email"}}},
			}
		}
		if _, err := s.Insert(new(rows(0))).Returning("NULL").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.insertImportRows(ctx, rows(3)); err != nil {
			t.Fatal(err)
		}
		var read []importRow
		if err := s.Select(&read).Where("ir.import_id = ?", im.ID).OrderExpr("ir.row_no").Scan(ctx); err != nil {
			t.Fatal(err)
		}
		var reasons []*string
		if err := s.Select((*importRow)(nil)).Column("reason").Where("ir.import_id = ?", im.ID).OrderExpr("ir.row_no").Scan(ctx, &reasons); err != nil {
			t.Fatal(err)
		}
		if len(read) != 6 || len(reasons) != 6 {
			t.Fatalf("%d rows read back, want 6", len(read))
		}
		for i := range 3 {
			b, a := read[i], read[i+3]
			if a.TenantID != s.TenantID || a.RowNo != b.RowNo+3 || a.Outcome != b.Outcome || !samePtr(a.EntityID, b.EntityID) ||
				!samePtr(a.Before, b.Before) || a.Undone != b.Undone || !samePtr(reasons[i+3], reasons[i]) {
				t.Errorf("row %d apart:\n%+v %v\nby bun:\n%+v %v", i, a, deref(reasons[i+3]), b, deref(reasons[i]))
			}
		}
	})
}

func samePtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
