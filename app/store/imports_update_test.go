package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/uptrace/bun"
)

// An import batch's updates are written in one statement (updateByID: on PostgreSQL with
// their values apart from the text, arrays read with unnest; on SQLite as VALUES). The same
// changes written by bun, a statement a record with the values in its text, leave every
// column of every lead alike: text with quotes, accents, line breaks and an invalid byte,
// NULLs, addresses, references set and cleared, a time given to the nanosecond, and a
// column only some records change (their flag keeps the others' value).
func TestImportUpdatesReadBackAsBunWritesThem(t *testing.T) {
	t.Parallel()
	eachImportDB(t, func(t *testing.T, db *DB, s Scope, admin, rep *User) {
		ctx := context.Background()
		m := masterIDs(t, s)
		var ids []int64
		for i := range 4 {
			v, _, err := s.CreateLead(ctx, LeadInput{Contact: Contact{CustomerName: fmt.Sprintf("Lead %d", i), CompanyName: "Co",
				CompanyEmail: fmt.Sprintf("u%d@x.test", i), OwnerID: &rep.ID, BillingAddress: &Address{FlatNo: "7", City: "Chennai"},
				Notes: "old"}, LeadStageID: &m[KindStage][0], LeadSourceID: &m[KindSource][0]}, "", "")
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, v.ID)
		}
		str := func(v string) *string { return &v }
		at := time.Date(2026, 5, 6, 7, 8, 9, 123456789, time.UTC)
		shipping := (&Address{FlatNo: "1", Street: "x\x1fy", City: "Pune", Country: "IN"}).column() // a part holding the separator
		recs := []changedColumns{
			{ids[0], []columnValue{{"customer_name", "Zoë O'Brien \"Q\""}, {"notes", "line one\nline two, l'été <b> \\ back"},
				{"search_text", "zoe o'brien"}, {"billing_address", (*string)(nil)}, {"shipping_address", &shipping},
				{"lead_stage_id", &m[KindStage][1]}, {"owner_id", (*int64)(nil)}, {"updated_at", at}}},
			{ids[1], []columnValue{{"customer_name", "bad \xff byte"}, {"company_email", "U1@X.test"}, {"notes", ""},
				{"search_text", "bad byte"}, {"lead_stage_id", (*int64)(nil)}, {"updated_at", at.Add(time.Second)}}},
			{ids[2], []columnValue{{"customer_name", "Ærø"}, {"notes", "{\"a\":[1,2]}"}, {"search_text", "aero"},
				{"lead_stage_id", &m[KindStage][2]}, {"owner_id", &admin.ID}, {"lead_source_id", &m[KindSource][1]},
				{"updated_at", at.Add(time.Minute)}}},
			{ids[3], []columnValue{{"company_name", "NULL"}, {"billing_address", str("")}, {"updated_at", at.Add(time.Hour)}}},
		}
		read := func(write func(tx Scope) error) []map[string]any {
			var got []map[string]any
			err := s.Tx(ctx, func(tx Scope) error {
				if err := write(tx); err != nil {
					return err
				}
				if err := tx.idb.NewRaw("SELECT * FROM leads WHERE tenant_id = ? ORDER BY id", s.TenantID).Scan(ctx, &got); err != nil {
					return err
				}
				return errRollback
			})
			if !errors.Is(err, errRollback) {
				t.Fatal(err)
			}
			return got
		}
		byBun := read(func(tx Scope) error {
			for _, r := range recs {
				q := tx.idb.NewUpdate().Table("leads").Where("id = ? AND tenant_id = ?", r.id, s.TenantID)
				for _, c := range r.columns {
					q = q.Set("? = ?", bun.Ident(c.column), c.value)
				}
				if _, err := q.Exec(ctx); err != nil {
					return err
				}
			}
			return nil
		})
		byBatch := read(func(tx Scope) error { return tx.updateByID(ctx, LeadEntity, recs) })
		if len(byBun) != len(ids) || len(byBatch) != len(ids) {
			t.Fatalf("%d leads by bun, %d by the batch, want %d", len(byBun), len(byBatch), len(ids))
		}
		for i := range byBun {
			for col, want := range byBun[i] {
				got := byBatch[i][col]
				if wt, ok := want.(time.Time); ok {
					if gt, ok := got.(time.Time); !ok || !gt.Equal(wt) {
						t.Errorf("lead %d %s: %v by the batch, %v by bun", i, col, got, want)
					}
					continue
				}
				if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
					t.Errorf("lead %d %s: %#v by the batch, %#v by bun", i, col, got, want)
				}
			}
		}
		// What the test compares did change, to what the changes say.
		if byBatch[0]["owner_id"] != nil || fmt.Sprint(byBatch[3]["owner_id"]) != fmt.Sprint(rep.ID) ||
			fmt.Sprint(byBatch[2]["lead_source_id"]) != fmt.Sprint(m[KindSource][1]) || fmt.Sprint(byBatch[1]["lead_source_id"]) != fmt.Sprint(m[KindSource][0]) {
			t.Errorf("owners %v %v, sources %v %v", byBatch[0]["owner_id"], byBatch[3]["owner_id"], byBatch[2]["lead_source_id"], byBatch[1]["lead_source_id"])
		}
		if u, ok := byBatch[0]["updated_at"].(time.Time); !ok || !u.Equal(at.Truncate(time.Microsecond)) {
			t.Errorf("updated_at %v, want %v", byBatch[0]["updated_at"], at.Truncate(time.Microsecond))
		}
	})
}
