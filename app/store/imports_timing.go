package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
)

// StatementTimes adds up the time of the database's statements by kind (the statement's
// verb and table, "INSERT journey_entries"), for a measurement's breakdown of where an
// import's time goes. Start it with (*DB).TimeStatements; it costs a map update per
// statement.
type StatementTimes struct {
	mu    sync.Mutex
	total map[string]time.Duration
	count map[string]int
}

// TimeStatements makes every later statement of db add its time to the returned figures.
func (db *DB) TimeStatements() *StatementTimes {
	st := &StatementTimes{total: map[string]time.Duration{}, count: map[string]int{}}
	db.bun.AddQueryHook(st)
	return st
}

// BeforeQuery is bun's hook.
func (st *StatementTimes) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

// AfterQuery is bun's hook.
func (st *StatementTimes) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	k := statementKind(e.Query)
	d := time.Since(e.StartTime)
	st.mu.Lock()
	st.total[k] += d
	st.count[k]++
	st.mu.Unlock()
}

// Reset forgets the figures so far.
func (st *StatementTimes) Reset() {
	st.mu.Lock()
	clear(st.total)
	clear(st.count)
	st.mu.Unlock()
}

// String is the figures, largest first: "INSERT leads 9.1s (200)".
func (st *StatementTimes) String() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	keys := make([]string, 0, len(st.total))
	for k := range st.total {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return int(st.total[b] - st.total[a]) })
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%s %s (%d)", k, st.total[k].Round(time.Millisecond), st.count[k]))
	}
	return strings.Join(out, ", ")
}

// statementKind is a statement's verb and the table it works on (read from the statement's
// start, or for a WITH … UPDATE from its end: statements of an import run to megabytes).
func statementKind(q string) string {
	head := q[:min(len(q), 4000)] // (a select of every column of a lead names its table after 1,500 characters)
	if strings.HasPrefix(head, "WITH") {
		if i := strings.LastIndex(q, ") UPDATE "); i >= 0 {
			head = "UPDATE " + q[i+len(") UPDATE "):min(len(q), i+len(") UPDATE ")+60)]
		}
	}
	f := strings.Fields(head)
	if len(f) == 0 {
		return "?"
	}
	verb := strings.ToUpper(f[0])
	table := func(after string) string {
		for i := 0; i+1 < len(f); i++ {
			if strings.EqualFold(f[i], after) {
				name := strings.Trim(f[i+1], `"(`)
				if j := strings.IndexByte(name, '('); j >= 0 { // unnest(…)
					name = name[:j]
				}
				return name
			}
		}
		return ""
	}
	switch verb {
	case "SELECT":
		if t := table("FROM"); t != "" || len(f) < 2 {
			return "SELECT " + t
		}
		name, _, _ := strings.Cut(f[1], "(") // a function's call: SELECT refresh_statistics('leads')
		return "SELECT " + name
	case "INSERT":
		return "INSERT " + table("INTO")
	case "DELETE":
		return "DELETE " + table("FROM")
	case "UPDATE":
		return "UPDATE " + table("UPDATE")
	}
	return verb
}
