package store

import (
	"context"
	"strings"
	"testing"
	"time"
)

// On SQLite an import's update sends a group's values apart from its statement, as one
// JSON array: the statement's text is the same whatever the values, holds none of them,
// and the columns end up holding exactly what bun writes into a statement's text (the same
// types, the same time format), texts with quotes, line breaks, accents and emoji
// included. A text JSON would change is written in as before.
func TestSQLiteUpdateSendsValuesApart(t *testing.T) {
	t.Parallel()
	_, s, _, rep := openImportTestDB(t, SQLite)
	ctx := context.Background()
	if err := s.SeedLeads(ctx, 4, nil); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	if err := s.idb.NewSelect().Table("leads").Column("id").Where("tenant_id = ?", s.TenantID).Order("id").
		Scan(ctx, &ids); err != nil || len(ids) != 4 {
		t.Fatalf("%d leads: %v", len(ids), err)
	}
	at := time.Date(2026, 11, 30, 7, 8, 9, 123456789, time.FixedZone("CET", 3600))
	notes := "Line one\nL'été «naïve» \"quoted\" \\ back\t<b>&amp;</b> 😀 %s ? $1"
	rec := func(id int64, notes string, owner *int64) changedColumns {
		return changedColumns{id, []columnValue{{"notes", notes}, {"owner_id", owner},
			{"shipping_address", (*string)(nil)}, {"updated_at", at}}}
	}

	a := s.updateStatements(LeadEntity, []changedColumns{rec(ids[0], notes, &rep.ID), rec(ids[1], "plain", nil)})
	b := s.updateStatements(LeadEntity, []changedColumns{rec(ids[2], "other", &rep.ID)})
	if len(a) != 1 || len(b) != 1 {
		t.Fatalf("%d and %d statements, want one each", len(a), len(b))
	}
	if a[0].query != b[0].query {
		t.Errorf("two texts for one group of columns:\n%s\n%s", a[0].query, b[0].query)
	}
	if len(a[0].bound) != 1 || strings.Contains(a[0].query, "plain") || strings.Contains(a[0].query, "été") {
		t.Errorf("values written into the text, or not sent apart (%d): %s", len(a[0].bound), a[0].query)
	}
	if err := s.updateByID(ctx, LeadEntity, []changedColumns{rec(ids[0], notes, &rep.ID), rec(ids[1], "plain", nil)}); err != nil {
		t.Fatal(err)
	}
	// The same values written in by bun, on another lead.
	if _, err := s.idb.NewUpdate().Table("leads").Set("notes = ?", notes).Set("owner_id = ?", rep.ID).
		Set("shipping_address = ?", nil).Set("updated_at = ?", at).Where("id = ?", ids[3]).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	stored := func(id int64) string {
		var v string
		if err := s.idb.NewRaw("SELECT quote(notes) || '|' || quote(owner_id) || '|' || quote(shipping_address) || '|' || "+
			"quote(updated_at) FROM leads WHERE id = ?", id).Scan(ctx, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if got, want := stored(ids[0]), stored(ids[3]); got != want {
		t.Errorf("sent apart, the lead holds\n%s\nwritten in, it holds\n%s", got, want)
	}
	if got := stored(ids[1]); !strings.HasPrefix(got, "'plain'|NULL|NULL|'2026-11-30 06:08:09.123456+00:00'") {
		t.Errorf("second record holds %s", got)
	}
	l, err := s.LeadView(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if l.Notes != notes || l.OwnerID == nil || *l.OwnerID != rep.ID || !l.UpdatedAt.Equal(at.Truncate(time.Microsecond)) {
		t.Errorf("read back: notes %q, owner %v, updated %v", l.Notes, l.OwnerID, l.UpdatedAt)
	}

	bad := s.updateStatements(LeadEntity, []changedColumns{rec(ids[0], "bad \xff byte", nil)})
	if len(bad) != 1 || len(bad[0].bound) != 0 || !strings.Contains(bad[0].query, "VALUES") {
		t.Errorf("a text that is not UTF-8 was sent as JSON: %+v", bad)
	}
}

// An import batch's journey entries and row outcomes go to SQLite as one JSON array each:
// the rows hold what bun's insert of the same entries leaves, in their order, and a text
// JSON would change is written in by bun.
func TestSQLiteBatchInsertsSendRowsApart(t *testing.T) {
	t.Parallel()
	db, s, _, rep := openImportTestDB(t, SQLite)
	ctx := context.Background()
	im := claimedImport(t, db, s, EntityLead, ModeCreate, MatchEmail, 4, "a")
	before, after := `{"notes":"L'été\n«naïve» 😀","n":1}`, `{"notes":"<b>&</b>","n":2}`
	entries := func(entity string) []AuditEntry {
		return []AuditEntry{{ActorUserID: &rep.ID, Entity: entity, EntityID: 7, Action: "update", Before: &before, After: &after},
			{Entity: entity, EntityID: 8, Action: "create"}}
	}
	if err := s.insertAudit(ctx, entries("json")); err != nil {
		t.Fatal(err)
	}
	bunEntries := entries("bun")
	if _, err := s.Insert(&bunEntries).Returning("NULL").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	id := int64(9)
	rows := func(from int) []importRow {
		return []importRow{{ImportID: im.ID, RowNo: from, Outcome: OutcomeUpdated, EntityID: &id, Before: &before},
			{ImportID: im.ID, RowNo: from + 1, Outcome: OutcomeFailed, Reason: &RowReason{Code: "invalid", Field: "email", Value: "x'y"}, Undone: true}}
	}
	if err := s.insertImportRows(ctx, rows(2)); err != nil {
		t.Fatal(err)
	}
	bunRows := rows(4)
	if _, err := s.Insert(&bunRows).Returning("NULL").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	stored := func(q string, args ...any) []string {
		var out []string
		if err := s.idb.NewRaw(q, args...).Scan(ctx, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	audit := "SELECT quote(tenant_id) || '|' || quote(actor_user_id) || '|' || quote(entity_id) || '|' || quote(action) || '|' || " +
		"quote(before) || '|' || quote(after) || '|' || typeof(created_at) FROM audit_log WHERE entity = ? ORDER BY id"
	if got, want := stored(audit, "json"), stored(audit, "bun"); len(got) != 2 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("journey entries sent apart:\n%s\nwritten in:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	outcome := "SELECT quote(tenant_id) || '|' || quote(outcome) || '|' || quote(entity_id) || '|' || quote(before) || '|' || " +
		"quote(reason) || '|' || quote(undone) FROM import_rows WHERE import_id = ? AND row_no IN (?, ?) ORDER BY row_no"
	if got, want := stored(outcome, im.ID, 2, 3), stored(outcome, im.ID, 4, 5); len(got) != 2 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("row outcomes sent apart:\n%s\nwritten in:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, ok := sqliteJSONRows([][]any{{"bad \xff"}}); ok {
		t.Error("a text that is not UTF-8 would travel as JSON")
	}
	if _, ok := sqliteJSONRows([][]any{{"nul \x00"}}); ok {
		t.Error("a text holding a NUL would travel as JSON")
	}
}

// An import batch's new leads go to SQLite as one JSON array: every column holds what bun's
// insert of the same leads leaves (an address in its compact form and in its JSON form,
// NULLs, the default time of a lead given none), and the new rows come back in order.
func TestSQLiteBatchInsertSendsRecordsApart(t *testing.T) {
	t.Parallel()
	_, s, _, rep := openImportTestDB(t, SQLite)
	ctx := context.Background()
	at := time.Date(2025, 3, 4, 5, 6, 7, 891011000, time.UTC)
	leads := func(tag string) []*Lead {
		return []*Lead{
			{Contact: Contact{CustomerName: tag + " Ana", CompanyEmail: "ana@x.test", OwnerID: &rep.ID,
				Notes:           "Première ligne\nL'autre «ligne» 😀 \\ \"q\"",
				BillingAddress:  &Address{Street: "1 Rue", City: "Lyon", Country: "FR"},
				ShippingAddress: &Address{Street: "odd \x1f street"}}, CreatedBy: &rep.ID, SearchText: tag + " ana", CreatedAt: at},
			{Contact: Contact{CustomerName: tag + " Bo"}, SearchText: tag + " bo"},
		}
	}
	var got []insertReturn
	ok, err := insertJSONRecords(ctx, s, leads("json"), "id, created_at, updated_at", &got)
	if err != nil || !ok {
		t.Fatalf("insert: %v, sent apart %v", err, ok)
	}
	if len(got) != 2 || got[1].ID != got[0].ID+1 || !got[0].CreatedAt.Equal(at) || got[1].CreatedAt.IsZero() {
		t.Fatalf("returned %+v", got)
	}
	bunLeads := leads("bun")
	if _, err := s.Insert(&bunLeads).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	var cols []string
	if err := s.idb.NewRaw("SELECT name FROM pragma_table_info('leads') WHERE name NOT IN "+
		"('id', 'customer_name', 'search_text', 'created_at', 'updated_at')").Scan(ctx, &cols); err != nil || len(cols) < 10 {
		t.Fatalf("columns %v: %v", cols, err)
	}
	for i := range cols {
		cols[i] = "quote(" + cols[i] + ")"
	}
	row := func(name string) string {
		var v string
		if err := s.idb.NewRaw("SELECT "+strings.Join(cols, " || '|' || ")+" || '|' || typeof(created_at) || '|' || "+
			"(updated_at IS NOT NULL) FROM leads WHERE customer_name = ?", name).Scan(ctx, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, name := range []string{"Ana", "Bo"} {
		if j, b := row("json "+name), row("bun "+name); j != b {
			t.Errorf("%s sent apart:\n%s\nwritten in:\n%s", name, j, b)
		}
	}
	l, err := s.LeadView(ctx, got[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if l.Notes != leads("")[0].Notes || l.ShippingAddress == nil || l.ShippingAddress.Street != "odd \x1f street" ||
		l.BillingAddress == nil || l.BillingAddress.City != "Lyon" || !l.CreatedAt.Equal(at) {
		t.Errorf("read back: %+v", l.Contact)
	}
	if ok, err := insertJSONRecords(ctx, s, []*Lead{{ID: got[1].ID + 100}}, "id", &got); ok || err != nil {
		t.Errorf("a lead with its id was sent apart (%v, %v)", ok, err)
	}
}
