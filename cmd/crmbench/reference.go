package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	gojson "github.com/goccy/go-json"

	"crm/app/store"
	"crm/app/web"
)

// The reference server: the least any Go server on our stack does to answer page 1 of the
// list and a lead view. It is this program again, started as `crmbench reference-serve`,
// a process of its own like the app. It records the same statements the direct case
// replays (recordRequests) and answers each request by running them over one connection
// as that replay does, through net/http and database/sql, with nothing else: no
// middleware, no session, no bun, no store. Two kinds of answer:
//
//   - /none/…: the rows are read into Go values and the answer is "{}": what reading the
//     rows and answering over HTTP cost at the least;
//   - /json/…: the same values as JSON (goccy/go-json, as the app's), gzipped by the app's
//     own web.Compress: the least an answer that carries the rows costs.
//
// Its p50 over the SQL's p50 is what the app's ratio could be with nothing of ours in the
// way; it is reported beside the app's, never judged (docs/PERFORMANCE.md, "Thirty-fifth
// round").

// referenceCmd is the argument that makes this program the reference server.
const referenceCmd = "reference-serve"

// referenceSpec is what the reference server is told on its standard input.
type referenceSpec struct {
	Engine string     `json:"engine"`
	DBURL  string     `json:"db_url"`  // the owner's database URL (SQLite's file)
	AppURL string     `json:"app_url"` // the server's: on PostgreSQL its role
	Tenant int64      `json:"tenant"`
	Email  string     `json:"email"` // the caller whose requests are recorded
	IDs    []int64    `json:"ids"`   // the leads viewed, in the order asked
	Mode   replayMode `json:"mode"`
}

// runReference is `crmbench reference-serve`: it reads its spec, records the requests'
// statements, prints "reference at <url>" and answers until ctx ends.
func runReference(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	var spec referenceSpec
	if err := json.NewDecoder(stdin).Decode(&spec); err != nil {
		return fmt.Errorf("reference spec: %w", err)
	}
	db, err := store.Open(ctx, spec.AppURL)
	if err != nil {
		return err
	}
	defer db.Close()
	scope, err := callerScope(ctx, db, spec.Tenant, spec.Email)
	if err != nil {
		return err
	}
	list, views, err := recordRequests(ctx, db, scope, spec.IDs, len(spec.IDs))
	if err != nil {
		return err
	}
	conn, done, _, err := replayConn(ctx, spec.Engine, spec.DBURL, spec.AppURL, spec.Tenant)
	if err != nil {
		return err
	}
	defer done()
	h, closeH := referenceHandler(ctx, conn, spec.Mode, list, views)
	defer closeH()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "reference at http://%s\n", ln.Addr())
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// referenceHandler answers GET /{none|json}/list with list's statements and
// GET /{none|json}/view/{k} with views[k]'s, run over conn as mode says. A request holds
// the connection while it runs; close closes what the replay kept.
func referenceHandler(ctx context.Context, conn *sql.Conn, mode replayMode, list []statement, views [][]statement) (h http.Handler, closeFn func()) {
	var mu sync.Mutex
	var got [][][]any // each statement's rows, of the request under way
	run, done := replayer(ctx, conn, mode, func(rows *sql.Rows) error {
		vals, err := rowValues(rows)
		got = append(got, vals)
		return err
	})
	answer := func(w http.ResponseWriter, r *http.Request, stmts []statement) {
		mu.Lock()
		got = nil
		err := run(stmts)
		rows := got
		mu.Unlock()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		switch r.PathValue("body") {
		case "none":
			_, _ = w.Write([]byte("{}"))
		case "json":
			body, err := gojson.Marshal(map[string]any{"data": rows})
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		default:
			http.NotFound(w, r)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{body}/list", func(w http.ResponseWriter, r *http.Request) { answer(w, r, list) })
	mux.HandleFunc("GET /{body}/view/{k}", func(w http.ResponseWriter, r *http.Request) {
		k, err := strconv.Atoi(r.PathValue("k"))
		if err != nil || k < 0 || k >= len(views) {
			http.NotFound(w, r)
			return
		}
		answer(w, r, views[k])
	})
	return web.Compress("application/json")(mux), done
}

// rowValues reads a statement's rows into Go values, as the driver gives them, and closes
// them.
func rowValues(rows *sql.Rows) ([][]any, error) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, vals)
	}
	return out, rows.Err()
}

// startReference starts this program as the reference server for the first caller's
// requests, as the direct case records them.
func (b *bench) startReference(ctx context.Context, cl caller, ids []int64) (*server, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	spec, err := json.Marshal(referenceSpec{Engine: b.engine, DBURL: b.dbURL, AppURL: b.appURL, Tenant: cl.spec.id,
		Email: cl.spec.admin, IDs: ids, Mode: b.replayModes()[0]})
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, referenceCmd)
	cmd.Stdin = strings.NewReader(string(spec))
	cmd.Stderr = b.out
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s, err := launch(cmd, stdout, func(s *server, line string) {
		if u, ok := strings.CutPrefix(line, "reference at "); ok {
			s.base = u
		}
	})
	if err != nil {
		return nil, err
	}
	if s.base == "" {
		s.stop()
		return nil, errors.New("the reference server did not start")
	}
	return s, ctx.Err()
}

// referenceRuns sets the reference server beside the SQL, in turns, as the app was: page 1
// and the lead views, each with both kinds of answer, through the lean client.
func (b *bench) referenceRuns(ctx context.Context, cl caller, conn *sql.Conn, listSQL, viewSQL [][]statement) error {
	ref, err := b.startReference(ctx, cl, cl.ids[:len(viewSQL)])
	if err != nil {
		return err
	}
	defer ref.stop()
	rb := *b // the same bench, asking the reference server and watching its threads
	rb.base, rb.pid = ref.base, ref.cmd.Process.Pid
	for _, c := range []struct {
		name string
		path func(k int) string
		sql  [][]statement
	}{
		{"list page 1 (admin)", func(int) string { return "/list" }, listSQL},
		{"lead view, random ids (admin)", func(k int) string { return "/view/" + strconv.Itoa(k) }, viewSQL},
	} {
		for _, body := range []struct{ path, what string }{
			{"none", "reads the rows and answers \"{}\""},
			{"json", "reads the rows and answers them as JSON, gzipped"},
		} {
			sc := seqCase{s: cl.admin}
			for k := range c.sql {
				sc.paths = append(sc.paths, "/"+body.path+c.path(k))
			}
			refSt, st, server, err := rb.sideBySide(ctx, sc, conn, c.sql, comparison{lean, b.replayModes()[0]})
			if err != nil {
				return fmt.Errorf("reference, %s: %w", c.name, err)
			}
			fig := referenceFigure(b.engine, c.name+", a reference server that "+body.what, refSt, st, server)
			fmt.Fprintln(b.out, fig.row())
			b.results = append(b.results, fig)
		}
	}
	return nil
}

// referenceFigure is the row of a reference run: its p50 over the SQL's, reported.
func referenceFigure(engine, name string, ref, sqlSt stats, server string) result {
	if server != "" {
		server = "; " + server
	}
	return result{engine: engine, name: name + ": its p50 ÷ SQL p50",
		figure: fmt.Sprintf("%.2f× (reference %s, SQL %s; p99 %s vs %s%s)", float64(ref.p50)/float64(sqlSt.p50),
			msFine(ref.p50), msFine(sqlSt.p50), ms(ref.p99), ms(sqlSt.p99), server),
		note:   "net/http and database/sql over one connection, the same statements, nothing of the app's; reported, not judged",
		missed: ref.errors > 0}
}
