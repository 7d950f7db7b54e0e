package store

import (
	"context"
	"hash/maphash"
	"sync"
)

// PostgreSQL plans each statement it is sent as text, and for the short reads that serve
// most requests planning costs more than running: list page 1's four statements took
// 1.22 ms sent as text and 0.35 ms prepared, a lead view 0.55 ms and 0.12 ms (pgbench,
// 20,000 leads; docs/PERFORMANCE.md, "Twenty-second round"). bun writes the values into
// the text, so a statement repeats exactly when a request does: page 1 of the same list
// for the same caller, its counters, a search asked again. A text the server has seen
// before is run as a statement each connection prepares once and keeps (pgx's statement
// cache, StatementCacheCapacity a connection), so PostgreSQL plans it once a connection;
// a text seen for the first time runs as before, in one round trip, and prepares nothing
// (a lead view by a new id, an import batch's lookups). Only reads are kept (cacheable).

// seenTextsMax bounds the texts remembered; past it the memory starts again.
const seenTextsMax = 1 << 14

// repeatedTexts remembers which statement texts have been run, by a hash of the text.
type repeatedTexts struct {
	mu   sync.Mutex
	seed maphash.Seed
	seen map[uint64]struct{}
}

func newRepeatedTexts() *repeatedTexts {
	return &repeatedTexts{seed: maphash.MakeSeed(), seen: make(map[uint64]struct{})}
}

// repeated says whether query is a read that ran before, and remembers it.
func (r *repeatedTexts) repeated(query string) bool {
	if !cacheable(query) {
		return false
	}
	h := maphash.String(r.seed, query)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.seen[h]; ok {
		return true
	}
	if len(r.seen) >= seenTextsMax {
		clear(r.seen)
	}
	r.seen[h] = struct{}{}
	return false
}

// boundArgsKey carries the values of a query's $1…$n parameters to its connection.
type boundArgsKey struct{}

// withBound is the context of one bun query whose text names parameters $1…$n (bun leaves
// them alone; it writes only ? values into the text), with vals as their values: the
// tenant's connection (tenantConn) sends them apart from the text. A read that names its
// varying value this way is one text for every value, so PostgreSQL plans it once a
// connection and SQLite compiles it once (sqlitestmts.go): a lead view by id, whose text
// would otherwise differ for each lead. Give the context to that one query only.
func withBound(ctx context.Context, vals ...any) context.Context {
	return context.WithValue(ctx, boundArgsKey{}, vals)
}

// BoundArgs are the parameter values a query's context carries (withBound), for the
// connection and for query hooks that replay statements (the bench).
func BoundArgs(ctx context.Context) []any {
	v, _ := ctx.Value(boundArgsKey{}).([]any)
	return v
}
