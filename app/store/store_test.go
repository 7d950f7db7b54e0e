package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/store/storetest"
	"crm/app/validate"
)

func newTenant(t *testing.T, db *store.DB, name, email string) (*store.Tenant, *store.User) {
	t.Helper()
	tn, u, err := db.CreateTenant(context.Background(), store.NewTenant{DefaultLocale: "en_US", Name: name, AdminEmail: email, AdminPassword: "Secret1!x"})
	if err != nil {
		t.Fatalf("create tenant: %v", err)
	}
	return tn, u
}

// TestSQLiteIsCreatedWithItsPageSize: a database Open creates has SQLitePageSize, though
// Open's connection string turns on WAL (which fixes the page size) before any other
// pragma; the test databases, copies of a template Open made, have it too. An existing
// database keeps its own.
func TestSQLiteIsCreatedWithItsPageSize(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pageSize := func(db *store.DB) (size int) {
		t.Helper()
		if err := db.Raw("PRAGMA page_size").Scan(ctx, &size); err != nil {
			t.Fatal(err)
		}
		return size
	}
	path := filepath.Join(t.TempDir(), "new.db")
	db, err := store.Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var mode string
	if err := db.Raw("PRAGMA journal_mode").Scan(ctx, &mode); err != nil || mode != "wal" {
		t.Errorf("journal mode %q (%v), want wal", mode, err)
	}
	if got := pageSize(db); got != store.SQLitePageSize {
		t.Errorf("new database: page size %d, want %d", got, store.SQLitePageSize)
	}
	db.Close()

	old := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", "file:"+old)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("PRAGMA page_size = 4096; CREATE TABLE t (a)"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db, err = store.Open(ctx, "sqlite:"+old)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := pageSize(db); got != 4096 {
		t.Errorf("existing database: page size %d, want its own 4096", got)
	}
	if got := pageSize(storetest.Open(t, store.SQLite)); got != store.SQLitePageSize {
		t.Errorf("test database: page size %d, want %d", got, store.SQLitePageSize)
	}
}

// TestMigrateWithOneConnection: migrations hold their lock on one connection and run on
// another, so a pool of one (pool_max_conns=1) lends them a second rather than waiting
// forever for it.
func TestMigrateWithOneConnection(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.Postgres)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // bounds a failure only
	defer cancel()
	ownerURL, err := store.WithPoolSize(storetest.OwnerURL(db), 1)
	if err != nil {
		t.Fatal(err)
	}
	owner, err := store.Open(ctx, ownerURL)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	for range 2 { // the second time with the pool as it was put back
		if applied, err := owner.Migrate(ctx); err != nil || len(applied) != 0 {
			t.Fatalf("migrate with one connection: %v, applied %v", err, applied)
		}
	}
}

func TestMigrateTwiceIsNoop(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		applied, err := storetest.Owner(t, db).Migrate(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(applied) != 0 {
			t.Fatalf("second migrate applied %v", applied)
		}
	})
}

func TestCreateTenantGivesAdministratorEveryFeature(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tn, u := newTenant(t, db, "Acme", "Boss@Acme.test")
		if u.Email != "boss@acme.test" {
			t.Fatalf("email not normalised: %q", u.Email)
		}
		perms, err := db.System(tn.ID, u.ID).Permissions(ctx, u.RoleID)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range auth.Features {
			for _, a := range auth.Actions {
				if !perms.Allows(f, a) {
					t.Errorf("administrator lacks %s %s", a, f)
				}
			}
		}
		login, err := db.FindLogin(ctx, " BOSS@acme.test ")
		if err != nil || login.TenantID != tn.ID || login.User.ID != u.ID {
			t.Fatalf("find login: %+v %v", login, err)
		}
	})
}

func TestCreateTenantIsAllOrNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		newTenant(t, db, "Acme", "boss@acme.test")
		_, _, err := db.CreateTenant(ctx, store.NewTenant{DefaultLocale: "en_US", Name: "Other", AdminEmail: "boss@acme.test", AdminPassword: "Secret1!x"})
		var verr validate.Errors
		if !errors.As(err, &verr) || verr["email"] != validate.KeyTaken {
			t.Fatalf("duplicate admin email: got %v", err)
		}
		if _, err := db.TenantByName(ctx, "Other"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("half-written tenant left behind: %v", err)
		}
		_, _, err = db.CreateTenant(ctx, store.NewTenant{DefaultLocale: "en_US", Name: "Weak", AdminEmail: "weak@acme.test", AdminPassword: "password"})
		if !errors.As(err, &verr) || verr["password"] != validate.KeyInvalidPassword {
			t.Fatalf("weak password: got %v", err)
		}
	})
}

func TestScopeIsolatesTenants(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a, ua := newTenant(t, db, "A", "a@a.test")
		b, _ := newTenant(t, db, "B", "b@b.test")
		if _, err := db.System(b.ID, 0).User(ctx, ua.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("tenant B read tenant A's user: %v", err)
		}
		if err := db.System(b.ID, 0).SetUserLocale(ctx, ua.ID, "de_DE"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("tenant B changed tenant A's user: %v", err)
		}
		got, err := db.System(a.ID, 0).User(ctx, ua.ID)
		if err != nil || got.Locale != "" {
			t.Fatalf("tenant A's user changed: %+v %v", got, err)
		}
	})
}

func TestTokensAreHashedAndRevocable(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tn, u := newTenant(t, db, "A", "a@a.test")
		s := db.System(tn.ID, u.ID)
		tok, err := s.CreateToken(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		tid, uid, err := db.TokenUser(ctx, tok)
		if err != nil || tid != tn.ID || uid != u.ID {
			t.Fatalf("token user: %d %d %v", tid, uid, err)
		}
		if err := s.RevokeToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
		if _, _, err := db.TokenUser(ctx, tok); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("revoked token still works: %v", err)
		}
	})
}

func TestAuditRecordsUserChanges(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tn, u := newTenant(t, db, "A", "a@a.test")
		s := db.System(tn.ID, u.ID)
		if err := s.SetUserLocale(ctx, u.ID, "de_DE"); err != nil {
			t.Fatal(err)
		}
		h, err := s.History(ctx, "user", u.ID, 10)
		if err != nil || len(h) != 2 {
			t.Fatalf("history: %d entries, %v", len(h), err)
		}
		var after map[string]string
		if err := json.Unmarshal([]byte(*h[0].After), &after); err != nil {
			t.Fatal(err)
		}
		if h[0].Action != "update" || after["locale"] != "de_DE" || *h[0].ActorUserID != u.ID {
			t.Fatalf("newest entry: %+v", h[0])
		}
	})
}

func TestCallerLoadsUserTenantAndGrants(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tn, admin := newTenant(t, db, "Acme", "boss@acme.test")
		other, _ := newTenant(t, db, "Other", "boss@other.test")
		s := db.System(tn.ID, admin.ID)
		role, err := s.CreateRole(ctx, "Viewer", map[auth.Feature]auth.Grant{
			auth.FeatureLeads:   auth.Grant{View: auth.ScopeOwn, Update: auth.ScopeOwn, Export: auth.ScopeOwn}.Normal(),
			auth.FeatureClients: auth.Grant{View: auth.ScopeAll, Export: auth.ScopeAll}.Normal(),
		})
		if err != nil {
			t.Fatal(err)
		}
		u, err := s.CreateUser(ctx, store.NewUser{Email: "viewer@acme.test", Name: "Vi", Password: "Secret1!x", Role: role.Name})
		if err != nil {
			t.Fatal(err)
		}
		gotU, gotT, perms, err := db.Caller(ctx, tn.ID, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if gotU.ID != u.ID || gotU.Email != "viewer@acme.test" || gotU.RoleID != role.ID || !gotU.Active || gotU.TenantID != tn.ID {
			t.Errorf("user: %+v", gotU)
		}
		if gotT.ID != tn.ID || gotT.Name != "Acme" || gotT.DefaultLocale != tn.DefaultLocale || gotT.CreatedAt.IsZero() {
			t.Errorf("tenant: %+v, want %+v", gotT, tn)
		}
		want := auth.Permissions{
			auth.FeatureLeads:   auth.Grant{View: auth.ScopeOwn, Update: auth.ScopeOwn, Export: auth.ScopeOwn}.Normal(),
			auth.FeatureClients: auth.Grant{View: auth.ScopeAll, Export: auth.ScopeAll}.Normal(),
		}
		if len(perms) != len(want) || perms[auth.FeatureLeads] != want[auth.FeatureLeads] || perms[auth.FeatureClients] != want[auth.FeatureClients] {
			t.Errorf("permissions: %+v, want %+v", perms, want)
		}
		// The administrator has every grant, as Permissions says.
		_, _, all, err := db.Caller(ctx, tn.ID, admin.ID)
		if full, _ := s.Permissions(ctx, admin.RoleID); err != nil || len(all) != len(full) {
			t.Errorf("administrator: %d grants, want %d (%v)", len(all), len(full), err)
		}
		// A user looked up in another tenant is not found.
		if _, _, _, err := db.Caller(ctx, other.ID, u.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("user of another tenant: %v", err)
		}
	})
}

// A scope nobody limited by permissions is the most restrictive, not the system's: it
// reaches only its user's own leads (none for user 0) and no dashboard figure; the system
// scope reaches everything.
func TestScopeWithoutPermissionsIsRestrictive(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tn, admin, err := db.CreateTenant(ctx, store.NewTenant{DefaultLocale: "en_US", Name: "Acme", AdminEmail: "a@x.test", AdminPassword: "Secret1!x"})
		if err != nil {
			t.Fatal(err)
		}
		sys := db.System(tn.ID, admin.ID)
		for _, name := range []string{"One", "Two"} {
			if _, _, err := sys.CreateLead(ctx, store.LeadInput{Contact: store.Contact{CustomerName: name, CompanyEmail: strings.ToLower(name) + "@x.test"}}, "", ""); err != nil {
				t.Fatal(err)
			}
		}
		if page, err := sys.ListLeads(ctx, store.LeadQuery{}); err != nil || page.Total != 2 {
			t.Fatalf("system scope: %d leads, %v", page.Total, err)
		}
		if page, err := db.Tenant(tn.ID, 0).ListLeads(ctx, store.LeadQuery{}); err != nil || page.Total != 0 || len(page.Rows) != 0 {
			t.Fatalf("a scope without permissions (user 0) reaches %d leads, %v", page.Total, err)
		}
		period, _ := store.ParsePeriod(store.PeriodAll, "", "", time.Now())
		dash, err := db.Tenant(tn.ID, admin.ID).Dashboard(ctx, period, store.DashboardLeads|store.DashboardClients)
		if err != nil || dash.Leads != nil || dash.Clients != nil {
			t.Fatalf("a scope without permissions sees dashboard figures: %+v %v", dash, err)
		}
	})
}

// The store refuses an import its user's role does not allow for the import's kind of
// record: uploading needs create, an upsert update too, and an undo delete; the system
// scope may do all.
func TestImportPermissionsAreTheStores(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tn, u, err := db.CreateTenant(ctx, store.NewTenant{DefaultLocale: "en_US", Name: "Acme", AdminEmail: "a@x.test", AdminPassword: "Secret1!x"})
		if err != nil {
			t.Fatal(err)
		}
		clientsOnly := db.Tenant(tn.ID, u.ID).WithPermissions(auth.Permissions{
			auth.FeatureClients: {View: auth.ScopeAll, Create: auth.ScopeAll, Export: auth.ScopeAll, Import: auth.ScopeAll},
			auth.FeatureLeads:   {View: auth.ScopeAll, Create: auth.ScopeAll, Export: auth.ScopeAll, Import: auth.ScopeAll}})
		n := store.NewImport{Entity: store.EntityClient, FileName: "c.csv", Content: []byte("Name\nA\n"), Header: []string{"Name"}}
		if _, err := db.Tenant(tn.ID, u.ID).CreateImport(ctx, n); !errors.Is(err, store.ErrForbidden) {
			t.Fatalf("upload without permissions: %v", err)
		}
		im, err := clientsOnly.CreateImport(ctx, n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := clientsOnly.QueueImport(ctx, im.ID, []string{"customer_name"}, store.ModeUpsert, store.MatchEmail); !errors.Is(err, store.ErrForbidden) {
			t.Fatalf("an upsert without update: %v", err)
		}
		if !clientsOnly.MayImport(store.EntityClient, store.ModeCreate, false) || clientsOnly.MayImport(store.EntityClient, store.ModeCreate, true) {
			t.Fatal("create may import, undo needs delete")
		}
		if !db.System(tn.ID, u.ID).MayImport(store.EntityLead, store.ModeUpsert, true) {
			t.Fatal("the system scope may undo")
		}
	})
}
