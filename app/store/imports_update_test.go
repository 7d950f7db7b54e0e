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
