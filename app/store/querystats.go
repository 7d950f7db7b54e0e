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

// changesCallers reports whether a statement writes to one of callerTables. bun writes
// `INSERT INTO "t"`, `UPDATE "t"`, `DELETE FROM "t"`; raw statements may leave the name
// unquoted, and a statement that starts with WITH is searched whole.
func changesCallers(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n")
	op, rest, ok := strings.Cut(q, " ")
	if !ok {
		return false
	}
	switch strings.ToUpper(op) {
	case "UPDATE":
	case "INSERT", "DELETE":
		_, rest, _ = strings.Cut(strings.TrimLeft(rest, " "), " ") // INTO / FROM
	case "WITH":
		lower := strings.ToLower(q)
		for _, t := range callerTables {
			for _, w := range []string{"update ", "insert into ", "delete from "} {
				if strings.Contains(lower, w+`"`+t+`"`) || strings.Contains(lower, w+t+" ") {
					return true
				}
			}
		}
		return false
	default:
		return false
	}
	rest = strings.TrimLeft(rest, " ")
	end := strings.IndexAny(rest, " (\n")
	if end < 0 {
		end = len(rest)
	}
	table := strings.ToLower(strings.Trim(rest[:end], "\"`"))
	if i := strings.LastIndexByte(table, '.'); i >= 0 { // schema.table
		table = strings.Trim(table[i+1:], "\"`")
	}
	for _, t := range callerTables {
		if table == t {
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
