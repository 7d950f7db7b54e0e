// Package apptest runs the real server over HTTP for tests: a fresh database per engine,
// tenants and users, browser-like and API clients whose every /v1/api answer is checked
// against docs/openapi.yaml, helpers that read the HTML a user gets, and the route matrix
// that keeps every route behind sign-in, tenancy and permissions.
package apptest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"crm/app"
	"crm/app/assets"
	"crm/app/auth"
	"crm/app/files"
	"crm/app/i18n"
	"crm/app/importer"
	"crm/app/store"
	"crm/app/store/storetest"
	"crm/static"
)

// Password is every test user's password.
const Password = "Secret1!x"

// Env is one running server over a fresh database.
type Env struct {
	T        *testing.T
	DB       *store.DB
	Srv      *httptest.Server
	FilesDir string
}

// NewServer starts the real router over HTTP on db; mods adjust its dependencies.
func NewServer(t *testing.T, db *store.DB, mods ...func(*app.Deps)) *Env {
	t.Helper()
	bundle, err := i18n.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	as, err := assets.Load(static.FS)
	if err != nil {
		t.Fatalf("%v (run `npx just build-assets`)", err)
	}
	filesDir := t.TempDir()
	fs, err := files.NewLocal(filesDir)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	imports := importer.NewRunner(db, log, 0)
	t.Cleanup(imports.Close)
	deps := app.Deps{Config: app.DefaultConfig(), DB: db, I18n: bundle, Assets: as, Files: fs, Log: log, Imports: imports}
	for _, m := range mods {
		m(&deps)
	}
	srv := httptest.NewServer(app.NewServer(deps))
	t.Cleanup(srv.Close)
	return &Env{T: t, DB: db, Srv: srv, FilesDir: filesDir}
}

// Each runs fn once per database engine, each with its own server.
func Each(t *testing.T, fn func(t *testing.T, e *Env)) {
	t.Helper()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		fn(t, NewServer(t, db))
	})
}

// Tenant is a tenant with its administrator.
type Tenant struct {
	Tenant *store.Tenant
	Admin  *store.User
}

// Tenant creates a tenant named name with an administrator (name-admin@example.test).
func (e *Env) Tenant(name string) Tenant {
	e.T.Helper()
	email := strings.ToLower(strings.ReplaceAll(name, " ", "")) + "-admin@example.test"
	tn, u, err := e.DB.CreateTenant(context.Background(), store.NewTenant{Name: name, DefaultLocale: "en_US",
		AdminEmail: email, AdminPassword: Password})
	if err != nil {
		e.T.Fatal(err)
	}
	return Tenant{Tenant: tn, Admin: u}
}

// Scope is the tenant seen by its administrator, for fixtures.
func (e *Env) Scope(f Tenant) store.Scope { return e.DB.System(f.Tenant.ID, f.Admin.ID) }

// User adds a user to the tenant with a role made of the given grants.
func (e *Env) User(f Tenant, email string, grants map[auth.Feature]auth.Grant) *store.User {
	e.T.Helper()
	ctx := context.Background()
	s := e.Scope(f)
	roleName := "role-" + email
	if _, err := s.CreateRole(ctx, roleName, grants); err != nil {
		e.T.Fatal(err)
	}
	u, err := s.CreateUser(ctx, store.NewUser{Email: email, Password: Password, Role: roleName})
	if err != nil {
		e.T.Fatal(err)
	}
	return u
}

// MustJSON decodes s into v or fails the test.
func MustJSON(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("bad JSON: %v: %.300s", err, s)
	}
}
