package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"crm/app/auth"
	"crm/app/validate"
)

// errRollback undoes a create after its result was read.
var errRollback = errors.New("rollback")

// An import creates leads and clients by the create rules of CreateLead and CreateClient
// without a query per row (importLead and importClient, over the batch's masters and
// users). These tests hold the two together: for the same input, the same record or the
// same refusal.
func openImportTestDB(t *testing.T) (*DB, Scope, *User, *User) {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "crm.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	tn, admin, err := db.CreateTenant(ctx, NewTenant{Name: "Acme", AdminEmail: "admin@x.test", AdminPassword: "Secret1!x"})
	if err != nil {
		t.Fatal(err)
	}
	s := db.Tenant(tn.ID, admin.ID)
	rep, err := s.CreateUser(ctx, NewUser{Email: "rep@x.test", Password: "Secret1!x", Role: RoleSales})
	if err != nil {
		t.Fatal(err)
	}
	return db, s, admin, rep
}

func TestImportLeadMatchesCreateLead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s, _, rep := openImportTestDB(t)
	ids := map[MasterKind][]int64{}
	for _, k := range []MasterKind{KindStage, KindStatus, KindSource, KindType, KindBusinessType} {
		ms, err := s.Masters(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			ids[k] = append(ids[k], m.ID)
		}
	}
	p := func(n int64) *int64 { return &n }
	past := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	future := time.Now().Add(time.Hour)
	otherTenant, otherAdmin, err := db.CreateTenant(ctx, NewTenant{Name: "Other", AdminEmail: "o@x.test", AdminPassword: "Secret1!x"})
	if err != nil {
		t.Fatal(err)
	}
	otherStage, err := db.Tenant(otherTenant.ID, otherAdmin.ID).Masters(ctx, KindStage)
	if err != nil {
		t.Fatal(err)
	}
	inputs := []LeadInput{
		{CustomerName: "Plain", CompanyEmail: "PLAIN@x.test "},
		{CustomerName: "All", CompanyEmail: "all@x.test", CustomerTitle: "Dr.", CompanyName: "All Co", CompanyDialCode: "+91",
			CompanyPhoneNumber: "9876543210", LeadStageID: p(ids[KindStage][1]), LeadStatusID: p(ids[KindStatus][2]),
			LeadSourceID: p(ids[KindSource][1]), LeadTypeID: p(ids[KindType][0]), CompanyTypeID: p(ids[KindBusinessType][2]),
			OwnerID: &rep.ID, BillingAddress: &Address{FlatNo: " 1 ", City: "Chennai"}, ShippingAddress: &Address{Country: "India"},
			Notes: "n", CreatedAt: &past},
		{CustomerName: "Wrong kinds", CompanyEmail: "w@x.test", LeadStageID: p(ids[KindStatus][0]), LeadTypeID: p(ids[KindStage][0]),
			CompanyTypeID: p(999999), LeadSourceID: p(0)},
		{CustomerName: "Other tenant's stage", CompanyEmail: "o@x.test", LeadStageID: &otherStage[0].ID},
		{CustomerName: "Future", CompanyEmail: "f@x.test", CreatedAt: &future},
		{CustomerName: "No owner", CompanyEmail: "n@x.test", OwnerID: p(999999)},
		{CustomerName: "", CompanyEmail: "bad", CompanyPhoneNumber: "12"},
		{CustomerName: "<b>x</b>", CompanyEmail: "h@x.test", BillingAddress: &Address{City: "<i>"}},
	}
	for _, own := range []bool{false, true} {
		sc := s
		if own {
			sc = db.Tenant(s.TenantID, rep.ID).WithPermissions(auth.Permissions{auth.FeatureLeads: {View: true, Create: true, Scope: auth.ScopeOwn}})
		}
		for i, in := range inputs {
			var want *Lead
			err := sc.Tx(ctx, func(tx Scope) error {
				v, _, err := tx.CreateLead(ctx, in, "", "")
				if err != nil {
					return err
				}
				l := v.Lead
				want = &l
				return errRollback // read what CreateLead made, and take it away again
			})
			wantErr := err
			if errors.Is(err, errRollback) {
				wantErr = nil
			}
			refs, err := sc.loadRefs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, gotErr := sc.importLead(refs, in)
			name := fmt.Sprintf("own=%v input %d (%s)", own, i, in.CustomerName)
			var wantVE, gotVE validate.Errors
			if errors.As(wantErr, &wantVE) != errors.As(gotErr, &gotVE) || !reflect.DeepEqual(wantVE, gotVE) {
				t.Errorf("%s: CreateLead %v, import %v", name, wantErr, gotErr)
				continue
			}
			if want == nil {
				continue
			}
			got.TenantID, got.ID = want.TenantID, want.ID
			if in.CreatedAt == nil || got.CreatedAt.IsZero() || got.CreatedAt.Equal(want.CreatedAt) {
				got.CreatedAt = want.CreatedAt // the database's default, or the same instant read back
			}
			if got.SearchText != want.SearchText {
				t.Errorf("%s: search text %q, want %q", name, got.SearchText, want.SearchText)
			}
			got.UpdatedAt = want.UpdatedAt
			if !reflect.DeepEqual(*want, *got) {
				t.Errorf("%s:\nCreateLead %s\nimport     %s", name, jsonText(want), jsonText(got))
			}
		}
	}
}

func TestImportClientMatchesCreateClient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, s, _, rep := openImportTestDB(t)
	bt, err := s.Masters(ctx, KindBusinessType)
	if err != nil {
		t.Fatal(err)
	}
	stages, _ := s.Masters(ctx, KindStage)
	p := func(n int64) *int64 { return &n }
	inputs := []ClientInput{
		{CustomerName: "Plain", CompanyEmail: "plain@x.test"},
		{CustomerName: "Typed", CompanyEmail: "t@x.test", CompanyTypeID: &bt[1].ID, OwnerID: &rep.ID, Notes: "x",
			BillingAddress: &Address{City: " Pune "}},
		{CustomerName: "Stage as type", CompanyEmail: "s@x.test", CompanyTypeID: &stages[0].ID},
		{CustomerName: "Zero type", CompanyEmail: "z@x.test", CompanyTypeID: p(0)},
		{CustomerName: "No owner", CompanyEmail: "n@x.test", OwnerID: p(999999)},
		{CompanyEmail: "nameless@x.test", CompanyPhoneNumber: "abc"},
	}
	for _, own := range []bool{false, true} {
		sc := s
		if own {
			sc = db.Tenant(s.TenantID, rep.ID).WithPermissions(auth.Permissions{
				auth.FeatureLeads: {View: true, Scope: auth.ScopeOwn}, auth.FeatureClients: {View: true, Create: true, Scope: auth.ScopeOwn}})
		}
		for i, in := range inputs {
			var want *Client
			err := sc.Tx(ctx, func(tx Scope) error {
				v, err := tx.CreateClient(ctx, in)
				if err != nil {
					return err
				}
				c := v.Client
				want = &c
				return errRollback
			})
			wantErr := err
			if errors.Is(err, errRollback) {
				wantErr = nil
			}
			refs, err := sc.loadRefs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, gotErr := sc.importClient(refs, in)
			name := fmt.Sprintf("own=%v input %d (%s)", own, i, in.CustomerName)
			var wantVE, gotVE validate.Errors
			if errors.As(wantErr, &wantVE) != errors.As(gotErr, &gotVE) || !reflect.DeepEqual(wantVE, gotVE) {
				t.Errorf("%s: CreateClient %v, import %v", name, wantErr, gotErr)
				continue
			}
			if want == nil {
				continue
			}
			got.TenantID, got.ID, got.CreatedAt, got.UpdatedAt = want.TenantID, want.ID, want.CreatedAt, want.UpdatedAt
			if !reflect.DeepEqual(*want, *got) {
				t.Errorf("%s:\nCreateClient %s\nimport       %s", name, jsonText(want), jsonText(got))
			}
		}
	}
}
