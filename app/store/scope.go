package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun"

	"crm/app/auth"
)

// Errors the store returns; the HTTP layer turns them into 404 and 409.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
	// ErrForbidden refuses what the scope's user's role does not allow on the record at hand
	// (the routes already refuse callers who lack the feature's permission altogether).
	ErrForbidden = errors.New("forbidden")
)

// Refusal is a rule's refusal that names the message a user reads (a message id and its
// template arguments); the HTTP layer answers it with 409 and that message.
type Refusal interface {
	error
	Refusal() (msgID string, args []any)
}

// ruleError is a Refusal without arguments.
type ruleError struct{ text, msgID string }

func (e *ruleError) Error() string            { return e.text }
func (e *ruleError) Refusal() (string, []any) { return e.msgID, nil }

// Owned is embedded in every tenant-owned model; Scope fills it on insert.
type Owned struct {
	TenantID int64 `bun:"tenant_id,pk" json:"-"`
}

func (o *Owned) setTenant(id int64) { o.TenantID = id }

type tenantOwned interface{ setTenant(int64) }

// Scope is one tenant (and the acting user) seen through the database. Every query on
// tenant data is built here, with the tenant filter already in place, so it cannot be forgotten.
type Scope struct {
	db       *DB
	idb      bun.IDB
	TenantID int64
	UserID   int64
	perms    auth.Permissions
	// action is what the scope is used for (view when empty): its record scope on a
	// feature decides which records reach gives (For).
	action auth.Action
	// system is the system's own view: every record, whatever a role says.
	system bool
}

// WithPermissions returns the scope limited by the user's record scopes: a feature granted
// for "own" records reaches only the rows the user owns or created.
func (s Scope) WithPermissions(p auth.Permissions) Scope {
	s.perms, s.system = p, false
	return s
}

// For returns the scope acting for the action: its record scopes become those the caller's
// role gives that action (an export reads with the export scope, an edit with the update
// scope). The store's changes set it themselves; callers set it for what only they know
// (an export reads through the lists).
func (s Scope) For(a auth.Action) Scope {
	s.action = a
	return s
}

// Tenant returns the scope of a tenant as seen by a user, to be limited by the user's
// permissions (WithPermissions). Until it is, it is the most restrictive scope: it reaches
// only the user's own leads and clients (none for user 0) and no dashboard figure, so a
// forgotten WithPermissions shows next to nothing rather than everything.
func (db *DB) Tenant(tenantID, userID int64) Scope {
	return Scope{db: db, idb: newTenantIDB(db.bun, tenantID), TenantID: tenantID, UserID: userID}
}

// System returns the system's own view of a tenant (userID acting, 0 for none): every
// record, whatever any role says. For work no role limits: sign-in and tokens, sign-up and
// seeding, the command line, and fixtures.
func (db *DB) System(tenantID, userID int64) Scope {
	return Scope{db: db, idb: newTenantIDB(db.bun, tenantID), TenantID: tenantID, UserID: userID, system: true}
}

// scopeIn is a tenant's scope inside a transaction begun without a tenant (the tenant being
// created): its statements carry the tenant all the same.
func (db *DB) scopeIn(tx bun.Tx, tenantID int64) Scope {
	return Scope{db: db, idb: newTenantIDB(tx, tenantID), TenantID: tenantID}
}

// Dialect is the engine behind the scope.
func (s Scope) Dialect() Dialect { return s.db.Dialect }

// Tx runs fn with a scope bound to one transaction; nested calls reuse the outer one. The
// transaction begins with the scope's tenant set (row-level security on PostgreSQL).
func (s Scope) Tx(ctx context.Context, fn func(tx Scope) error) error {
	if s.inTx() {
		return fn(s)
	}
	gen := callerGen.Load()
	err := s.db.bun.RunInTx(withTenant(ctx, s.TenantID), nil, func(ctx context.Context, tx bun.Tx) error {
		inner := s
		inner.idb = newTenantIDB(tx, s.TenantID)
		return fn(inner)
	})
	// A caller table written in the transaction: end the callers cached while it was open,
	// which may hold the rows as they were (callercache.go).
	if callerGen.Load() != gen {
		callersChanged()
	}
	return err
}

// countedTx is Tx for a change that writes leads or clients in several statements (a bulk
// change, a bulk delete, a conversion). Its counters' moves are set aside and added to the
// counters once, just before the commit (stageCounts, flushCounts), as an import batch's
// are. On PostgreSQL each statement's triggers would otherwise lock the counters it moves
// until the commit, one statement's set after another's, and two such transactions could
// each hold a counter the other waits for: a deadlock, which eight sales users changing
// leads at once met within a few runs (many counters are one row a stage and status, or a
// day, for the whole tenant; TestCountersUnderConcurrentWrites); the flush takes them in key
// order, as every writer then does. On SQLite, which has one writer at a time, it spares
// each lead's own upserts of the same counters. Inside another transaction it is that
// transaction's to decide.
func (s Scope) countedTx(ctx context.Context, fn func(tx Scope) error) error {
	if s.inTx() {
		return s.Tx(ctx, fn)
	}
	return s.Tx(ctx, func(tx Scope) error {
		if err := tx.stageCounts(ctx); err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			return err
		}
		return tx.flushCounts(ctx)
	})
}

// txFor is the transaction for a change of n records one statement each: countedTx for
// several, Tx for one (its counters are locked by one statement, in key order).
func (s Scope) txFor(n int) func(context.Context, func(Scope) error) error {
	if n > 1 {
		return s.countedTx
	}
	return s.Tx
}

// inTx reports whether the scope is bound to a transaction.
func (s Scope) inTx() bool {
	idb := s.idb
	if t, ok := idb.(tenantIDB); ok {
		idb = t.IDB
	}
	_, ok := idb.(bun.Tx)
	return ok
}

// Select starts a query on the model's table limited to this tenant.
func (s Scope) Select(model any) *bun.SelectQuery {
	return s.idb.NewSelect().Model(model).Where("?TableAlias.tenant_id = ?", s.TenantID)
}

// batchTenant is the tenant condition's right side in a statement on an import batch's
// records, found by key or by id: on PostgreSQL a value the planner cannot see, (SELECT
// ?). Given the tenant as a constant, the planner multiplied its share of the table, from
// statistics that lag behind a large import (a tenant of 20,000 leads when it began,
// 120,000 at its end), by the share of the batch's keys as if they were independent,
// expected a row or two, and read the tenant's every record to find a batch's (45–90 ms a
// statement at 120,000). Not knowing the tenant, it expects an average one and finds each
// key or id in its index (TestImportBatchStatementsProbeTheirIndex).
func (s Scope) batchTenant() string {
	if s.Dialect() == Postgres {
		return "(SELECT CAST(? AS bigint))"
	}
	return "?"
}

// batchSelect is Select for an import batch's records (batchTenant).
func (s Scope) batchSelect(model any) *bun.SelectQuery {
	return s.idb.NewSelect().Model(model).Where("?TableAlias.tenant_id = "+s.batchTenant(), s.TenantID)
}

// batchDelete is Delete for an import batch's records (batchTenant).
func (s Scope) batchDelete(model any) *bun.DeleteQuery {
	return s.idb.NewDelete().Model(model).Where("?TableAlias.tenant_id = "+s.batchTenant(), s.TenantID)
}

// Update starts an update on the model's table limited to this tenant.
func (s Scope) Update(model any) *bun.UpdateQuery {
	return s.idb.NewUpdate().Model(model).Where("?TableAlias.tenant_id = ?", s.TenantID)
}

// Delete starts a delete on the model's table limited to this tenant.
func (s Scope) Delete(model any) *bun.DeleteQuery {
	return s.idb.NewDelete().Model(model).Where("?TableAlias.tenant_id = ?", s.TenantID)
}

// Insert stamps the model (or slice of models) with this tenant and starts the insert.
func (s Scope) Insert(model any) *bun.InsertQuery {
	switch m := model.(type) {
	case tenantOwned:
		m.setTenant(s.TenantID)
	default:
		stampSlice(model, s.TenantID)
	}
	return s.idb.NewInsert().Model(model)
}

// notFound maps "no rows" to ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

type bunTx = bun.Tx

type bunSelect = bun.SelectQuery
