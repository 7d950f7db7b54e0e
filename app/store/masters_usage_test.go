package store_test

import (
	"context"
	"fmt"
	"testing"

	"crm/app/store"
	"crm/app/store/storetest"
)

// TestMasterUsagesAgreeWithTheLeads: the counts a settings list shows, all of a kind at once
// (from the counters for stages, statuses and sources, from the leads grouped for the rest),
// are each master's count of the tenant's leads, after creates, edits that move leads
// between masters and deletes, and never count another tenant's leads.
func TestMasterUsagesAgreeWithTheLeads(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		kinds := []store.MasterKind{store.KindStage, store.KindStatus, store.KindSource, store.KindType, store.KindTitle,
			store.KindBusinessType, store.KindEventType}
		type tenant struct {
			s       store.Scope
			masters map[store.MasterKind][]store.Master
		}
		open := func(name string) tenant {
			tn, admin := newTenant(t, db, name, "boss@"+name+".test")
			tt := tenant{db.System(tn.ID, admin.ID), map[store.MasterKind][]store.Master{}}
			for _, k := range kinds {
				ms, err := tt.s.Masters(ctx, k)
				if err != nil {
					t.Fatal(err)
				}
				tt.masters[k] = ms
			}
			if len(tt.masters[store.KindTitle]) < 2 || len(tt.masters[store.KindBusinessType]) < 2 {
				t.Fatalf("the new tenant has %d titles and %d business types", len(tt.masters[store.KindTitle]), len(tt.masters[store.KindBusinessType]))
			}
			return tt
		}
		acme, other := open("acme"), open("other")
		sales, err := acme.s.CreateUser(ctx, store.NewUser{Email: "sales@acme.test", Name: "Sam", Password: "Secret1!x", Role: store.RoleSales})
		if err != nil {
			t.Fatal(err)
		}
		// The i-th lead takes the (i·step)-th master of each kind, and none every fifth lead.
		input := func(tt tenant, i int) store.LeadInput {
			pick := func(k store.MasterKind, step int) *int64 {
				if i%5 == 4 && k != store.KindStage && k != store.KindStatus {
					return nil
				}
				ms := tt.masters[k]
				return &ms[(i*step)%len(ms)].ID
			}
			in := store.LeadInput{Contact: store.Contact{CustomerName: fmt.Sprintf("Lead %d", i), CompanyEmail: fmt.Sprintf("l%d@x.test", i),
				CompanyTypeID: pick(store.KindBusinessType, 1)},
				LeadStageID: pick(store.KindStage, 1), LeadStatusID: pick(store.KindStatus, 2), LeadSourceID: pick(store.KindSource, 3),
				LeadTypeID: pick(store.KindType, 1)}
			if id := pick(store.KindTitle, 3); id != nil {
				for _, m := range tt.masters[store.KindTitle] {
					if m.ID == *id {
						in.CustomerTitle = m.Name
					}
				}
			}
			if i%3 == 0 {
				in.OwnerID = &sales.ID
			}
			return in
		}
		var leads []*store.LeadView
		for i := range 23 {
			l, _, err := acme.s.CreateLead(ctx, input(acme, i), "", "")
			if err != nil {
				t.Fatal(err)
			}
			leads = append(leads, l)
		}
		for i := range 9 { // the other tenant's leads, on its own masters
			in := input(other, i)
			in.OwnerID = nil
			if _, _, err := other.s.CreateLead(ctx, in, "", ""); err != nil {
				t.Fatal(err)
			}
		}
		// Edits move leads between masters; deletes take them out.
		for i, l := range leads[:6] {
			in := input(acme, i+7)
			in.CompanyEmail = l.CompanyEmail
			if _, err := acme.s.UpdateLead(ctx, l.ID, in); err != nil {
				t.Fatal(err)
			}
		}
		for _, l := range leads[18:21] {
			if err := acme.s.DeleteLead(ctx, l.ID); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range kinds {
			uses, err := acme.s.MasterUsages(ctx, k, acme.masters[k])
			if err != nil {
				t.Fatalf("%s: %v", k, err)
			}
			var total int64
			for _, m := range acme.masters[k] {
				want, err := acme.s.MasterUsage(ctx, &m)
				if err != nil {
					t.Fatal(err)
				}
				if uses[m.ID] != want {
					t.Errorf("%s %q: %d leads counted, %d use it", k, m.Name, uses[m.ID], want)
				}
				total += want
			}
			if k != store.KindEventType && total == 0 {
				t.Errorf("%s: no lead uses any, the test proves nothing", k)
			}
		}
	})
}
