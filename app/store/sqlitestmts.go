package store

import (
	"container/list"
	"context"
	"database/sql/driver"
	"strings"
	"time"

	"modernc.org/sqlite"
)

// SQLite connections that keep their recent queries compiled.
//
// The driver compiles every statement anew (sqlite3_prepare) and throws it away after one
// run. For the lead list, whose four statements are the same text from one request to the
// next (bun writes the values into the text, and page 1 of a list is the same values), the
// compilation was a quarter of the request's time (BenchmarkRequestCost: 113 µs of
// 486 µs). Each connection keeps its last stmtCacheSize queries compiled, by their text,
// and runs a query it has seen with that statement again.
//
// Only queries (SELECT, WITH) are kept: some PRAGMAs do their work when compiled, not
// when run, and writes rarely repeat their text. A text that holds a ';' (maybe a
// script of several statements) or is long (an import's batch) is compiled each time as
// before. A statement whose rows are still being read is not lent out again: a second
// query of the same text meanwhile (a query inside the loop over another's rows) is
// compiled for itself.

// stmtCacheSize is how many compiled queries a connection keeps.
const stmtCacheSize = 64

// stmtCacheMaxLen is the longest query text kept compiled.
const stmtCacheMaxLen = 16 << 10

// A query the driver runs under a context that can end gets a goroutine of the driver's
// own, which waits for the context to end or the statement's first step to finish and
// interrupts the statement in the first case (the driver's only way to stop one). Starting
// it wakes an idle thread of the runtime, on a small VM the other vCPU: a list page's four
// statements paid 85–191 µs of its 1.2–1.8 ms for them over HTTP, and the server 127–264 µs
// of CPU (docs/PERFORMANCE.md, "Thirty-second round"). Such a watch is worth it for a
// statement that runs long, not for one that is over in a fraction of a millisecond.
//
// So a kept query whose last first step (the driver's query call, where SQLite does a
// sorted or aggregated query's work) took less than quickStep runs under a context that
// cannot end: no goroutine, no interrupt. A query that is new to the connection, or was
// slow last time, is watched as before. The cost: a request that ends while such a query
// runs waits for it to finish, about as long as it took last time unless its data grew
// meanwhile; then it was slow, and the next run is watched again. A request that has
// ended already is refused before its statement runs either way.
const quickStep = time.Millisecond

// stmtCachingConnector opens SQLite connections through the driver's own connector and
// gives each a statement cache.
type stmtCachingConnector struct{ driver.Connector }

func newStmtCachingConnector(dsn string) (driver.Connector, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return stmtCachingConnector{c}, nil
}

func (c stmtCachingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(driverContext(ctx))
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(sqliteConn)
	if !ok { // another driver version: run it as it is
		return conn, nil
	}
	return &cachingConn{conn: sc, stmts: map[string]*list.Element{}, lru: list.New()}, nil
}

// sqliteConn is what the driver's connection does, as database/sql uses it.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// cachingConn is a driver connection with its statement cache. database/sql uses a
// connection from one goroutine at a time, so the cache needs no lock.
type cachingConn struct {
	conn  sqliteConn
	stmts map[string]*list.Element // query text → its entry in lru
	lru   *list.List               // *cachedStmt, the most recently used first

	compiled, closed int // statements of the cache compiled and closed, for the tests
}

// cachedStmt is a compiled query, whether rows of it are being read, and whether its last
// run's first step took less than quickStep.
type cachedStmt struct {
	query string
	stmt  driver.Stmt
	busy  bool
	quick bool
}

// cacheable says whether a query text may be kept compiled.
func cacheable(query string) bool {
	if len(query) > stmtCacheMaxLen || strings.Contains(query, ";") {
		return false
	}
	q := strings.TrimLeft(query, " \t\r\n(")
	if len(q) < 6 {
		return false
	}
	head := strings.ToUpper(q[:6])
	return head == "SELECT" || strings.HasPrefix(head, "WITH ")
}

// QueryContext runs a query, with its kept statement when there is one free, unwatched
// when that statement was quick last time (quickStep).
func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	ctx = driverContext(ctx)
	if !cacheable(query) {
		return c.conn.QueryContext(ctx, query, args)
	}
	cs, err := c.lend(ctx, query)
	if err != nil {
		return nil, err
	}
	if cs == nil {
		return c.conn.QueryContext(ctx, query, args)
	}
	run := ctx
	if cs.quick && ctx.Done() != nil {
		if err := ctx.Err(); err != nil {
			cs.busy = false
			return nil, err
		}
		run = context.WithoutCancel(ctx)
	}
	start := time.Now()
	rows, err := cs.stmt.(driver.StmtQueryContext).QueryContext(run, args)
	cs.quick = err == nil && time.Since(start) < quickStep
	if err != nil {
		cs.busy = false
		return nil, err
	}
	sr, ok := rows.(sqliteRows)
	if !ok { // not the driver's rows as this file knows them: hand the statement back
		cs.busy = false
		_ = rows.Close()
		return c.conn.QueryContext(ctx, query, args)
	}
	return &lentRows{sqliteRows: sr, cs: cs, conn: c}, nil
}

// lend is the kept statement of query, compiled and kept if new, marked busy; nil when
// the kept one is busy.
func (c *cachingConn) lend(ctx context.Context, query string) (*cachedStmt, error) {
	if e, ok := c.stmts[query]; ok {
		cs := e.Value.(*cachedStmt)
		if cs.busy {
			return nil, nil
		}
		c.lru.MoveToFront(e)
		cs.busy = true
		return cs, nil
	}
	st, err := c.conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.compiled++
	cs := &cachedStmt{query: query, stmt: st, busy: true}
	c.stmts[query] = c.lru.PushFront(cs)
	for c.lru.Len() > stmtCacheSize {
		c.evict(c.lru.Back())
	}
	return cs, nil
}

// evict forgets a kept statement; one being read is closed by its rows.
func (c *cachingConn) evict(e *list.Element) {
	cs := c.lru.Remove(e).(*cachedStmt)
	delete(c.stmts, cs.query)
	if !cs.busy {
		_ = cs.stmt.Close()
		c.closed++
	} else {
		cs.query = "" // orphaned: lentRows.Close closes it
	}
}

func (c *cachingConn) Prepare(query string) (driver.Stmt, error) { return c.conn.Prepare(query) }

func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.conn.PrepareContext(ctx, query)
}

func (c *cachingConn) Begin() (driver.Tx, error) { //nolint:staticcheck // database/sql calls BeginTx
	return c.conn.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.conn.BeginTx(ctx, opts)
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.conn.ExecContext(ctx, query, args)
}

func (c *cachingConn) Ping(ctx context.Context) error         { return c.conn.Ping(ctx) }
func (c *cachingConn) ResetSession(ctx context.Context) error { return c.conn.ResetSession(ctx) }
func (c *cachingConn) IsValid() bool                          { return c.conn.IsValid() }

// Close finalizes the kept statements, then closes the connection.
func (c *cachingConn) Close() error {
	for e := c.lru.Front(); e != nil; e = e.Next() {
		_ = e.Value.(*cachedStmt).stmt.Close()
	}
	c.lru.Init()
	clear(c.stmts)
	return c.conn.Close()
}

// sqliteRows is what the driver's rows do, as database/sql and bun read them.
type sqliteRows interface {
	driver.Rows
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeLength
	driver.RowsColumnTypeNullable
	driver.RowsColumnTypePrecisionScale
	driver.RowsColumnTypeScanType
}

// lentRows are the rows of a kept statement: closing them hands the statement back.
type lentRows struct {
	sqliteRows
	cs   *cachedStmt
	conn *cachingConn
}

func (r *lentRows) Close() error {
	err := r.sqliteRows.Close()
	r.cs.busy = false
	if r.cs.query == "" { // evicted while its rows were read
		if cerr := r.cs.stmt.Close(); err == nil {
			err = cerr
		}
		r.conn.closed++
	}
	return err
}
