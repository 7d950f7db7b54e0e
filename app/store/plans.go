package store

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"sync"

	"github.com/uptrace/bun"
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
// (a lead view by a new id, an import batch's lookups). Only reads are kept (cacheable),
// and the writes whose values come apart from their text, written to repeat
// (rlsConn.ExecContext, insert_apart.go).

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
// would otherwise differ for each lead. Give the context to that one query only, and
// write the parameters with Scope.param, which keeps SQLite's planner off their values.
func withBound(ctx context.Context, vals ...any) context.Context {
	return context.WithValue(ctx, boundArgsKey{}, vals)
}

// binaryResultsKey marks a read whose results PostgreSQL should send in binary.
type binaryResultsKey struct{}

// withBinaryResults is the context of one read of a large binary value (an import's file).
// A statement run once, as most are (prepareKept keeps only texts that repeat), gets its
// results as text, and PostgreSQL sends bytea as text in hex: twice its size, encoded by the
// server and decoded by pgx. Described first, it comes in binary: a 40 MB file in 80–92 ms
// against 210–240 ms (BenchmarkImportContent; docs/PERFORMANCE.md, "Forty-third round").
// The description is one more round trip, nothing beside a read of megabytes. SQLite reads
// the bytes as they are.
func withBinaryResults(ctx context.Context) context.Context {
	return context.WithValue(ctx, binaryResultsKey{}, true)
}

func binaryResults(ctx context.Context) bool {
	v, _ := ctx.Value(binaryResultsKey{}).(bool)
	return v
}

// BoundArgs are the parameter values a query's context carries (withBound), for the
// connection and for query hooks that replay statements (the bench).
func BoundArgs(ctx context.Context) []any {
	v, _ := ctx.Value(boundArgsKey{}).([]any)
	return v
}

// param is how a statement's text names its n-th value sent apart (withBound): $n, and on
// SQLite +$n. SQLite's planner reads a bound value to estimate the rows an index gives for
// it (sqlite_stat4, which ANALYZE keeps): l.id = $1 beside l.tenant_id = 1 asked the
// samples of the (tenant_id, id) index. A statement whose plan read a value is compiled
// again as soon as it runs with another, so every view of another lead compiled its
// statement anew (115 µs of 125 at a million leads; docs/PERFORMANCE.md, "Twenty-third
// round"). The unary plus leaves the value out of the estimate and the plan alike: still
// the lookup by rowid.
func (s Scope) param(n int) string {
	if s.Dialect() == SQLite {
		return fmt.Sprintf("+$%d", n)
	}
	return fmt.Sprintf("$%d", n)
}

// boundIDs builds one statement's id lists, each sent apart from the text as the next
// parameter, so the text is the same whatever the ids: planned once a connection on
// PostgreSQL, compiled once on SQLite (where a page of leads by ids written in was a new
// text to compile at every page: 5 % of the server's CPU under the bench's mixed load;
// docs/PERFORMANCE.md, "Twenty-fourth round"). PostgreSQL gets an array
// (column = ANY($n)), SQLite, which has no arrays, a JSON array it reads with json_each.
type boundIDs struct {
	pg   bool
	vals []any
}

func (s Scope) boundIDs() *boundIDs { return &boundIDs{pg: s.Dialect() == Postgres} }

// in keeps the rows of sel whose column is one of ids.
func (b *boundIDs) in(sel *bun.SelectQuery, column string, ids []int64) *bun.SelectQuery {
	if !b.pg {
		list, _ := json.Marshal(ids) // ([]int64 always encodes)
		b.vals = append(b.vals, string(list))
		// +$n: SQLite's planner keeps out of the value (Scope.param).
		return sel.Where(fmt.Sprintf("%s IN (SELECT value FROM json_each(+$%d))", column, len(b.vals)))
	}
	b.vals = append(b.vals, ids)
	return sel.Where(fmt.Sprintf("%s = ANY($%d)", column, len(b.vals)))
}

// arg is how a statement names value v: sent apart from the text as its next parameter
// ($n, PostgreSQL: a rare term's patterns, a next page's cursor); with no b, bun's ? with v
// added to args, written into the text.
func (b *boundIDs) arg(v any, args *[]any) string {
	if b == nil {
		*args = append(*args, v)
		return "?"
	}
	b.vals = append(b.vals, v)
	return fmt.Sprintf("$%d", len(b.vals))
}

// ctx is the context to run the statement with: ctx carrying the values sent apart (none
// with no b).
func (b *boundIDs) ctx(ctx context.Context) context.Context {
	if b == nil || len(b.vals) == 0 {
		return ctx
	}
	return withBound(ctx, b.vals...)
}
