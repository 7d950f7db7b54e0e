package store

import "github.com/uptrace/bun"

// Raw is a statement written by hand on the scope's connection, as a query that forgot the
// store's tenant filter would be: for tests that row-level security still confines it.
func (s Scope) Raw(query string, args ...any) *bun.RawQuery { return s.idb.NewRaw(query, args...) }

// Raw is a statement on the server's connection outside any Scope (no tenant set).
func (db *DB) Raw(query string, args ...any) *bun.RawQuery { return db.bun.NewRaw(query, args...) }

// SetMaxOpenConns bounds the pool, so a test can make statements share one connection.
func (db *DB) SetMaxOpenConns(n int) { db.bun.SetMaxOpenConns(n) }
