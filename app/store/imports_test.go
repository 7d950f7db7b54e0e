// Long on purpose: the import machinery (claim, batches, resume after a stopped runner,
// set-based updates, undo exactly once) is tested end to end on both databases, with the
// equal-outcome tests against single creates and updates.

package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"crm/app/auth"
	"crm/app/store/testclone"
	"crm/app/validate"
	"github.com/uptrace/bun"
)

// errRollback undoes a create after its result was read.
var errRollback = errors.New("rollback")

// An import creates and updates leads and clients by the rules of CreateLead, UpdateLead,
// CreateClient and UpdateClient without a query per row: importLead, importLeadUpdate,
// importClient and importClientUpdate call the same rule functions (newLead,
// checkLeadEdit, checkClient, editedClient) over the batch's masters and users instead of
// the database. These tests prove the outcomes equal: for the same input, the same record
// (and journey) or the same refusal.

// eachImportDB runs fn once per engine, each on a fresh migrated database with a tenant,
// its administrator and a sales rep: SQLite, and PostgreSQL (a database of its own) when
// TEST_DATABASE_URL is set, copies of testclone's templates as storetest's (which this
// package's own tests cannot use).
func eachImportDB(t *testing.T, fn func(t *testing.T, db *DB, s Scope, admin, rep *User)) {
	t.Helper()
	dialects := []Dialect{SQLite}
	if os.Getenv("TEST_DATABASE_URL") != "" {
		dialects = append(dialects, Postgres)
	}
	for _, d := range dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			db, s, admin, rep := openImportTestDB(t, d)
			fn(t, db, s, admin, rep)
		})
	}
}

func openImportTestDB(t *testing.T, d Dialect) (*DB, Scope, *User, *User) {
	t.Helper()
	ctx := context.Background()
	var url string
	if d == Postgres {
		url = testclone.Postgres(t, os.Getenv("TEST_DATABASE_URL"), migrateTemplate)
	} else {
		url = testclone.SQLite(t, migrateTemplate)
	}
	db, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if d == Postgres {
		db = asTestAppRole(t, db, url)
	}
	tn, admin, err := db.CreateTenant(ctx, NewTenant{DefaultLocale: "en_US", Name: "Acme", AdminEmail: "admin@x.test", AdminPassword: "Secret1!x"})
	if err != nil {
		t.Fatal(err)
	}
	s := db.System(tn.ID, admin.ID)
	rep, err := s.CreateUser(ctx, NewUser{Email: "rep@x.test", Password: "Secret1!x", Role: RoleSales})
	if err != nil {
		t.Fatal(err)
	}
	return db, s, admin, rep
}

// migrateTemplate migrates a template for testclone, as storetest's does.
func migrateTemplate(ctx context.Context, url string) error {
	db, err := Open(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Migrate(ctx)
	return err
}

// asTestAppRole reopens the migrated owner's db as the role storetest's tests use
// (storetest.AppRole, which this package's own tests cannot import), so row-level security
// binds the import tests too.
func asTestAppRole(t *testing.T, owner *DB, ownerURL string) *DB {
	t.Helper()
	ctx := context.Background()
	const role = "crm_test_app"
	var exists bool
	if err := owner.bun.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ?)", role).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if !exists {
		if _, err := owner.bun.ExecContext(ctx, "CREATE ROLE "+role+" LOGIN NOSUPERUSER NOBYPASSRLS"); err != nil &&
			!strings.Contains(err.Error(), "already exists") && !strings.Contains(err.Error(), "duplicate key") {
			t.Fatal(err)
		}
	}
	if err := owner.GrantApp(ctx, role); err != nil {
		t.Fatal(err)
	}
	u, err := neturl.Parse(ownerURL)
	if err != nil {
		t.Fatal(err)
	}
	u.User = neturl.User(role)
	db, err := Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := db.CheckAppRole(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestImportLeadMatchesCreateLead(t *testing.T) {
	t.Parallel()
	eachImportDB(t, testImportLeadMatchesCreateLead)
}

func testImportLeadMatchesCreateLead(t *testing.T, db *DB, s Scope, _, rep *User) {
	ctx := context.Background()
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
	otherTenant, otherAdmin, err := db.CreateTenant(ctx, NewTenant{DefaultLocale: "en_US", Name: "Other", AdminEmail: "o@x.test", AdminPassword: "Secret1!x"})
	if err != nil {
		t.Fatal(err)
	}
	otherStage, err := db.System(otherTenant.ID, otherAdmin.ID).Masters(ctx, KindStage)
	if err != nil {
		t.Fatal(err)
	}
	inputs := []LeadInput{
		{Contact: Contact{CustomerName: "Plain", CompanyEmail: "PLAIN@x.test "}},
		{Contact: Contact{CustomerName: "All", CompanyEmail: "all@x.test", CustomerTitle: "Dr.", CompanyName: "All Co", CompanyDialCode: "+91",
			CompanyPhoneNumber: "9876543210",
			CompanyTypeID:      p(ids[KindBusinessType][2]),
			OwnerID:            &rep.ID, BillingAddress: &Address{FlatNo: " 1 ", City: "Chennai"}, ShippingAddress: &Address{Country: "India"},
			Notes: "n",
		}, LeadStageID: p(ids[KindStage][1]), LeadStatusID: p(ids[KindStatus][2]),
			LeadSourceID: p(ids[KindSource][1]), LeadTypeID: p(ids[KindType][0]), CreatedAt: &past},
		{Contact: Contact{CustomerName: "Wrong kinds", CompanyEmail: "w@x.test",
			CompanyTypeID: p(999999),
		}, LeadStageID: p(ids[KindStatus][0]), LeadTypeID: p(ids[KindStage][0]), LeadSourceID: p(0)},
		{Contact: Contact{CustomerName: "Other tenant's stage", CompanyEmail: "o@x.test"}, LeadStageID: &otherStage[0].ID},
		{Contact: Contact{CustomerName: "Future", CompanyEmail: "f@x.test"}, CreatedAt: &future},
		{Contact: Contact{CustomerName: "No owner", CompanyEmail: "n@x.test", OwnerID: p(999999)}},
		{Contact: Contact{CustomerName: "", CompanyEmail: "bad", CompanyPhoneNumber: "12"}},
		{Contact: Contact{CustomerName: "<b>x</b>", CompanyEmail: "h@x.test", BillingAddress: &Address{City: "<i>"}}},
	}
	for _, own := range []bool{false, true} {
		sc := s
		if own {
			sc = db.System(s.TenantID, rep.ID).WithPermissions(auth.Permissions{auth.FeatureLeads: {View: auth.ScopeOwn, Create: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn}})
		}
		for i, in := range inputs {
			var want *Lead
			err := sc.Tx(ctx, func(tx Scope) error {
				v, _, err := tx.CreateLead(ctx, in, "", "")
				if err != nil {
					return err
				}
				// The row as stored, its search text too (which a LeadView does not read).
				if want, err = tx.leadForUpdate(ctx, v.ID); err != nil {
					return err
				}
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
	eachImportDB(t, testImportClientMatchesCreateClient)
}

func testImportClientMatchesCreateClient(t *testing.T, db *DB, s Scope, _, rep *User) {
	ctx := context.Background()
	bt, err := s.Masters(ctx, KindBusinessType)
	if err != nil {
		t.Fatal(err)
	}
	stages, _ := s.Masters(ctx, KindStage)
	p := func(n int64) *int64 { return &n }
	inputs := []ClientInput{
		{Contact: Contact{CustomerName: "Plain", CompanyEmail: "plain@x.test"}},
		{Contact: Contact{CustomerName: "Typed", CompanyEmail: "t@x.test", CompanyTypeID: &bt[1].ID, OwnerID: &rep.ID, Notes: "x",
			BillingAddress: &Address{City: " Pune "},
		}},
		{Contact: Contact{CustomerName: "Stage as type", CompanyEmail: "s@x.test", CompanyTypeID: &stages[0].ID}},
		{Contact: Contact{CustomerName: "Zero type", CompanyEmail: "z@x.test", CompanyTypeID: p(0)}},
		{Contact: Contact{CustomerName: "No owner", CompanyEmail: "n@x.test", OwnerID: p(999999)}},
		{Contact: Contact{CompanyEmail: "nameless@x.test", CompanyPhoneNumber: "abc"}},
	}
	for _, own := range []bool{false, true} {
		sc := s
		if own {
			sc = db.System(s.TenantID, rep.ID).WithPermissions(auth.Permissions{
				auth.FeatureLeads: {View: auth.ScopeOwn, Export: auth.ScopeOwn}, auth.FeatureClients: {View: auth.ScopeOwn, Create: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn}})
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

func cloneLeadInput(in LeadInput) LeadInput {
	in.BillingAddress, in.ShippingAddress = copyAddress(in.BillingAddress), copyAddress(in.ShippingAddress)
	return in
}

// sameJSON compares two journey values as JSON (PostgreSQL keeps them as jsonb, in its own
// spacing and key order), without the keys given.
func sameJSON(a, b *string, without ...string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var x, y any
	if json.Unmarshal([]byte(*a), &x) != nil || json.Unmarshal([]byte(*b), &y) != nil {
		return false
	}
	for _, v := range []any{x, y} {
		if m, ok := v.(map[string]any); ok {
			for _, k := range without {
				delete(m, k)
			}
		}
	}
	return reflect.DeepEqual(x, y)
}

func str(p *string) string {
	if p == nil {
		return "nil"
	}
	return *p
}

// journeySince reads the journey entries written after entry id after, oldest first.
func journeySince(ctx context.Context, s Scope, after int64) ([]AuditEntry, error) {
	var out []AuditEntry
	err := s.Select(&out).Where("id > ?", after).OrderExpr("id").Scan(ctx)
	return out, err
}

func lastEntry(ctx context.Context, s Scope) (int64, error) {
	var id int64
	err := s.Select((*AuditEntry)(nil)).ColumnExpr("COALESCE(MAX(id), 0)").Scan(ctx, &id)
	return id, err
}

func compareEntries(t *testing.T, name string, want, got []AuditEntry, without ...string) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%s: %d journey entries, UpdateLead/UpdateClient made %d", name, len(got), len(want))
		return
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Entity != g.Entity || w.EntityID != g.EntityID || w.Action != g.Action || !reflect.DeepEqual(w.ActorUserID, g.ActorUserID) ||
			!sameJSON(w.Before, g.Before, without...) || !sameJSON(w.After, g.After, without...) {
			t.Errorf("%s: entry %d\nwant %s %s#%d %s → %s\ngot  %s %s#%d %s → %s", name, i, w.Action, w.Entity, w.EntityID,
				str(w.Before), str(w.After), g.Action, g.Entity, g.EntityID, str(g.Before), str(g.After))
		}
	}
}

func masterIDs(t *testing.T, s Scope) map[MasterKind][]int64 {
	t.Helper()
	ids := map[MasterKind][]int64{}
	for _, k := range []MasterKind{KindStage, KindStatus, KindSource, KindType, KindBusinessType} {
		ms, err := s.Masters(context.Background(), k)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			ids[k] = append(ids[k], m.ID)
		}
	}
	return ids
}

// An update by an import makes the record UpdateLead makes, refuses what it refuses, and
// records the journey entries it records (one "update" with each changed field before and
// after, names for masters and the owner, and the stage, status and owner entries).
func TestImportLeadUpdateMatchesUpdateLead(t *testing.T) {
	t.Parallel()
	eachImportDB(t, func(t *testing.T, db *DB, s Scope, admin, rep *User) {
		ctx := context.Background()
		ids := masterIDs(t, s)
		p := func(n int64) *int64 { return &n }
		otherTenant, otherAdmin, err := db.CreateTenant(ctx, NewTenant{DefaultLocale: "en_US", Name: "Other", AdminEmail: "o@x.test", AdminPassword: "Secret1!x"})
		if err != nil {
			t.Fatal(err)
		}
		otherStage := masterIDs(t, db.System(otherTenant.ID, otherAdmin.ID))[KindStage][0]
		full, _, err := s.CreateLead(ctx, LeadInput{Contact: Contact{CustomerTitle: "Mr.", CustomerName: "Full", CompanyName: "Full Co",
			CompanyEmail: "full@x.test", CompanyDialCode: "+91", CompanyPhoneNumber: "9876543210",
			CompanyTypeID: p(ids[KindBusinessType][1]), OwnerID: &rep.ID, BillingAddress: &Address{FlatNo: "1", City: "Chennai"},
			Notes: "n",
		}, LeadStageID: p(ids[KindStage][1]),
			LeadStatusID: p(ids[KindStatus][1]), LeadSourceID: p(ids[KindSource][1]), LeadTypeID: p(ids[KindType][1])}, "", "")
		if err != nil {
			t.Fatal(err)
		}
		bare, _, err := db.System(s.TenantID, rep.ID).CreateLead(ctx, LeadInput{Contact: Contact{CustomerName: "Bare", CompanyEmail: "bare@x.test"}}, "", "")
		if err != nil {
			t.Fatal(err)
		}
		inputs := []LeadInput{
			{Contact: Contact{CustomerName: "Renamed", CompanyEmail: "FULL@x.test "}}, // the rest cleared, stage, status, source and owner kept
			{Contact: Contact{CustomerTitle: "Dr.", CustomerName: "Moved", CompanyName: "Full Co", CompanyEmail: "full@x.test", CompanyDialCode: "+91",
				CompanyPhoneNumber: "9876543210",
				CompanyTypeID:      p(ids[KindBusinessType][0]),
				OwnerID:            &admin.ID, BillingAddress: &Address{FlatNo: " 1 ", City: " Pune "}, ShippingAddress: &Address{Country: "India"}, Notes: "m",
			}, LeadStageID: p(ids[KindStage][2]), LeadStatusID: p(ids[KindStatus][0]),
				LeadSourceID: p(ids[KindSource][2]), LeadTypeID: p(ids[KindType][0])},
			{Contact: Contact{CustomerTitle: "Mr.", CustomerName: "Full", CompanyName: "Full Co", CompanyEmail: "full@x.test", CompanyDialCode: "+91",
				CompanyPhoneNumber: "9876543210",
				CompanyTypeID:      p(ids[KindBusinessType][1]), BillingAddress: &Address{FlatNo: "1", City: "Chennai"}, Notes: "n",
			}, LeadStageID: p(ids[KindStage][1]), LeadTypeID: p(ids[KindType][1])}, // nothing new for full
			{Contact: Contact{CustomerName: "Mine", CompanyEmail: "full@x.test", OwnerID: &rep.ID}, LeadStageID: p(0)},
			{Contact: Contact{CustomerName: "Wrong kinds", CompanyEmail: "w@x.test",
				CompanyTypeID: p(999999),
			}, LeadStageID: p(ids[KindStatus][0]), LeadTypeID: p(ids[KindStage][0]), LeadSourceID: p(0)},
			{Contact: Contact{CustomerName: "Other tenant's stage", CompanyEmail: "o@x.test"}, LeadStageID: &otherStage},
			{Contact: Contact{CustomerName: "No owner", CompanyEmail: "n@x.test", OwnerID: p(999999)}},
			{Contact: Contact{CustomerName: "", CompanyEmail: "bad", CompanyPhoneNumber: "12", Notes: "<b>x</b>", ShippingAddress: &Address{City: "<i>"}}},
		}
		own := db.System(s.TenantID, rep.ID).WithPermissions(auth.Permissions{
			auth.FeatureLeads: {View: auth.ScopeOwn, Create: auth.ScopeOwn, Update: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn}})
		for _, sc := range []Scope{s, own} {
			for _, lead := range []*LeadView{full, bare} {
				for i, in := range inputs {
					name := fmt.Sprintf("user %d, lead %s, input %d (%s)", sc.UserID, lead.CustomerName, i, in.CustomerName)
					var want *Lead
					var wantEntries []AuditEntry
					err := sc.Tx(ctx, func(tx Scope) error {
						last, err := lastEntry(ctx, tx)
						if err != nil {
							return err
						}
						if _, err := tx.UpdateLead(ctx, lead.ID, cloneLeadInput(in)); err != nil {
							return err
						}
						// The row as stored, its search text too (which a LeadView does not read).
						if want, err = tx.leadForUpdate(ctx, lead.ID); err != nil {
							return err
						}
						if wantEntries, err = journeySince(ctx, tx, last); err != nil {
							return err
						}
						return errRollback // read what UpdateLead did, and take it away again
					})
					wantErr := err
					if errors.Is(err, errRollback) {
						wantErr = nil
					}
					refs, err := sc.loadRefs(ctx)
					if err != nil {
						t.Fatal(err)
					}
					old, err := sc.leadForUpdate(ctx, lead.ID)
					if err != nil {
						t.Fatal(err)
					}
					oldCopy := *old
					got, gotErr := sc.importLeadUpdate(refs, old, cloneLeadInput(in))
					var wantVE, gotVE validate.Errors
					if errors.As(wantErr, &wantVE) != errors.As(gotErr, &gotVE) || !reflect.DeepEqual(wantVE, gotVE) {
						t.Errorf("%s: UpdateLead %v, import %v", name, wantErr, gotErr)
						continue
					}
					if want == nil {
						continue
					}
					if !reflect.DeepEqual(*old, oldCopy) {
						t.Errorf("%s: the old record was changed", name)
					}
					changes, special, err := leadDiff(old, got, func(id *int64, user bool) (string, error) { return sc.name(ctx, refs, id, user) })
					if err != nil {
						t.Fatal(err)
					}
					var entries []AuditEntry
					if len(changes) > 0 {
						if entries, err = leadChangeEntries(sc.actor(), lead.ID, changes, special); err != nil {
							t.Fatal(err)
						}
					} else {
						got.UpdatedAt = old.UpdatedAt // nothing written
					}
					if got.SearchText != want.SearchText {
						t.Errorf("%s: search text %q, want %q", name, got.SearchText, want.SearchText)
					}
					if len(changes) > 0 && !got.UpdatedAt.After(old.UpdatedAt) {
						t.Errorf("%s: updated_at %s not after %s", name, got.UpdatedAt, old.UpdatedAt)
					}
					got.UpdatedAt = want.UpdatedAt
					if got.CreatedAt.Equal(want.CreatedAt) {
						got.CreatedAt = want.CreatedAt // the same instant, read back by another query
					}
					if !reflect.DeepEqual(*want, *got) {
						t.Errorf("%s:\nUpdateLead %s\nimport     %s", name, jsonText(want), jsonText(got))
					}
					compareEntries(t, name, wantEntries, entries)
				}
			}
		}
	})
}

func TestImportClientUpdateMatchesUpdateClient(t *testing.T) {
	t.Parallel()
	eachImportDB(t, func(t *testing.T, db *DB, s Scope, admin, rep *User) {
		ctx := context.Background()
		bt := masterIDs(t, s)[KindBusinessType]
		stages := masterIDs(t, s)[KindStage]
		p := func(n int64) *int64 { return &n }
		full, err := s.CreateClient(ctx, ClientInput{Contact: Contact{CustomerName: "Full", CompanyEmail: "full@x.test", CompanyTypeID: &bt[1],
			OwnerID: &rep.ID, BillingAddress: &Address{City: "Pune"}, Notes: "n",
		}})
		if err != nil {
			t.Fatal(err)
		}
		inputs := []ClientInput{
			{Contact: Contact{CustomerName: "Renamed", CompanyEmail: "FULL@x.test "}},
			{Contact: Contact{CustomerTitle: "Dr.", CustomerName: "Typed", CompanyEmail: "full@x.test", CompanyTypeID: &bt[0], OwnerID: &admin.ID,
				ShippingAddress: &Address{Country: " India "},
			}},
			{Contact: Contact{CustomerName: "Mine", CompanyEmail: "full@x.test", OwnerID: &rep.ID, CompanyTypeID: p(0)}},
			{Contact: Contact{CustomerName: "Stage as type", CompanyEmail: "full@x.test", CompanyTypeID: &stages[0]}},
			{Contact: Contact{CustomerName: "No owner", CompanyEmail: "full@x.test", OwnerID: p(999999)}},
			{Contact: Contact{CompanyEmail: "nameless@x.test", CompanyPhoneNumber: "abc"}},
		}
		own := db.System(s.TenantID, rep.ID).WithPermissions(auth.Permissions{
			auth.FeatureLeads: {View: auth.ScopeOwn, Export: auth.ScopeOwn}, auth.FeatureClients: {View: auth.ScopeOwn, Create: auth.ScopeOwn, Update: auth.ScopeOwn, Export: auth.ScopeOwn, Import: auth.ScopeOwn}})
		for _, sc := range []Scope{s, own} {
			for i, in := range inputs {
				name := fmt.Sprintf("user %d, input %d (%s)", sc.UserID, i, in.CustomerName)
				var want *Client
				var wantEntries []AuditEntry
				clone := func() ClientInput {
					c := in
					c.BillingAddress, c.ShippingAddress = copyAddress(in.BillingAddress), copyAddress(in.ShippingAddress)
					return c
				}
				err := sc.Tx(ctx, func(tx Scope) error {
					last, err := lastEntry(ctx, tx)
					if err != nil {
						return err
					}
					v, err := tx.UpdateClient(ctx, full.ID, clone())
					if err != nil {
						return err
					}
					c := v.Client
					want = &c
					if wantEntries, err = journeySince(ctx, tx, last); err != nil {
						return err
					}
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
				old := &Client{}
				if err := sc.clients(old).Where("c.id = ?", full.ID).Scan(ctx); err != nil {
					t.Fatal(err)
				}
				got, gotErr := sc.importClientUpdate(refs, old, clone())
				var wantVE, gotVE validate.Errors
				if errors.As(wantErr, &wantVE) != errors.As(gotErr, &gotVE) || !reflect.DeepEqual(wantVE, gotVE) {
					t.Errorf("%s: UpdateClient %v, import %v", name, wantErr, gotErr)
					continue
				}
				if want == nil {
					continue
				}
				e := AuditEntry{ActorUserID: sc.actor(), Entity: EntityClient, EntityID: full.ID, Action: "update"}
				e.Before, _ = jsonOrNil(old)
				e.After, _ = jsonOrNil(got)
				got.UpdatedAt = want.UpdatedAt
				if got.CreatedAt.Equal(want.CreatedAt) {
					got.CreatedAt = want.CreatedAt
				}
				if !reflect.DeepEqual(*want, *got) {
					t.Errorf("%s:\nUpdateClient %s\nimport       %s", name, jsonText(want), jsonText(got))
				}
				compareEntries(t, name, wantEntries, []AuditEntry{e}, "updated_at")
			}
		}
	})
}

// checkCounters compares every counter the triggers keep (lead_counts, lead_day_counts,
// lead_user_counts, client_day_counts) with the same figures counted from the leads and clients themselves.
func checkCounters(t *testing.T, db *DB, step string) {
	t.Helper()
	ctx := context.Background()
	day, keptDay := func(col string) string { return "date(" + col + ")" }, "day"
	if db.Dialect == Postgres {
		day = func(col string) string { return "to_char((" + col + " AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD')" }
		keptDay = "to_char(day, 'YYYY-MM-DD')"
	}
	whose := func(a string) string { // the all-records counter, the owner's, and the creator's when another user
		return "CASE w.k WHEN 0 THEN 0 WHEN 1 THEN " + a + ".owner_id ELSE CASE WHEN " + a + ".created_by IS DISTINCT FROM " +
			a + ".owner_id THEN " + a + ".created_by END END"
	}
	const ways = "CROSS JOIN (SELECT 0 AS k UNION ALL SELECT 1 UNION ALL SELECT 2) AS w"
	for _, c := range []struct{ what, kept, counted string }{
		{"lead_counts",
			"SELECT tenant_id AS t, stage_id AS a, owner_id AS b, created_by AS c, status_id AS d, '' AS day, n FROM lead_counts WHERE n <> 0",
			"SELECT tenant_id AS t, COALESCE(lead_stage_id, 0) AS a, COALESCE(owner_id, 0) AS b, COALESCE(created_by, 0) AS c, " +
				"COALESCE(lead_status_id, 0) AS d, '' AS day, count(*) AS n FROM leads GROUP BY 1, 2, 3, 4, 5"},
		{"lead_day_counts",
			"SELECT tenant_id AS t, user_id AS a, stage_id AS b, status_id AS c, source_id AS d, " + keptDay + " AS day, n " +
				"FROM lead_day_counts WHERE n <> 0",
			"SELECT t, a, b, c, d, day, count(*) AS n FROM (SELECT l.tenant_id AS t, " + whose("l") + " AS a, " +
				"COALESCE(l.lead_stage_id, 0) AS b, COALESCE(l.lead_status_id, 0) AS c, COALESCE(l.lead_source_id, 0) AS d, " +
				day("l.created_at") + " AS day FROM leads AS l " + ways + ") AS x WHERE a IS NOT NULL GROUP BY t, a, b, c, d, day"},
		{"lead_user_counts",
			"SELECT tenant_id AS t, user_id AS a, stage_id AS b, status_id AS c, 0 AS d, '' AS day, n FROM lead_user_counts WHERE n <> 0",
			"SELECT t, a, b, c, 0 AS d, '' AS day, count(*) AS n FROM (SELECT l.tenant_id AS t, " + whose("l") + " AS a, " +
				"COALESCE(l.lead_stage_id, 0) AS b, COALESCE(l.lead_status_id, 0) AS c FROM leads AS l " + ways + ") AS x " +
				"WHERE a IS NOT NULL GROUP BY t, a, b, c"},
		{"client_day_counts",
			"SELECT tenant_id AS t, user_id AS a, 0 AS b, 0 AS c, 0 AS d, " + keptDay + " AS day, n FROM client_day_counts WHERE n <> 0",
			"SELECT t, a, 0 AS b, 0 AS c, 0 AS d, day, count(*) AS n FROM (SELECT cl.tenant_id AS t, " + whose("cl") + " AS a, " +
				day("cl.created_at") + " AS day FROM clients AS cl " + ways + ") AS x WHERE a IS NOT NULL GROUP BY t, a, day"},
	} {
		read := func(q string) []string {
			var rows []struct {
				T, A, B, C, D, N int64
				Day              string
			}
			if err := scanAsEachTenant(ctx, db, db.bun.NewRaw(q), &rows); err != nil {
				t.Fatalf("%s: %s: %v", step, c.what, err)
			}
			out := make([]string, len(rows))
			for i, r := range rows {
				out[i] = fmt.Sprintf("%d/%d/%d/%d/%d/%s=%d", r.T, r.A, r.B, r.C, r.D, r.Day, r.N)
			}
			slices.Sort(out)
			return out
		}
		if kept, counted := read(c.kept), read(c.counted); !slices.Equal(kept, counted) {
			t.Errorf("%s: %s\nkept    %v\ncounted %v", step, c.what, kept, counted)
		}
	}
	checkMonthCounters(t, db, step)
	if db.Dialect == SQLite { // nothing left staged once a transaction has committed (counts_staged.go)
		for _, table := range []string{"counts_staged", "staged_lead_moves", "staged_client_moves"} {
			var n int
			if err := db.bun.NewRaw("SELECT count(*) FROM "+table).Scan(ctx, &n); err != nil || n != 0 {
				t.Errorf("%s: %s has %d rows (%v)", step, table, n, err)
			}
		}
	}
}

// scanAsEachTenant scans q's rows into dest (a pointer to a slice): on PostgreSQL, where the
// tests' role is bound by row-level security and sees no tenant's rows without one, once
// as each tenant, the rows appended; on SQLite once.
func scanAsEachTenant[T any](ctx context.Context, db *DB, q *bun.RawQuery, dest *[]T) error {
	if db.Dialect != Postgres {
		return q.Scan(ctx, dest)
	}
	var tenants []int64
	if err := db.bun.NewRaw("SELECT id FROM tenants").Scan(ctx, &tenants); err != nil {
		return err
	}
	for _, id := range tenants {
		var rows []T
		if err := q.Scan(withTenant(ctx, id), &rows); err != nil {
			return err
		}
		*dest = append(*dest, rows...)
	}
	return nil
}

// recordStates is every lead or client of the scope's tenant as an undo must give it back:
// each field but the time of the last change.
func recordStates(t *testing.T, s Scope, entity string) map[int64]string {
	t.Helper()
	out := map[int64]string{}
	if entity == EntityClient {
		var cs []Client
		if err := s.Select(&cs).Scan(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			c.UpdatedAt, c.CreatedAt = time.Time{}, c.CreatedAt.UTC()
			out[c.ID] = jsonText(c) + " " + c.SearchText
		}
		return out
	}
	var ls []Lead
	if err := s.Select(&ls).Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		l.UpdatedAt, l.CreatedAt = time.Time{}, l.CreatedAt.UTC()
		out[l.ID] = jsonText(l) + " " + l.SearchText
	}
	return out
}

// runItems applies items as an import in batches, the way two runners would when the
// first stops after its first batch: the second takes over from the last committed batch,
// claimedImport is a queued import of rows rows in the given mode, claimed by a runner
// named claim.
func claimedImport(t *testing.T, db *DB, s Scope, entity, mode, key string, rows int, claim string) *Import {
	t.Helper()
	ctx := context.Background()
	im, err := s.CreateImport(ctx, NewImport{Entity: entity, FileName: "t.csv", Content: []byte("t"), Delimiter: ",",
		Encoding: "utf-8", Header: []string{"t"}, TotalRows: rows, Mapping: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.QueueImport(ctx, im.ID, []string{""}, mode, key); err != nil {
		t.Fatal(err)
	}
	claimed, err := db.ClaimImport(ctx, ImportRef{TenantID: s.TenantID, ID: im.ID}, claim, time.Now().Add(-ImportStaleAfter))
	if err != nil || claimed == nil {
		t.Fatalf("claim: %v", err)
	}
	return claimed
}

// and the first one's late batch is refused.
func runItems(t *testing.T, db *DB, s Scope, entity, mode, key string, items []ImportItem, batch int) *Import {
	t.Helper()
	ctx := context.Background()
	first := claimedImport(t, db, s, entity, mode, key, len(items), "first")
	ref := ImportRef{TenantID: s.TenantID, ID: first.ID}
	if _, err := s.ApplyImportBatch(ctx, first, items[:batch], batch); err != nil {
		t.Fatal(err)
	}
	second, err := db.ClaimImport(ctx, ref, "second", time.Now().Add(time.Second))
	if err != nil || second == nil || second.NextRow != batch {
		t.Fatalf("take over: %+v %v", second, err)
	}
	for i := second.NextRow; i < len(items); i += batch {
		j := min(i+batch, len(items))
		if _, err := s.ApplyImportBatch(ctx, second, items[i:j], j); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.ApplyImportBatch(ctx, first, items[batch:min(2*batch, len(items))], 2*batch); !errors.Is(err, ErrImportClaimLost) {
		t.Fatalf("the stopped runner's late batch: %v", err)
	}
	if err := s.FinishImport(ctx, second, ImportDone, ""); err != nil {
		t.Fatal(err)
	}
	got, err := s.Import(ctx, first.ID)
	if err != nil || got.NextRow != len(items) {
		t.Fatalf("import: %+v %v", got, err)
	}
	return got
}

// undoWithTakeover undoes an import in batches of limit, taken over after the first batch.
func undoWithTakeover(t *testing.T, db *DB, s Scope, id int64, limit int) *Import {
	t.Helper()
	ctx := context.Background()
	if _, err := s.QueueUndo(ctx, id); err != nil {
		t.Fatal(err)
	}
	ref := ImportRef{TenantID: s.TenantID, ID: id}
	first, err := db.ClaimImport(ctx, ref, "undo-first", time.Now().Add(-ImportStaleAfter))
	if err != nil || first == nil || first.Status != ImportUndoing {
		t.Fatalf("claim the undo: %+v %v", first, err)
	}
	more, err := s.UndoImportBatch(ctx, first, limit)
	if err != nil {
		t.Fatal(err)
	}
	second, err := db.ClaimImport(ctx, ref, "undo-second", time.Now().Add(time.Second))
	if err != nil || second == nil {
		t.Fatalf("take the undo over: %v", err)
	}
	for more {
		if more, err = s.UndoImportBatch(ctx, second, limit); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.UndoImportBatch(ctx, first, limit); !errors.Is(err, ErrImportClaimLost) {
		t.Fatalf("the stopped undo runner's late batch: %v", err)
	}
	if err := s.FinishImport(ctx, second, ImportUndone, ""); err != nil {
		t.Fatal(err)
	}
	got, err := s.Import(ctx, id)
	if err != nil || got.Status != ImportUndone || got.Undone != got.UndoTotal || got.UndoTotal != got.Created+got.Updated {
		t.Fatalf("undone: %+v %v", got, err)
	}
	return got
}

// journeyActions counts a record's journey entries by action.
func journeyActions(t *testing.T, s Scope, entity string, id int64) map[string]int {
	t.Helper()
	hist, err := s.History(context.Background(), entity, id, 100)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, h := range hist {
		out[h.Action]++
	}
	return out
}

// Updates and undo are written set by set, batch by batch: the counters the triggers keep
// follow every change, each row is applied and undone once even when another runner takes
// the import over, the journey gets each change, and the undo gives every record back
// exactly as it was.
func TestImportUpdatesAndUndoSetBySet(t *testing.T) {
	t.Parallel()
	eachImportDB(t, func(t *testing.T, db *DB, s Scope, admin, rep *User) {
		ctx := context.Background()
		ids := masterIDs(t, s)
		stage, status, source := ids[KindStage], ids[KindStatus], ids[KindSource]
		p := func(n int64) *int64 { return &n }
		day1 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
		day2 := day1.AddDate(0, 0, 1)
		repScope := db.System(s.TenantID, rep.ID)
		var leads []*LeadView
		for i := range 12 {
			sc, owner, at := s, &admin.ID, day1
			if i%3 == 0 {
				sc = repScope
			}
			if i%2 == 0 {
				owner = &rep.ID
			}
			if i%4 == 0 {
				at = day2
			}
			v, _, err := sc.CreateLead(ctx, LeadInput{Contact: Contact{CustomerName: fmt.Sprintf("Lead %d", i), CompanyName: "Co",
				CompanyEmail: fmt.Sprintf("l%d@x.test", i),
				OwnerID:      owner, BillingAddress: &Address{FlatNo: "7", City: "Chennai"},
			}, LeadStageID: p(stage[i%len(stage)]), LeadStatusID: p(status[i%len(status)]),
				LeadSourceID: p(source[i%len(source)]), CreatedAt: &at}, "", "")
			if err != nil {
				t.Fatal(err)
			}
			leads = append(leads, v)
		}
		// Another tenant's lead with the same email is not touched.
		otherTenant, otherAdmin, err := db.CreateTenant(ctx, NewTenant{DefaultLocale: "en_US", Name: "Other", AdminEmail: "o@x.test", AdminPassword: "Secret1!x"})
		if err != nil {
			t.Fatal(err)
		}
		other := db.System(otherTenant.ID, otherAdmin.ID)
		if _, _, err := other.CreateLead(ctx, LeadInput{Contact: Contact{CustomerName: "Other l0", CompanyEmail: "l0@x.test"}}, "", ""); err != nil {
			t.Fatal(err)
		}
		checkCounters(t, db, "seeded")
		before, otherBefore := recordStates(t, s, EntityLead), recordStates(t, other, EntityLead)

		var items []ImportItem
		add := func(in LeadInput, set ...string) {
			m := map[string]bool{}
			for _, f := range set {
				m[f] = true
			}
			items = append(items, ImportItem{Row: len(items) + 2, Key: strings.ToLower(in.CompanyEmail), Lead: in, Set: m})
		}
		email := func(i int) string { return fmt.Sprintf("l%d@x.test", i) }
		updates := map[int64]int{} // lead → rows that update it
		for i := range 12 {
			id := leads[i].ID
			switch i % 4 {
			case 0: // stage and owner
				add(LeadInput{Contact: Contact{CompanyEmail: email(i), OwnerID: &admin.ID}, LeadStageID: p(stage[(i+1)%len(stage)])}, "company_email", "lead_stage_id", "owner_id")
				updates[id]++
			case 1: // name, status and source
				add(LeadInput{Contact: Contact{CompanyEmail: strings.ToUpper(email(i)), CustomerName: fmt.Sprintf("Renamed %d", i)},
					LeadStatusID: p(status[(i+1)%len(status)]), LeadSourceID: p(source[(i+1)%len(source)])},
					"company_email", "customer_name", "lead_status_id", "lead_source_id")
				updates[id]++
			case 2: // one part of the address
				add(LeadInput{Contact: Contact{CompanyEmail: email(i), BillingAddress: &Address{City: "Pune"}}}, "company_email", "billing_address.city")
				updates[id]++
			case 3: // nothing new
				add(LeadInput{Contact: Contact{CompanyEmail: email(i), CustomerName: fmt.Sprintf("Lead %d", i)}}, "company_email", "customer_name")
			}
		}
		add(LeadInput{Contact: Contact{CompanyEmail: email(1), CustomerName: "Renamed Twice"}, LeadStageID: p(stage[0])}, "company_email", "lead_stage_id", "customer_name")
		updates[leads[1].ID]++
		add(LeadInput{Contact: Contact{CompanyEmail: email(5), CompanyPhoneNumber: "12"}}, "company_email", "company_phone_number") // refused
		add(LeadInput{Contact: Contact{CustomerName: "New 1", CompanyEmail: "new1@x.test", OwnerID: &rep.ID}, LeadStageID: p(stage[2]), CreatedAt: &day1},
			"customer_name", "company_email", "lead_stage_id", "owner_id", "created_at")
		add(LeadInput{Contact: Contact{CustomerName: "New 2", CompanyEmail: "new2@x.test"}}, "customer_name", "company_email")
		add(LeadInput{Contact: Contact{CompanyEmail: "new1@x.test", ShippingAddress: &Address{Country: "India"}}, LeadStageID: p(stage[3])},
			"company_email", "lead_stage_id", "shipping_address.country") // updates the lead row 14 created
		add(LeadInput{Contact: Contact{CompanyEmail: email(0), CustomerName: "Zero Again"}}, "company_email", "customer_name")
		updates[leads[0].ID]++

		im := runItems(t, db, s, EntityLead, ModeUpsert, MatchEmail, items, 5)
		if im.Created != 2 || im.Updated != 12 || im.Skipped != 3 || im.Failed != 1 {
			t.Fatalf("counts: created %d updated %d skipped %d failed %d", im.Created, im.Updated, im.Skipped, im.Failed)
		}
		checkCounters(t, db, "imported")
		if got := recordStates(t, other, EntityLead); !reflect.DeepEqual(got, otherBefore) {
			t.Errorf("another tenant's lead changed: %v", got)
		}
		after := recordStates(t, s, EntityLead)
		for i, l := range leads {
			if (after[l.ID] == before[l.ID]) != (updates[l.ID] == 0) {
				t.Errorf("lead %d: updated %v, expected %d updates", i, after[l.ID] != before[l.ID], updates[l.ID])
			}
			if got := journeyActions(t, s, EntityLead, l.ID); got["update"] != updates[l.ID] {
				t.Errorf("lead %d: %d update entries, want %d", i, got["update"], updates[l.ID])
			}
		}
		l0, _ := s.LeadView(ctx, leads[0].ID)
		l1, _ := s.LeadView(ctx, leads[1].ID)
		l2, _ := s.LeadView(ctx, leads[2].ID)
		if l0.CustomerName != "Zero Again" || *l0.LeadStageID != stage[1%len(stage)] || *l0.OwnerID != admin.ID ||
			l1.CustomerName != "Renamed Twice" || *l1.LeadStageID != stage[0] || *l1.LeadStatusID != status[2%len(status)] ||
			l2.BillingAddress == nil || *l2.BillingAddress != (Address{FlatNo: "7", City: "Pune"}) || l2.CustomerName != "Lead 2" {
			t.Errorf("updated leads: %+v\n%+v\n%+v", l0.Lead, l1.Lead, l2.Lead)
		}
		// The journey of an update: each changed field before and after, names for masters
		// and the owner, and a stage and an owner entry of their own.
		hist, _ := s.History(ctx, EntityLead, leads[0].ID, 10)
		var first, stageEntry *AuditEntry
		for i := range hist {
			switch h := &hist[i]; h.Action {
			case "update":
				first = h // the oldest
			case ActionStage:
				stageEntry = h
			}
		}
		masterName := func(id int64) string { n, _ := s.masterName(ctx, &id); return n }
		wantBefore := jsonText(map[string]any{"lead_stage": masterName(stage[0]), "owner": rep.Name})
		wantAfter := jsonText(map[string]any{"lead_stage": masterName(stage[1%len(stage)]), "owner": admin.Name})
		if first == nil || !sameJSON(first.Before, &wantBefore) || !sameJSON(first.After, &wantAfter) || first.ActorUserID == nil ||
			*first.ActorUserID != admin.ID || stageEntry == nil {
			t.Errorf("journey of lead 0: %+v (want %s → %s), stage entry %+v", first, wantBefore, wantAfter, stageEntry)
		}
		rows, err := s.ImportRows(ctx, im.ID, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		var created []int64
		for _, r := range rows {
			if r.Outcome == OutcomeCreated {
				created = append(created, *r.EntityID)
			}
		}
		if n := journeyActions(t, s, EntityLead, created[0]); n["create"] != 1 || n["update"] != 1 || n[ActionStage] != 1 {
			t.Errorf("journey of the lead created then updated: %v", n)
		}

		undone := undoWithTakeover(t, db, s, im.ID, 4)
		checkCounters(t, db, "undone")
		if got := recordStates(t, s, EntityLead); !reflect.DeepEqual(got, before) {
			for id, st := range got {
				if st != before[id] {
					t.Errorf("lead %d after the undo:\n%s\nwant\n%s", id, st, before[id])
				}
			}
			for id := range before {
				if _, ok := got[id]; !ok {
					t.Errorf("lead %d is gone", id)
				}
			}
			if len(got) != len(before) {
				t.Errorf("%d leads after the undo, %d before", len(got), len(before))
			}
		}
		for i, l := range leads {
			if n := journeyActions(t, s, EntityLead, l.ID); n["import_undo"] != updates[l.ID] {
				t.Errorf("lead %d: %d import_undo entries, want %d", i, n["import_undo"], updates[l.ID])
			}
		}
		// The lead created then updated: the update undone (as an edit), then the lead deleted.
		if n := journeyActions(t, s, EntityLead, created[0]); n["update"] != 2 || n["delete"] != 1 || n["import_undo"] != 2 {
			t.Errorf("journey of created lead %d: %v", created[0], n)
		}
		if n := journeyActions(t, s, EntityLead, created[1]); n["delete"] != 1 || n["import_undo"] != 1 {
			t.Errorf("journey of created lead %d: %v", created[1], n)
		}
		if hist, _ := s.History(ctx, EntityLead, created[1], 5); len(hist) != 3 || hist[0].Action != "import_undo" || hist[1].Action != "delete" {
			t.Errorf("journey of created lead %d: %+v", created[1], hist)
		}
		if undone.Undone != 14 {
			t.Errorf("undone %d rows, want 14", undone.Undone)
		}

		// Clients, by phone: an owner and a name changed, one created; then undone.
		var clients []*ClientView
		for i := range 3 {
			c, err := repScope.CreateClient(ctx, ClientInput{Contact: Contact{CustomerName: fmt.Sprintf("Client %d", i),
				CompanyEmail: fmt.Sprintf("c%d@x.test", i), CompanyPhoneNumber: fmt.Sprintf("900000000%d", i),
			}})
			if err != nil {
				t.Fatal(err)
			}
			clients = append(clients, c)
		}
		checkCounters(t, db, "clients seeded")
		clientsBefore := recordStates(t, s, EntityClient)
		citem := func(row int, key string, in ClientInput, set ...string) ImportItem {
			m := map[string]bool{}
			for _, f := range set {
				m[f] = true
			}
			return ImportItem{Row: row, Key: key, Client: in, Set: m}
		}
		bt := ids[KindBusinessType]
		citems := []ImportItem{
			citem(2, "9000000000", ClientInput{Contact: Contact{CompanyPhoneNumber: "9000000000", OwnerID: &admin.ID}}, "company_phone_number", "owner_id"),
			citem(3, "9000000001", ClientInput{Contact: Contact{CompanyPhoneNumber: "9000000001", CustomerName: "Renamed", CompanyTypeID: &bt[0]}},
				"company_phone_number", "customer_name", "company_type_id"),
			citem(4, "9000000009", ClientInput{Contact: Contact{CompanyPhoneNumber: "9000000009", CustomerName: "New", CompanyEmail: "new@x.test"}},
				"company_phone_number", "customer_name", "company_email"),
		}
		cim := runItems(t, db, s, EntityClient, ModeUpsert, MatchPhone, citems, 1)
		if cim.Created != 1 || cim.Updated != 2 {
			t.Fatalf("client import: %+v", cim)
		}
		checkCounters(t, db, "clients imported")
		c0, _ := s.ClientView(ctx, clients[0].ID)
		c1, _ := s.ClientView(ctx, clients[1].ID)
		if *c0.OwnerID != admin.ID || c0.CustomerName != "Client 0" || c1.CustomerName != "Renamed" || *c1.CompanyTypeID != bt[0] {
			t.Errorf("updated clients: %+v %+v", c0.Client, c1.Client)
		}
		if n := journeyActions(t, s, EntityClient, clients[0].ID); n["update"] != 1 {
			t.Errorf("client journey: %v", n)
		}
		undoWithTakeover(t, db, s, cim.ID, 2)
		checkCounters(t, db, "clients undone")
		if got := recordStates(t, s, EntityClient); !reflect.DeepEqual(got, clientsBefore) {
			t.Errorf("clients after the undo:\n%v\nwant\n%v", got, clientsBefore)
		}
	})
}
