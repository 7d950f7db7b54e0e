package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	migrations "crm/sql"
)

// On PostgreSQL the server and the schema have different roles. The owner role creates and
// owns every table and runs the migrations (crm migrate, create-tenant, create-user, seed).
// The server connects as an application role that owns nothing and cannot bypass row-level
// security, so the tenant policies bind it; it gets only what it needs on the schema.

// ErrOwnerConnection refuses to serve through a connection the tenant policies do not bind.
var ErrOwnerConnection = errors.New("crm serve must connect to PostgreSQL as a role that owns no table and cannot bypass row-level security (not a superuser, not BYPASSRLS); run migrations with the owner's URL (--migrate-database-url / MIGRATE_DATABASE_URL)")

// CurrentRole is the PostgreSQL role the connections log in as.
func (db *DB) CurrentRole(ctx context.Context) (string, error) {
	var role string
	err := db.bun.QueryRowContext(ctx, "SELECT current_user").Scan(&role)
	return role, err
}

// GrantApp gives the application role what the server needs on the schema (the owner's
// connection's current schema): its tables' rows, its sequences, and reading the migration
// ledger. It is run by the owner after every migration, so new tables are covered.
func (db *DB) GrantApp(ctx context.Context, role string) error {
	if db.Dialect != Postgres {
		return nil
	}
	var schema string
	if err := db.bun.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return err
	}
	stmts := []string{
		"GRANT USAGE ON SCHEMA ?0 TO ?1",
		"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ?0 TO ?1",
		"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA ?0 TO ?1",
		// The migration ledger is the owner's: the server only reads it.
		"REVOKE INSERT, UPDATE, DELETE ON ?0.bun_migrations, ?0.bun_migration_locks FROM ?1",
	}
	for _, q := range stmts {
		if _, err := db.bun.NewRaw(q, bun.Ident(schema), bun.Ident(role)).Exec(ctx); err != nil {
			return fmt.Errorf("grant %s: %w", role, err)
		}
	}
	return nil
}

// CheckAppRole refuses a PostgreSQL connection whose role is a superuser, may bypass
// row-level security, or owns a table of the schema: the tenant policies would not bind it.
func (db *DB) CheckAppRole(ctx context.Context) error {
	if db.Dialect != Postgres {
		return nil
	}
	var super, bypass, owns bool
	err := db.bun.QueryRowContext(ctx, `SELECT r.rolsuper, r.rolbypassrls,
  EXISTS (SELECT 1 FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace
          AND pg_has_role(current_user, c.relowner, 'USAGE'))
FROM pg_roles r WHERE r.rolname = current_user`).Scan(&super, &bypass, &owns)
	if err != nil {
		return err
	}
	if super || bypass || owns {
		return ErrOwnerConnection
	}
	return nil
}

// Pending lists the migrations of this dialect not applied yet, read without changing
// anything (the application role may not create the ledger).
func (db *DB) Pending(ctx context.Context) ([]string, error) {
	sub, err := fs.Sub(migrations.FS, string(db.Dialect))
	if err != nil {
		return nil, err
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(sub); err != nil {
		return nil, fmt.Errorf("discover migrations: %w", err)
	}
	applied := map[string]bool{}
	var names []string
	if err := db.bun.NewSelect().Table("bun_migrations").Column("name").Scan(ctx, &names); err != nil {
		if strings.Contains(err.Error(), "does not exist") || strings.Contains(err.Error(), "no such table") {
			names = nil
		} else {
			return nil, err
		}
	}
	for _, n := range names {
		applied[n] = true
	}
	var out []string
	for _, m := range ms.Sorted() {
		if !applied[m.Name] {
			out = append(out, m.Name)
		}
	}
	return out, nil
}
