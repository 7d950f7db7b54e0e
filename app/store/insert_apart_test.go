package store

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/uptrace/bun"

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

// The records an import creates are written on PostgreSQL with their values apart (the
// statement built from bun's model and the catalog, insert_apart.go) and on SQLite by bun:
// written both ways, the same leads and clients read back with every column alike but the
// id, a given time kept to bun's microsecond and a zero one the statement's.
func TestImportRecordsReadBackAsBunWritesThem(t *testing.T) {
	t.Parallel()
	eachImportDB(t, func(t *testing.T, db *DB, s Scope, admin, rep *User) {
		m := masterIDs(t, s)
		str := func(v string) *string { return &v }
		at := time.Date(2025, 7, 8, 9, 10, 11, 123456789, time.UTC)
		billing := &Address{FlatNo: "12B", Street: "M.G. Road", City: "Bengaluru", State: "KA", Zip: "560001", Country: "India"}
		contact := func(name string, i int) Contact {
			return Contact{CustomerTitle: "Dr", CustomerName: name, CompanyName: "O'Brien & Søn \"Ltd\"",
				CompanyEmail: fmt.Sprintf("c%d@x.test", i), CompanyDialCode: "+91", CompanyPhoneNumber: "98450" + strconv.Itoa(10000+i),
				Notes: "line one\nline two, l'été <b>", BillingAddress: copyAddress(billing)}
		}
		leads := func() []*Lead {
			first := &Lead{Contact: contact("Zoë", 1)} // no time given, no references, no addresses
			first.Contact.BillingAddress, first.Notes = nil, ""
			full := &Lead{ClientID: str("CL-7"), Contact: contact("Ærø", 2), LeadTypeID: &m[KindType][0], LeadSourceID: &m[KindSource][0],
				LeadStatusID: &m[KindStatus][1], LeadStageID: &m[KindStage][2], CreatedBy: &admin.ID, CreatedAt: at}
			full.CompanyTypeID, full.OwnerID = &m[KindBusinessType][0], &rep.ID
			full.ShippingAddress = copyAddress(billing) // stored as "the billing address" on PostgreSQL
			other := &Lead{Contact: contact("bad \xff byte", 3), CreatedBy: &rep.ID, CreatedAt: at.Add(time.Hour)}
			other.ShippingAddress = &Address{FlatNo: "1", Street: "x\x1fy", Country: "IN"} // a part holding the separator
			for _, l := range []*Lead{first, full, other} {
				l.SearchText = l.Contact.searchText()
			}
			return []*Lead{first, full, other}
		}
		sameBothWays(t, s, "leads", leads, func(l *Lead) time.Time { return l.CreatedAt })

		clients := func() []*Client {
			first := &Client{Contact: contact("Zoë", 4)}
			full := &Client{Contact: contact("Ærø", 5), CreatedBy: &admin.ID, CreatedAt: at}
			full.OwnerID, full.ShippingAddress = &rep.ID, &Address{City: "Pune"}
			for _, c := range []*Client{first, full} {
				c.SearchText = clientSearchText(c)
			}
			return []*Client{first, full}
		}
		sameBothWays(t, s, "clients", clients, func(c *Client) time.Time { return c.CreatedAt })
	})
}

// sameBothWays writes rows by bun and reads them back, deletes them, writes them by
// insertApart and reads them back, and compares the two readings column by column.
func sameBothWays[T any](t *testing.T, s Scope, table string, rows func() []*T, createdAt func(*T) time.Time) {
	t.Helper()
	ctx := context.Background()
	read := func() []map[string]any {
		var got []map[string]any
		if err := s.idb.NewRaw("SELECT * FROM ? WHERE tenant_id = ? ORDER BY id", bun.Ident(table), s.TenantID).Scan(ctx, &got); err != nil {
			t.Fatal(err)
		}
		if _, err := s.idb.NewRaw("DELETE FROM ? WHERE tenant_id = ?", bun.Ident(table), s.TenantID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		return got
	}
	began := time.Now().Add(-time.Minute)
	byBun := rows()
	if _, err := s.Insert(&byBun).Returning("NULL").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	b := read()
	apart := rows()
	var ret []insertReturn
	if err := insertApart(ctx, s, apart, "id, created_at, updated_at", &ret); err != nil {
		t.Fatal(err)
	}
	a := read()
	if len(a) != len(apart) || len(b) != len(apart) || len(ret) != len(apart) {
		t.Fatalf("%s: %d rows by bun, %d apart (%d returned), want %d", table, len(b), len(a), len(ret), len(apart))
	}
	for i := range a {
		if id := a[i]["id"]; fmt.Sprint(id) != fmt.Sprint(ret[i].ID) {
			t.Errorf("%s row %d: id %v, returned %d", table, i, id, ret[i].ID)
		}
		for col, bv := range b[i] {
			av := a[i][col]
			switch col {
			case "id":
				continue
			case "created_at", "updated_at":
				at, bt := av.(time.Time), bv.(time.Time)
				if given := createdAt(apart[i]); col == "created_at" && !given.IsZero() && s.Dialect() == Postgres {
					if want := given.Truncate(time.Microsecond); !at.Equal(want) || !bt.Equal(want) {
						t.Errorf("%s row %d %s: %v apart, %v by bun, want %v", table, i, col, at, bt, want)
					}
				} else if !at.Equal(bt) && (at.Before(began) || bt.Before(began)) {
					t.Errorf("%s row %d %s: %v apart, %v by bun, want the statement's", table, i, col, at, bt)
				}
				continue
			}
			if fmt.Sprintf("%#v", av) != fmt.Sprintf("%#v", bv) {
				t.Errorf("%s row %d %s: %#v apart, %#v by bun", table, i, col, av, bv)
			}
		}
	}
}
