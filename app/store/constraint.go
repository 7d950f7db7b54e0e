package store

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Constraint is the kind of database constraint a write broke.
type Constraint int

const (
	// NoConstraint: the error is not a constraint violation.
	NoConstraint Constraint = iota
	// ForeignKey: the row is still referred to, or refers to a row that is gone.
	ForeignKey
	// Unique: another row already has the key.
	Unique
)

// Violated reads, on either engine, which constraint err broke. The rules in this package
// check first and refuse with a message of their own; this is the last line, so that a
// race or a missed rule is still a conflict the client can act on (web.Classify answers
// 409), never a 500.
func Violated(err error) Constraint {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "23503":
			return ForeignKey
		case "23505":
			return Unique
		}
		return NoConstraint
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		switch lite.Code() {
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return ForeignKey
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return Unique
		}
	}
	return NoConstraint
}
