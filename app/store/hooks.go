package store

import "github.com/uptrace/bun"

// AddQueryHook registers h on the database: it sees every statement the store sends, with
// its text as sent (bun writes the values into it) and, in the context it is given, the
// values a statement sends apart from its text (BoundArgs: plans.go). cmd/crmbench records
// with it the SQL of a request's store call, to run the same SQL directly and compare.
func (db *DB) AddQueryHook(h bun.QueryHook) { db.bun.AddQueryHook(h) }
