package store

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
)

// QueryStats counts the SQL statements run with a context and the time they took: the
// HTTP layer puts one in each request's context (web.QueryStats) to show where a request's
// time goes (the Server-Timing header, the per-route histograms). Statements a request
// runs in goroutines of its own count too, hence the atomics.
type QueryStats struct {
	statements atomic.Int64
	nanos      atomic.Int64
	switches   atomic.Int64
}

// Statements is the number of statements run so far (BEGIN and COMMIT included: each is a
// round trip).
func (s *QueryStats) Statements() int64 { return s.statements.Load() }

// SQLTime is the time spent in those statements, from bun's call to its answer.
func (s *QueryStats) SQLTime() time.Duration { return time.Duration(s.nanos.Load()) }

// TenantSwitches is how many of those statements first set app.tenant_id on their
// PostgreSQL connection (one more round trip each, inside the statement's time; rls.go).
func (s *QueryStats) TenantSwitches() int64 { return s.switches.Load() }

type queryStatsKey struct{}

// WithQueryStats is ctx counting its statements into a new QueryStats.
func WithQueryStats(ctx context.Context) (context.Context, *QueryStats) {
	s := &QueryStats{}
	return context.WithValue(ctx, queryStatsKey{}, s), s
}

// QueryStatsFrom is the QueryStats ctx counts into, or nil.
func QueryStatsFrom(ctx context.Context) *QueryStats {
	s, _ := ctx.Value(queryStatsKey{}).(*QueryStats)
	return s
}

// queryHook is the one bun hook of every DB: it counts statements into the context's
// QueryStats and notices the writes that change who a caller is (callerTables), which end
// every cached caller (callercache.go).
type queryHook struct{}

func (queryHook) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (queryHook) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	if s := QueryStatsFrom(ctx); s != nil {
		s.statements.Add(1)
		s.nanos.Add(int64(time.Since(e.StartTime)))
	}
	if changesCallers(e.Query) && ctx.Value(quietWriteKey{}) == nil {
		callersChanged()
	}
}

// callerTables are the tables a cached caller (or API token) is read from or depends on:
// a write to any of them ends every cached caller of the process.
var callerTables = []string{"users", "roles", "role_permissions", "teams", "team_members", "tenants", "api_tokens"}

// changesCallers reports whether a statement writes to one of callerTables: it has
// `UPDATE t`, `INSERT INTO t` or `DELETE FROM t`, in any case, the name quoted or not,
// with or without its schema, anywhere (a WITH's data-modifying parts too). It runs after
// every statement, and an import's are megabytes of values, so it reads the text once and
// jumps over string literals and comments, where such words mean nothing: lowering the
// whole text and searching it for each table and verb took 5 % of an import's CPU
// (docs/PERFORMANCE.md, "Twenty-sixth round").
func changesCallers(query string) bool {
	if isOneSelect(query) {
		return false
	}
	var prev, prev2 string // the two words before, outside literals and comments
	for i := 0; i < len(query); {
		c := query[i]
		switch {
		case c == '\'':
			// '' inside a literal ends it and opens the next one: the same as one literal
			j := strings.IndexByte(query[i+1:], '\'')
			if j < 0 {
				return false
			}
			i += j + 2
		case c == '-' && strings.HasPrefix(query[i:], "--"):
			j := strings.IndexByte(query[i:], '\n')
			if j < 0 {
				return false
			}
			i += j + 1
		case c == '/' && strings.HasPrefix(query[i:], "/*"):
			j := strings.Index(query[i+2:], "*/")
			if j < 0 {
				return false
			}
			i += j + 4
		case isWordByte(c):
			j := i + 1
			for j < len(query) && isWordByte(query[j]) {
				j++
			}
			word := query[i:j]
			i = j
			if strings.EqualFold(prev, "update") ||
				strings.EqualFold(prev, "into") && strings.EqualFold(prev2, "insert") ||
				strings.EqualFold(prev, "from") && strings.EqualFold(prev2, "delete") {
				if isCallerTable(word) {
					return true
				}
			}
			prev, prev2 = word, prev
		default:
			i++
		}
	}
	return false
}

// isOneSelect says whether a statement is a single SELECT, which writes nothing (a
// data-modifying WITH starts with WITH). Most statements are reads, and reading them word by
// word took a tenth of a lead view's CPU in the app, its text 1.5 KB of columns
// (docs/PERFORMANCE.md, "Thirty-seventh round"). A ';' anywhere, even in a literal, sends the
// text to the full reading.
func isOneSelect(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n")
	return len(q) >= 6 && strings.EqualFold(q[:6], "select") && strings.IndexByte(q, ';') < 0
}

// isWordByte says whether c belongs to a word of a statement: a keyword, or a name with
// its quotes and schema ("public"."users").
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '"' || c == '`' || c == '.'
}

// isCallerTable says whether a name, as a statement spells it, is one of callerTables.
func isCallerTable(name string) bool {
	if i := strings.LastIndexByte(name, '.'); i >= 0 { // schema.table
		name = name[i+1:]
	}
	name = strings.Trim(name, "\"`")
	for _, t := range callerTables {
		if strings.EqualFold(name, t) {
			return true
		}
	}
	return false
}

// quietWriteKey marks a write to a caller table that changes nothing a caller is made of
// (an API token's last use), so it does not end the cached callers.
type quietWriteKey struct{}

func quietWrite(ctx context.Context) context.Context {
	return context.WithValue(ctx, quietWriteKey{}, true)
}
