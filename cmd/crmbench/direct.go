package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"crm/app/leads"
	"crm/app/store"
)

// The same SQL run directly: the statements the store sends for page 1 of the list and for
// a lead view, recorded in process (the same store calls as the handlers, with the same
// caller), then run again as they are over a plain connection, one at a time, to set the
// app's latency against its SQL's.

// ratioBudget is how many times its SQL's p50 a request's p50 may take.
const ratioBudget = 2.0

// statement is one statement the store sent: its text and the values it sent apart from
// it (store.BoundArgs: a lead view's id).
type statement struct {
	text string
	args []any
}

func (s statement) String() string {
	if len(s.args) == 0 {
		return s.text
	}
	return fmt.Sprintf("%s  -- with %v", s.text, s.args)
}

// recorder keeps every statement the store sends.
type recorder struct {
	mu    sync.Mutex
	stmts []statement
}

func (r *recorder) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (r *recorder) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	r.mu.Lock()
	r.stmts = append(r.stmts, statement{e.Query, store.BoundArgs(ctx)})
	r.mu.Unlock()
}

// take returns the statements recorded since the last take.
func (r *recorder) take() []statement {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.stmts
	r.stmts = nil
	return out
}

// direct compares page 1 of the list and the lead view with their SQL run directly.
func (b *bench) direct(ctx context.Context) error {
	cl := b.callers[0]
	db, err := store.Open(ctx, b.appURL) // as the server: on PostgreSQL its role, which row-level security binds
	if err != nil {
		return err
	}
	defer db.Close()
	scope, err := callerScope(ctx, db, cl.spec.id, cl.spec.admin)
	if err != nil {
		return err
	}
	list, viewSQL, err := recordRequests(ctx, db, scope, cl.ids, warmups(b.c.seq)+b.c.seq)
	if err != nil {
		return err
	}
	listSQL := [][]statement{list}
	fmt.Fprintf(b.out, "page 1 of the list sends %d statement(s):\n", len(listSQL[0]))
	for _, s := range listSQL[0] {
		fmt.Fprintf(b.out, "  %s\n", s)
	}
	fmt.Fprintf(b.out, "a lead view sends %d statement(s), e.g.:\n", len(viewSQL[0]))
	for _, s := range viewSQL[0] {
		fmt.Fprintf(b.out, "  %s\n", s)
	}

	conn, done, how, err := replayConn(ctx, b.engine, b.dbURL, b.appURL, cl.spec.id)
	if err != nil {
		return err
	}
	defer done()
	seqs := map[string]seqCase{}
	for _, sc := range b.seqCases() {
		if sc.key != "" {
			seqs[sc.key] = sc
		}
	}
	floor, err := b.httpFloor(ctx, b.callers[0].admin)
	if err != nil {
		return err
	}
	for _, c := range []struct {
		key, name string
		sql       [][]statement
	}{{keyList, "list page 1 (admin)", listSQL}, {keyView, "lead view, random ids (admin)", viewSQL}} {
		for _, cmp := range b.comparisons() {
			app, st, server, err := b.sideBySide(ctx, seqs[c.key], conn, c.sql, cmp)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			name, note := c.name+", the same SQL directly", how
			if cmp.mode == planEach {
				// The issue's own comparison, for the record: each statement planned anew.
				name, note = c.name+", the same SQL planned each time", how+", each statement sent as text (as psql sends it)"
			}
			if cmp.client == goClient {
				name += ", the app asked through net/http's client"
			}
			r := result{engine: b.engine, name: name, load: fmt.Sprintf("sequential, %d", b.c.seq),
				st: &st, stmts: strconv.Itoa(len(c.sql[0])), note: note + "; in turn with the app's requests"}
			fmt.Fprintln(b.out, r.row())
			b.results = append(b.results, r)
			fig := ratioFigure(b.engine, name, app, st, floor[cmp.client], server, cmp.budgeted())
			fmt.Fprintln(b.out, fig.row())
			b.results = append(b.results, fig)
		}
	}
	return b.referenceRuns(ctx, cl, conn, listSQL, viewSQL) // reference.go
}

// recordRequests sends page 1 of the list, then a view of each of the first n of ids (n in
// all, as the sequential case asks them), through the store with the caller's scope, as
// the handlers do, and gives the statements of each request. It adds its recorder to db's
// hooks, so db is to be used for nothing else.
func recordRequests(ctx context.Context, db *store.DB, scope store.Scope, ids []int64, n int) (list []statement, views [][]statement, err error) {
	rec := &recorder{}
	db.AddQueryHook(rec)
	q, _, errs := leads.Query(url.Values{"page": {"1"}, "limit": {"20"}})
	if err := errs.Err(); err != nil {
		return nil, nil, err
	}
	q.Page = 1
	if _, err := scope.ListLeads(ctx, q); err != nil {
		return nil, nil, err
	}
	list = rec.take()
	for k := range min(n, len(ids)) {
		if _, err := scope.LeadView(ctx, ids[k]); err != nil {
			return nil, nil, fmt.Errorf("lead %d: %w", ids[k], err)
		}
		views = append(views, rec.take())
	}
	return list, views, nil
}

// ratioFigure is the row of a comparison's ratio, app p50 ÷ SQL p50. Budgeted, it is
// judged against ratioBudget unless its floor is over it: the health check's p50 through
// the same client (HTTP on 127.0.0.1, the middleware, no SQL) plus the SQL's p50, over the
// SQL's p50, is what an app that spent nothing of its own would show; when that is over
// the budget no app can meet it, and the row says so instead of a verdict (SQLite's lead
// view: its SQL runs in the server's own process in 0.03 ms, less than half the floor of
// any answer over HTTP). server, when measured, is what the server's threads spent a
// request (threadWatch.perRequest).
func ratioFigure(engine, name string, app, sqlSt stats, floor time.Duration, server string, budgeted bool) result {
	ratio := float64(app.p50) / float64(sqlSt.p50)
	best := float64(floor+sqlSt.p50) / float64(sqlSt.p50)
	if server != "" {
		server = "; " + server
	}
	fig := result{engine: engine, name: name + ": app p50 ÷ SQL p50",
		figure: fmt.Sprintf("%.2f× (app %s, SQL %s; p99 %s vs %s; the floor, a health check plus the SQL: %.2f×%s)",
			ratio, msFine(app.p50), msFine(sqlSt.p50), ms(app.p99), ms(sqlSt.p99), best, server),
		missed: app.errors > 0}
	if budgeted {
		fig.limit = fmt.Sprintf("≤ %.0f×", ratioBudget)
		fig.missed = !(ratio <= ratioBudget) || app.errors > 0
		if best > ratioBudget {
			fig.limit, fig.missed = "", app.errors > 0
			fig.note = fmt.Sprintf("not judged: its floor is over %.0f×, which no answer over HTTP can meet", ratioBudget)
		}
	}
	return fig
}

// msFine is a duration in milliseconds to the hundredth, for the small figures a ratio is
// taken of (ms rounds 0.26 and 0.34 alike to 0.3).
func msFine(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

// appClient is how the comparison asks the app for its answers.
type appClient int

const (
	// lean: leanClient, which adds no hand-off of its own (the budget).
	lean appClient = iota
	// goClient: net/http's Client, as the sequential cases ask (reported).
	goClient
)

// comparison is one side-by-side run: how the app is asked and how its SQL is replayed.
type comparison struct {
	client appClient
	mode   replayMode
}

// budgeted says whether the ratio is held to ratioBudget: the app through the lean client
// against its SQL run as the server runs it.
func (c comparison) budgeted() bool { return c.client == lean && c.mode != planEach }

// comparisons are the side-by-side runs of each case: the budgeted one, the same through
// net/http's client, and on PostgreSQL the SQL planned each time.
func (b *bench) comparisons() []comparison {
	modes := b.replayModes()
	out := []comparison{{lean, modes[0]}, {goClient, modes[0]}}
	for _, m := range modes[1:] {
		out = append(out, comparison{lean, m})
	}
	return out
}

// httpFloor times the health check through each client, in turns, and reports it: the
// part of any request that is neither its SQL nor its own work.
func (b *bench) httpFloor(ctx context.Context, s session) (map[appClient]time.Duration, error) {
	askLean, closeLean, err := b.asker(ctx, lean, s)
	if err != nil {
		return nil, err
	}
	defer closeLean()
	askGo, closeGo, err := b.asker(ctx, goClient, s)
	if err != nil {
		return nil, err
	}
	defer closeGo()
	warm := warmups(b.c.seq)
	threads := watchThreads(b.pid)
	leanLat, goLat, err := inTurns(warm, b.c.seq,
		func(int) error { return askLean("/healthz") },
		func(int) error { return askGo("/healthz") }, time.Now)
	if err != nil {
		return nil, fmt.Errorf("health check: %w", err)
	}
	if cost := threads.perRequest(2 * (warm + b.c.seq)); cost != "" {
		r := result{engine: b.engine, name: "health check, what the server spent (both clients)", figure: cost}
		fmt.Fprintln(b.out, r.row())
		b.results = append(b.results, r)
	}
	floor := map[appClient]time.Duration{}
	for _, side := range []struct {
		c    appClient
		lat  []time.Duration
		name string
	}{{lean, leanLat, "the lean client (one goroutine, answers not inflated)"}, {goClient, goLat, "net/http's client"}} {
		st := newStats(side.lat, 0, nil)
		floor[side.c] = st.p50
		r := result{engine: b.engine, name: "health check, the floor of the comparison, through " + side.name,
			load: fmt.Sprintf("sequential, %d", b.c.seq), st: &st, note: "in turn with the other client"}
		fmt.Fprintln(b.out, r.row())
		b.results = append(b.results, r)
	}
	return floor, nil
}

// sideBySide times the app's requests of sc, asked through cmp's client, and the same
// requests' statements run directly over conn as cmp's mode says (reqs[k] being request
// k's), in turns: request k, then its statements, or the
// other way round for every other k. Taken in turns, the two sides see the same moments of
// a machine whose speed drifts (a VM's neighbours: the same code measured 1.7× and 2.7×
// for the view a minute apart when the app's requests ran as a block before the SQL's), and
// neither always finds the rows the other has just read in the database's cache. server is
// what the server's threads spent a request meanwhile: its CPU and thread switches, all the
// app's (the replay runs in this process).
func (b *bench) sideBySide(ctx context.Context, sc seqCase, conn *sql.Conn, reqs [][]statement, cmp comparison) (app, direct stats, server string, err error) {
	if len(sc.paths) == 0 || len(reqs) == 0 {
		return stats{}, stats{}, "", errors.New("nothing to measure")
	}
	ask, closeClient, err := b.asker(ctx, cmp.client, sc.s)
	if err != nil {
		return stats{}, stats{}, "", err
	}
	defer closeClient()
	run, done := replayer(ctx, conn, cmp.mode, drain)
	defer done()
	appErrs := 0
	warm := warmups(b.c.seq)
	threads := watchThreads(b.pid)
	appLat, sqlLat, err := inTurns(warm, b.c.seq,
		func(k int) error {
			if ask(sc.paths[k%len(sc.paths)]) != nil {
				appErrs++ // counted, as the sequential cases count them
			}
			return ctx.Err()
		},
		func(k int) error { return run(reqs[k%len(reqs)]) }, time.Now)
	if err != nil {
		return stats{}, stats{}, "", err
	}
	return newStats(appLat, appErrs, nil), newStats(sqlLat, 0, nil), threads.perRequest(warm + b.c.seq), nil
}

// asker asks the app for a path through the client c names, and what closes it.
func (b *bench) asker(ctx context.Context, c appClient, s session) (ask func(path string) error, closeClient func(), err error) {
	if c == lean {
		lc, err := newLeanClient(b.base)
		if err != nil {
			return nil, nil, err
		}
		return func(path string) error { return lc.get(path, s) }, lc.close, nil
	}
	gc := seqClient()
	return func(path string) error { return get(ctx, gc, b.base+path, s) }, gc.CloseIdleConnections, nil
}

// inTurns runs a(k) and b(k) for k from 0 to warm+n-1, a first for even k and b first for
// odd k, and gives the times of the last n of each, read from now. It stops at the first
// error.
func inTurns(warm, n int, a, b func(k int) error, now func() time.Time) (aLat, bLat []time.Duration, err error) {
	timed := func(f func(int) error, k int) (time.Duration, error) {
		start := now()
		err := f(k)
		return now().Sub(start), err
	}
	for k := range warm + n {
		first, second := a, b
		if k%2 == 1 {
			first, second = b, a
		}
		d1, err := timed(first, k)
		if err != nil {
			return nil, nil, err
		}
		d2, err := timed(second, k)
		if err != nil {
			return nil, nil, err
		}
		if k < warm {
			continue
		}
		if k%2 == 1 {
			d1, d2 = d2, d1
		}
		aLat, bLat = append(aLat, d1), append(bLat, d2)
	}
	return aLat, bLat, nil
}

// callerScope is the scope the server gives the user of that email in the tenant: its
// tenant, its id and its role's permissions, as web.NewPrincipal builds it.
func callerScope(ctx context.Context, db *store.DB, tenantID int64, email string) (store.Scope, error) {
	users, err := db.System(tenantID, 0).Users(ctx)
	if err != nil {
		return store.Scope{}, err
	}
	for _, u := range users {
		if strings.EqualFold(u.Email, email) {
			_, t, perms, err := db.Caller(ctx, tenantID, u.ID)
			if err != nil {
				return store.Scope{}, err
			}
			return db.Tenant(t.ID, u.ID).WithPermissions(perms), nil
		}
	}
	return store.Scope{}, fmt.Errorf("no user %s in tenant %d", email, tenantID)
}

// replayConn is one plain connection to the bench's database, as the server's statements
// would find it, what closes it, and a line saying how it was made.
func replayConn(ctx context.Context, engine, dbURL, appURL string, tenantID int64) (*sql.Conn, func(), string, error) {
	var db *sql.DB
	var how string
	if engine == "sqlite" {
		path := strings.TrimPrefix(dbURL, "sqlite:")
		var err error
		if db, err = sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)"); err != nil {
			return nil, nil, "", err
		}
		how = "modernc.org/sqlite, one connection, each statement compiled once (as the server keeps them)"
	} else {
		u, err := url.Parse(appURL)
		if err != nil {
			return nil, nil, "", err
		}
		// As the store runs them: a statement's first run in one round trip, unprepared; the
		// replay prepares a text from its second run (replayer).
		qv := u.Query()
		qv.Set("default_query_exec_mode", "exec")
		u.RawQuery = qv.Encode()
		if db, err = sql.Open("pgx", u.String()); err != nil {
			return nil, nil, "", err
		}
		how = fmt.Sprintf("pgx, one connection as %s (row-level security applies), app.tenant_id set once, a text prepared from its second run (as the server runs it)", u.User.Username())
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, "", err
	}
	done := func() { conn.Close(); db.Close() }
	if engine != "sqlite" {
		if _, err := conn.ExecContext(ctx, "SELECT set_config('app.tenant_id', $1, false)", strconv.FormatInt(tenantID, 10)); err != nil {
			done()
			return nil, nil, "", err
		}
	}
	return conn, done, how, nil
}

// replayModes are the ways the same SQL is run directly: as the server runs it (the
// ratio's budget), and on PostgreSQL also planned each time, as psql would.
func (b *bench) replayModes() []replayMode {
	if b.engine == "sqlite" {
		return []replayMode{keepCompiled}
	}
	return []replayMode{prepareRepeated, planEach}
}

// How the replay runs a statement.
type replayMode int

const (
	// keepCompiled: each text compiled once and run again from then on, as the server's
	// SQLite connections keep their queries (store/sqlitestmts.go).
	keepCompiled replayMode = iota
	// prepareRepeated: a text's first run sent as text in one round trip, and from its
	// second on a statement prepared once, as the server's PostgreSQL connections run a
	// read they have seen before (store/plans.go).
	prepareRepeated
	// planEach: every run sent as text and planned anew, as psql sends a statement (the
	// issue's own "same SQL run directly", and the server's way before store/plans.go).
	planEach
)

// replayer runs one request's statements over conn as mode says, each statement's rows
// handed to read (drain reads them to the end; the reference server keeps their values).
// done closes what it kept.
//
// The statements run under a context that cannot end, as a shell runs SQL: under one that
// can, database/sql starts a goroutine for every statement's rows to watch it, and the
// SQLite driver another to interrupt it, and each wakes an idle thread. The server's
// reads start neither (store/detach.go, store/sqlitestmts.go), so the replay must not
// charge them to the SQL. The bench's end is still seen between requests (inTurns).
func replayer(ctx context.Context, conn *sql.Conn, mode replayMode, read func(*sql.Rows) error) (run func(stmts []statement) error, done func()) {
	ctx = context.WithoutCancel(ctx)
	kept := map[string]*sql.Stmt{}
	seen := map[string]bool{}
	query := func(s statement) (*sql.Rows, error) {
		switch mode {
		case planEach:
			return conn.QueryContext(ctx, s.text, s.args...)
		case prepareRepeated:
			if !seen[s.text] {
				seen[s.text] = true
				return conn.QueryContext(ctx, s.text, s.args...)
			}
			return conn.QueryContext(ctx, s.text, append([]any{pgx.QueryExecModeCacheStatement}, s.args...)...)
		}
		st, ok := kept[s.text]
		if !ok {
			var err error
			if st, err = conn.PrepareContext(ctx, s.text); err != nil {
				return nil, err
			}
			kept[s.text] = st
		}
		return st.QueryContext(ctx, s.args...)
	}
	run = func(stmts []statement) error {
		for _, s := range stmts {
			rows, err := query(s)
			if err == nil {
				err = read(rows)
			}
			if err != nil {
				return fmt.Errorf("%w\n%s", err, s)
			}
		}
		return nil
	}
	done = func() {
		for _, st := range kept {
			st.Close()
		}
	}
	return run, done
}

// drain reads a statement's rows to the end and closes them.
func drain(rows *sql.Rows) error {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
	}
	return rows.Err()
}
