package store_test

import (
	"context"
	"errors"
	"testing"

	"crm/app/store"
	"crm/app/store/storetest"
)

// TestMasterInUseByClients: a business type that only clients use is refused with the
// count of each kind of record, not left to the foreign key; the foreign key itself, and a
// unique key, read as constraint violations on both engines.
func TestMasterInUseByClients(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		tn, u := newTenant(t, db, "Use Co", "use@example.test")
		s := db.System(tn.ID, u.ID)
		bt, err := s.CreateMaster(ctx, store.KindBusinessType, "Wholesale")
		if err != nil {
			t.Fatal(err)
		}
		title, err := s.CreateMaster(ctx, store.KindTitle, "Dame")
		if err != nil {
			t.Fatal(err)
		}
		for i, email := range []string{"a@use.test", "b@use.test", "c@use.test"} {
			in := store.ClientInput{Contact: store.Contact{CustomerName: "Client", CompanyEmail: email,
				CompanyPhoneNumber: "012345678" + string(rune('0'+i)), CompanyTypeID: &bt.ID, CustomerTitle: "Dame"}}
			if _, err := s.CreateClient(ctx, in); err != nil {
				t.Fatal(err)
			}
		}
		for _, m := range []*store.Master{bt, title} {
			err = s.DeleteMaster(ctx, m.Kind, m.ID)
			var inUse *store.InUseError
			if !errors.As(err, &inUse) || inUse.Clients != 3 || inUse.Leads != 0 {
				t.Fatalf("delete %s used by clients: %v", m.Kind, err)
			}
			if id, args := inUse.Refusal(); id != "inputs.inUseClients" || args[1] != int64(3) {
				t.Errorf("refusal: %s %v", id, args)
			}
		}
		// Past the rule, the database's own refusal reads as a foreign-key violation.
		_, err = s.Delete((*store.Master)(nil)).Where("id = ?", bt.ID).Exec(ctx)
		if store.Violated(err) != store.ForeignKey {
			t.Fatalf("raw delete of a used master: %v (%d)", err, store.Violated(err))
		}
		if _, err := s.Insert(&store.SavedView{UserID: u.ID, Name: "Mine", Query: "a=1"}).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		_, err = s.Insert(&store.SavedView{UserID: u.ID, Name: "Mine", Query: "a=2"}).Exec(ctx)
		if store.Violated(err) != store.Unique {
			t.Fatalf("duplicate saved view: %v (%d)", err, store.Violated(err))
		}
		if store.Violated(errors.New("other")) != store.NoConstraint || store.Violated(nil) != store.NoConstraint {
			t.Fatal("a plain error is not a constraint violation")
		}
	})
}
