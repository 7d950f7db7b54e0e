package store

import "context"

// A tenant's reads run under the request's context, which ends when the client goes away
// or the request's time is up. Two layers watch such a context: the driver (pgx and the
// SQLite driver stop the statement where it runs) and database/sql, which starts a
// goroutine for every query's rows only to close them when the context ends. Starting that
// goroutine wakes an idle thread of the runtime, on a small VM the other vCPU: 20–25 µs
// of a lead view's 0.43 ms and 130–160 µs of a list page's 1.3 ms, over HTTP
// (docs/PERFORMANCE.md, "Thirtieth round").
//
// So tenantConn hands database/sql a context that cannot end and carries the request's,
// and the driver connections (rlsConn, cachingConn) and connectors give the request's back
// to the driver: a request that ends still stops its statement, in the driver, and the
// rows the statement was returning fail with the context's error. What database/sql no
// longer does is close rows nobody reads; bun and the store close every rows they open.
// A wait for a free connection of the pool is not cut short either: the statement fails
// as soon as it has one. On SQLite the driver's own watch is a goroutine as well, so it is
// kept only for a query that is new or was slow last time (sqlitestmts.go, quickStep).

// requestCtxKey carries the request's context under a context that cannot end.
type requestCtxKey struct{}

// detachFromSQL is ctx, for database/sql: it cannot end, and the driver gets ctx back
// through driverContext. A context that cannot end anyway is returned as it is, and so is
// one that has ended already: database/sql then refuses the statement before it waits
// for a connection.
func detachFromSQL(ctx context.Context) context.Context {
	if ctx.Done() == nil || ctx.Err() != nil {
		return ctx
	}
	return context.WithValue(context.WithoutCancel(ctx), requestCtxKey{}, ctx)
}

// driverContext is the context a statement's driver watches: the request's, when
// database/sql was handed a detached one.
func driverContext(ctx context.Context) context.Context {
	if c, ok := ctx.Value(requestCtxKey{}).(context.Context); ok {
		return c
	}
	return ctx
}
