package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
)

// PostgreSQL row-level security, the second wall behind the Scope's tenant filter: every
// tenant table has the policy tenant_id = app.tenant_id, and every statement the server sends
// carries the tenant of the Scope that built it. The tenant travels in the statement's
// context (only this package can put it there) down to the driver connection, which sets
// app.tenant_id before the statement when it differs from what the connection has:
//
//   - outside a transaction, and when a transaction begins, at session level, so it
//     survives until the next statement of another tenant (or of none) changes it;
//   - inside a transaction (a Scope on a transaction begun without a tenant, as when a
//     tenant is created), SET LOCAL, which the transaction's end undoes.
//
// A statement with no tenant in its context (sessions, the user directory, the tenants
// table, or a query that bypassed the Scope) runs with no tenant set, so it sees no
// tenant rows at all. Setting only on change costs a round trip when a connection moves
// between tenants, not on every statement.

// tenantCtxKey carries the tenant of a statement from a Scope to the driver.
type tenantCtxKey struct{}

// withTenant marks ctx as the context of statements of tenant id.
func withTenant(ctx context.Context, id int64) context.Context {
	return context.WithValue(ctx, tenantCtxKey{}, strconv.FormatInt(id, 10))
}

// tenantSetting is what app.tenant_id must be for a statement run with ctx ("" for none).
func tenantSetting(ctx context.Context) string {
	v, _ := ctx.Value(tenantCtxKey{}).(string)
	return v
}

// rlsConnector hands out connections that keep app.tenant_id in step with each statement,
// and that run a read the server has run before as a prepared statement (plans.go).
type rlsConnector struct {
	driver.Connector
	texts *repeatedTexts
}

func (c rlsConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(driverContext(ctx))
	if err != nil {
		return nil, err
	}
	pc, ok := conn.(*stdlib.Conn)
	if !ok {
		_ = conn.Close()
		return nil, errors.New("postgres: unexpected driver connection")
	}
	return &rlsConn{Conn: pc, texts: c.texts}, nil
}

// rlsConn is one PostgreSQL connection with the tenant it has set. database/sql uses a
// connection from one goroutine at a time, so the fields need no lock.
type rlsConn struct {
	*stdlib.Conn
	session string // app.tenant_id at session level ("" for none, as on a new connection)
	inTx    bool
	local   *string // app.tenant_id set with SET LOCAL in the open transaction, if any
	texts   *repeatedTexts
}

// prepareKept, put before a statement's parameter values, has pgx prepare the statement once
// on its connection and run it from its cache after (plans.go).
var prepareKept = driver.NamedValue{Value: pgx.QueryExecModeCacheStatement}

// describeFirst, put before a statement's parameter values, has pgx ask the statement's
// description before running it, unnamed, so its results come in binary (withBinaryResults).
var describeFirst = driver.NamedValue{Value: pgx.QueryExecModeDescribeExec}

// unknownTenant is what the connection believes after a failed set_config: the server may
// or may not have applied it, so the next statement sets the tenant whatever it wants.
const unknownTenant = "\x00unknown"

func (c *rlsConn) set(ctx context.Context, want string, local bool) error {
	if s := QueryStatsFrom(ctx); s != nil {
		s.switches.Add(1)
	}
	_, err := c.Conn.Conn().Exec(ctx, "SELECT set_config('app.tenant_id', $1, $2)", want, local)
	if err != nil {
		unknown := unknownTenant
		if local {
			c.local = &unknown
		} else {
			c.session = unknown
		}
	}
	return err
}

// ensure makes app.tenant_id what the statement's context says before it runs.
func (c *rlsConn) ensure(ctx context.Context) error {
	want := tenantSetting(ctx)
	if !c.inTx {
		if want == c.session {
			return nil
		}
		if err := c.set(ctx, want, false); err != nil {
			return err
		}
		c.session = want
		return nil
	}
	current := c.session
	if c.local != nil {
		current = *c.local
	}
	if want == current {
		return nil
	}
	if err := c.set(ctx, want, true); err != nil {
		return err
	}
	c.local = &want
	return nil
}

// ExecContext prepares a write whose values come apart from its text once a connection:
// bun writes every value of its own statements into their text, so a write with values
// apart is one written to repeat (insert_apart.go).
func (c *rlsConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if err := c.ensure(ctx); err != nil {
		return nil, err
	}
	if len(args) > 0 {
		args = append([]driver.NamedValue{prepareKept}, args...)
	}
	return c.Conn.ExecContext(ctx, query, args)
}

func (c *rlsConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	ctx = driverContext(ctx)
	if err := c.ensure(ctx); err != nil {
		return nil, err
	}
	if c.texts.repeated(query) {
		args = append([]driver.NamedValue{prepareKept}, args...)
	} else if binaryResults(ctx) {
		args = append([]driver.NamedValue{describeFirst}, args...)
	}
	return c.Conn.QueryContext(ctx, query, args)
}

// PrepareContext is refused: a prepared statement runs later under whatever context its
// caller has, which the connection cannot check. The statements pgx prepares for repeated
// reads (QueryContext) run only through QueryContext, after ensure.
func (c *rlsConn) PrepareContext(context.Context, string) (driver.Stmt, error) {
	return nil, errors.New("postgres: prepared statements are not used with row-level security")
}

func (c *rlsConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// BeginTx sets the transaction's tenant at session level before BEGIN, so a rollback
// cannot undo it behind the connection's back.
func (c *rlsConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if err := c.ensure(ctx); err != nil {
		return nil, err
	}
	tx, err := c.Conn.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	c.inTx, c.local = true, nil
	return &rlsTx{Tx: tx, c: c}, nil
}

func (c *rlsConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// rlsTx ends a transaction, and with it any SET LOCAL.
type rlsTx struct {
	driver.Tx
	c *rlsConn
}

func (t *rlsTx) Commit() error {
	t.c.inTx, t.c.local = false, nil
	return t.Tx.Commit()
}

func (t *rlsTx) Rollback() error {
	t.c.inTx, t.c.local = false, nil
	return t.Tx.Rollback()
}

// tenantIDB is a bun handle (the pool or a transaction) whose statements carry a tenant.
// bun's query builders run on the IConn set with Conn, so each New… query is pointed at
// tenantConn, which adds the tenant to the statement's context.
type tenantIDB struct {
	bun.IDB
	conn tenantConn
}

func newTenantIDB(idb bun.IDB, tenantID int64) tenantIDB {
	var raw bun.IConn
	switch db := idb.(type) {
	case *bun.DB:
		raw = db.DB
	case bun.Tx:
		raw = db.Tx
	case bun.Conn:
		raw = db.Conn
	case tenantIDB:
		return newTenantIDB(db.IDB, tenantID)
	default:
		panic("store: unexpected bun handle")
	}
	return tenantIDB{IDB: idb, conn: tenantConn{raw: raw, tenantID: tenantID}}
}

func (t tenantIDB) NewValues(model any) *bun.ValuesQuery { return t.IDB.NewValues(model).Conn(t.conn) }
func (t tenantIDB) NewSelect() *bun.SelectQuery          { return t.IDB.NewSelect().Conn(t.conn) }
func (t tenantIDB) NewInsert() *bun.InsertQuery          { return t.IDB.NewInsert().Conn(t.conn) }
func (t tenantIDB) NewUpdate() *bun.UpdateQuery          { return t.IDB.NewUpdate().Conn(t.conn) }
func (t tenantIDB) NewDelete() *bun.DeleteQuery          { return t.IDB.NewDelete().Conn(t.conn) }
func (t tenantIDB) NewMerge() *bun.MergeQuery            { return t.IDB.NewMerge().Conn(t.conn) }
func (t tenantIDB) NewRaw(query string, args ...any) *bun.RawQuery {
	return t.IDB.NewRaw(query, args...).Conn(t.conn)
}

// The direct calls keep bun's formatting of ? arguments and add the tenant. A query with
// values sent apart (withBound: an explained list statement) goes to tenantConn as it is,
// since bun's formatting would drop them.

func (t tenantIDB) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if len(args) == 0 && len(BoundArgs(ctx)) > 0 {
		return t.conn.QueryContext(ctx, query)
	}
	return t.IDB.QueryContext(withTenant(ctx, t.conn.tenantID), query, args...)
}

func (t tenantIDB) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.IDB.ExecContext(withTenant(ctx, t.conn.tenantID), query, args...)
}

func (t tenantIDB) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return t.IDB.QueryRowContext(withTenant(ctx, t.conn.tenantID), query, args...)
}

// tenantConn runs the statements bun has built (already formatted) on the database/sql
// handle under a bun handle, with the tenant in their context.
type tenantConn struct {
	raw      bun.IConn
	tenantID int64
}

// QueryContext and QueryRowContext leave the watch of the request's context to the driver
// (detach.go).
func (c tenantConn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if len(args) == 0 {
		args = BoundArgs(ctx)
	}
	return c.raw.QueryContext(detachFromSQL(withTenant(ctx, c.tenantID)), query, args...)
}

func (c tenantConn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if len(args) == 0 {
		args = BoundArgs(ctx)
	}
	return c.raw.ExecContext(withTenant(ctx, c.tenantID), query, args...)
}

func (c tenantConn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return c.raw.QueryRowContext(detachFromSQL(withTenant(ctx, c.tenantID)), query, args...)
}
