// Command crmbench measures the lead list at scale against the real server: it seeds a
// database (a million leads in each of two tenants on PostgreSQL, a million on SQLite),
// starts `crm serve` on 127.0.0.1, signs in through the API and the login form, and drives
// it with vegeta at fixed rates: the list's first page, a selective search, the admin /leads
// page, and a steady mixed load of list, search and view calls. It prints each figure
// against its budget (docs/PERFORMANCE.md, "Lead list at scale").
//
//	go run ./cmd/crmbench --crm bin/crm            (what `just bench` runs)
//	go run ./cmd/crmbench --engines sqlite --leads 100000 --duration 10s
//
// A database that already holds the tenants and their leads is reused; --reseed starts over.
// All load goes to the server it starts on 127.0.0.1, for a bounded time.
package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	vegeta "github.com/tsenart/vegeta/v12/lib"

	"crm/app/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "crmbench:", err)
		os.Exit(1)
	}
}

// config is what a run measures and where.
type config struct {
	crm      string
	pgURL    string
	pgDB     string
	sqlite   string
	engines  []string
	leads    int
	reps     int
	duration time.Duration
	mixed    time.Duration
	mixRate  int
	reseed   bool
}

const password = "Bench@12345"

func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("crmbench", flag.ContinueOnError)
	c := config{}
	defPG := getenv("TEST_DATABASE_URL")
	if defPG == "" {
		defPG = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	engines := fs.String("engines", "postgres,sqlite", "engines to measure, comma-separated")
	fs.StringVar(&c.crm, "crm", "bin/crm", "the crm binary (`just build` makes it)")
	fs.StringVar(&c.pgURL, "pg", defPG, "a PostgreSQL server (env TEST_DATABASE_URL); the bench uses a database of its own on it")
	fs.StringVar(&c.pgDB, "pg-database", "crm_bench", "the bench's database on that server (created when missing)")
	fs.StringVar(&c.sqlite, "sqlite", filepath.Join(os.TempDir(), "crmbench", "crm.db"), "the SQLite database file")
	fs.IntVar(&c.leads, "leads", 1_000_000, "leads per tenant")
	fs.IntVar(&c.reps, "reps", 9, "sales users per tenant besides the administrator (the leads' owners)")
	fs.DurationVar(&c.duration, "duration", 20*time.Second, "length of each latency measurement")
	fs.DurationVar(&c.mixed, "mixed", 60*time.Second, "length of the steady mixed load (0: none)")
	fs.IntVar(&c.mixRate, "rate", 200, "requests per second of the mixed load")
	fs.BoolVar(&c.reseed, "reseed", false, "start from an empty database even if one is seeded")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c.engines = strings.Split(*engines, ",")
	if c.duration <= 0 {
		return errors.New("--duration must be positive")
	}
	if _, err := os.Stat(c.crm); err != nil {
		return fmt.Errorf("%s: %w (run `npx just build` first)", c.crm, err)
	}
	machine(stdout)
	var all []result
	for _, e := range c.engines {
		var res []result
		var err error
		switch e {
		case "postgres":
			res, err = benchEngine(ctx, c, e, 2, stdout)
		case "sqlite":
			res, err = benchEngine(ctx, c, e, 1, stdout)
		default:
			err = fmt.Errorf("unknown engine %q", e)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", e, err)
		}
		all = append(all, res...)
	}
	fmt.Fprintln(stdout, "\n## Results")
	fmt.Fprintln(stdout, "\n| Engine | Measurement | Rate | Requests | p50 | p95 | p99 | max | Errors | Budget |")
	fmt.Fprintln(stdout, "|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
	failed := 0
	for _, r := range all {
		fmt.Fprintln(stdout, r.row())
		if !r.ok() {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d measurement(s) over budget", failed)
	}
	return nil
}

// machine prints what the figures were taken on.
func machine(w io.Writer) {
	model := ""
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				model = strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		mem = strings.Fields(strings.SplitN(string(b), "\n", 2)[0])[1] + " kB"
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(w, "# crmbench %s\n\nmachine: %d CPUs (%s), memory %s, %s/%s, %s; load average at start: %s\n",
		time.Now().UTC().Format(time.RFC3339), runtime.NumCPU(), model, mem, runtime.GOOS, runtime.GOARCH,
		runtime.Version(), strings.TrimSpace(string(load)))
}

// tenantSpec is one seeded tenant of the bench.
type tenantSpec struct {
	name, admin string
	id          int64
}

func tenantsFor(n int) []tenantSpec {
	out := make([]tenantSpec, n)
	for i := range out {
		out[i] = tenantSpec{name: fmt.Sprintf("Bench %d", i+1), admin: fmt.Sprintf("admin@bench%d.test", i+1)}
	}
	return out
}

func (c config) repEmail(tenant, i int) string {
	return fmt.Sprintf("rep%d@bench%d.test", i+1, tenant+1)
}

// benchEngine prepares the engine's database, starts the server and measures it.
func benchEngine(ctx context.Context, c config, engine string, tenants int, out io.Writer) ([]result, error) {
	fmt.Fprintf(out, "\n## %s: %d tenant(s) of %d leads\n\n", engine, tenants, c.leads)
	dbURL, err := c.prepare(ctx, engine, out)
	if err != nil {
		return nil, err
	}
	specs, err := c.seed(ctx, dbURL, tenants, out)
	if err != nil {
		return nil, err
	}
	env := []string{"DATABASE_URL=" + dbURL}
	if engine != "sqlite" {
		// The server logs in as a role row-level security binds, as in production, and
		// migrates (and grants it its rights) with the owner's URL.
		appURL, err := appRoleURL(ctx, dbURL)
		if err != nil {
			return nil, err
		}
		env = []string{"DATABASE_URL=" + appURL, "MIGRATE_DATABASE_URL=" + dbURL}
	}
	srv, err := startServer(ctx, c.crm, env, out)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	return measure(ctx, c, engine, srv.base, specs, out)
}

// prepare makes sure the engine's database exists (empty when reseeding) and returns its URL.
func (c config) prepare(ctx context.Context, engine string, out io.Writer) (string, error) {
	if engine == "sqlite" {
		if c.reseed {
			for _, suffix := range []string{"", "-wal", "-shm"} {
				_ = os.Remove(c.sqlite + suffix)
			}
		}
		if err := os.MkdirAll(filepath.Dir(c.sqlite), 0o750); err != nil {
			return "", err
		}
		return "sqlite:" + c.sqlite, nil
	}
	u, err := url.Parse(c.pgURL)
	if err != nil {
		return "", err
	}
	admin, err := sql.Open("pgx", c.pgURL)
	if err != nil {
		return "", err
	}
	defer admin.Close()
	ident := `"` + strings.ReplaceAll(c.pgDB, `"`, `""`) + `"`
	if c.reseed {
		if _, err := admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err != nil {
			return "", err
		}
	}
	var exists bool
	if err := admin.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", c.pgDB).Scan(&exists); err != nil {
		return "", fmt.Errorf("postgres unreachable at %s: %w", u.Redacted(), err)
	}
	if !exists {
		if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+ident); err != nil {
			return "", err
		}
		fmt.Fprintf(out, "created database %s\n", c.pgDB)
	}
	u.Path = "/" + c.pgDB
	return u.String(), nil
}

// crmCmd runs the crm binary to completion, streaming its output.
func (c config) crmCmd(ctx context.Context, dbURL string, out io.Writer, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, c.crm, args...)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL)
	var buf strings.Builder
	cmd.Stdout = io.MultiWriter(&buf, out)
	cmd.Stderr = out
	err := cmd.Run()
	return buf.String(), err
}

// seed creates the tenants, their users and their leads, unless they are there already.
func (c config) seed(ctx context.Context, dbURL string, tenants int, out io.Writer) ([]tenantSpec, error) {
	if _, err := c.crmCmd(ctx, dbURL, out, "migrate"); err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	specs := tenantsFor(tenants)
	for i := range specs {
		sp := &specs[i]
		t, err := db.TenantByName(ctx, sp.name)
		switch {
		case err == nil:
			sp.id = t.ID
		case errors.Is(err, store.ErrNotFound):
			o, err := c.crmCmd(ctx, dbURL, out, "create-tenant", "--name", sp.name, "--admin-email", sp.admin, "--admin-password", password)
			if err != nil {
				return nil, err
			}
			lines := strings.Split(strings.TrimSpace(o), "\n")
			if sp.id, err = strconv.ParseInt(lines[len(lines)-1], 10, 64); err != nil {
				return nil, fmt.Errorf("create-tenant printed %q", o)
			}
			for r := range c.reps {
				if _, err := c.crmCmd(ctx, dbURL, out, "create-user", "--tenant", strconv.FormatInt(sp.id, 10),
					"--email", c.repEmail(i, r), "--password", password, "--role", store.RoleSales); err != nil {
					return nil, err
				}
			}
		default:
			return nil, err
		}
		page, err := db.System(sp.id, 0).ListLeads(ctx, store.LeadQuery{Limit: 1})
		if err != nil {
			return nil, err
		}
		if missing := c.leads - int(page.Total); missing > 0 {
			fmt.Fprintf(out, "seeding %d leads into %q (id %d)\n", missing, sp.name, sp.id)
			start := time.Now()
			if _, err := c.crmCmd(ctx, dbURL, out, "seed", "--tenant", strconv.FormatInt(sp.id, 10), "--leads", strconv.Itoa(missing)); err != nil {
				return nil, err
			}
			fmt.Fprintf(out, "seeded %q in %s\n", sp.name, time.Since(start).Round(time.Second))
		} else {
			fmt.Fprintf(out, "%q (id %d) already holds %d leads\n", sp.name, sp.id, page.Total)
		}
	}
	return specs, nil
}

// server is a running `crm serve`.
type server struct {
	cmd  *exec.Cmd
	base string
	done chan error
}

// benchAppRole is the PostgreSQL role the bench's server logs in as.
const benchAppRole = "crm_bench_app"

// appRoleURL makes sure benchAppRole exists (a plain login role: no superuser, no
// BYPASSRLS) and returns ownerURL logged in as it.
func appRoleURL(ctx context.Context, ownerURL string) (string, error) {
	admin, err := sql.Open("pgx", ownerURL)
	if err != nil {
		return "", err
	}
	defer admin.Close()
	var exists bool
	if err := admin.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", benchAppRole).Scan(&exists); err != nil {
		return "", err
	}
	if !exists {
		if _, err := admin.ExecContext(ctx, "CREATE ROLE "+benchAppRole+" LOGIN NOSUPERUSER NOBYPASSRLS"); err != nil {
			return "", err
		}
	}
	u, err := url.Parse(ownerURL)
	if err != nil {
		return "", err
	}
	u.User = url.User(benchAppRole)
	return u.String(), nil
}

func startServer(ctx context.Context, crm string, env []string, out io.Writer) (*server, error) {
	cmd := exec.Command(crm, "serve", "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	logFile, err := os.CreateTemp("", "crmbench-server-*.log")
	if err != nil {
		return nil, err
	}
	cmd.Stderr = logFile // the access log, kept for a look afterwards
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, done: make(chan error, 1)}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "CRM is running at ") {
			s.base = strings.Fields(strings.TrimPrefix(line, "CRM is running at "))[0]
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, stdout); s.done <- cmd.Wait(); logFile.Close() }()
	if s.base == "" || !strings.HasPrefix(s.base, "http://127.0.0.1:") {
		s.stop()
		return nil, fmt.Errorf("the server did not start on 127.0.0.1 (log: %s)", logFile.Name())
	}
	fmt.Fprintf(out, "server at %s (pid %d, log %s)\n", s.base, cmd.Process.Pid, logFile.Name())
	for range 100 {
		if res, err := http.Get(s.base + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return s, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.stop()
	return nil, errors.New("the server did not become ready")
}

// stop ends the server started here (by its process, with SIGTERM, then SIGKILL).
func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
	}
}

// result is one measurement.
type result struct {
	engine, name string
	rate         int
	m            *vegeta.Metrics
	quantile     float64 // the budgeted quantile (0.95 or 0.99), 0 for none
	budget       time.Duration
	zeroErrors   bool
	note         string
}

func (r result) ok() bool {
	if r.m == nil {
		return true
	}
	if r.zeroErrors && (r.m.Success < 1 || len(r.m.Errors) > 0) {
		return false
	}
	return r.quantile == 0 || r.m.Latencies.Quantile(r.quantile) <= r.budget
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func (r result) row() string {
	if r.m == nil {
		return fmt.Sprintf("| %s | %s | | | | | | | | %s |", r.engine, r.name, r.note)
	}
	l := r.m.Latencies
	errs := int(r.m.Requests) - int(float64(r.m.Requests)*r.m.Success+0.5)
	budget := "zero errors"
	if r.quantile > 0 {
		budget = fmt.Sprintf("p%.0f ≤ %s", r.quantile*100, ms(r.budget))
	}
	verdict := "met"
	if !r.ok() {
		verdict = "**missed**"
	}
	if len(r.m.Errors) > 0 {
		verdict += " (" + strings.Join(r.m.Errors[:min(len(r.m.Errors), 3)], "; ") + ")"
	}
	return fmt.Sprintf("| %s | %s | %d/s | %d | %s | %s | %s | %s | %d | %s: %s |", r.engine, r.name, r.rate, r.m.Requests,
		ms(l.P50), ms(l.P95), ms(l.P99), ms(l.Max), errs, budget, verdict)
}

// session is a signed-in caller: a bearer token for the API, cookies for the pages.
type session struct {
	header http.Header
}

func apiLogin(base, email string) (session, error) {
	body := fmt.Sprintf(`{"email":%q,"password":%q}`, email, password)
	res, err := http.Post(base+"/v1/api/auth/login", "application/json", strings.NewReader(body))
	if err != nil {
		return session{}, err
	}
	defer res.Body.Close()
	var env struct {
		Data struct {
			Token string `json:"token"`
		} `json:"data"`
	}
	if err := json.NewDecoder(res.Body).Decode(&env); err != nil || res.StatusCode != 200 || env.Data.Token == "" {
		return session{}, fmt.Errorf("api login %s: %d %v", email, res.StatusCode, err)
	}
	return session{header: http.Header{"Authorization": {"Bearer " + env.Data.Token}}}, nil
}

// pageLogin signs in through the login form and returns the session cookie as a header.
func pageLogin(base, email string) (session, error) {
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.PostForm(base+"/login", url.Values{"email": {email}, "password": {password}})
	if err != nil {
		return session{}, err
	}
	res.Body.Close()
	u, _ := url.Parse(base)
	var cookies []string
	for _, ck := range jar.Cookies(u) {
		cookies = append(cookies, ck.Name+"="+ck.Value)
	}
	if res.StatusCode != http.StatusSeeOther || len(cookies) == 0 {
		return session{}, fmt.Errorf("page login %s: %d", email, res.StatusCode)
	}
	return session{header: http.Header{"Cookie": {strings.Join(cookies, "; ")}, "Accept": {"text/html"}}}, nil
}

// getJSON calls the API once, outside any measurement.
func getJSON(base, path string, s session, v any) error {
	req, _ := http.NewRequest("GET", base+path, nil)
	req.Header = s.header.Clone()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		return fmt.Errorf("GET %s: %d %.200s", path, res.StatusCode, b)
	}
	return json.NewDecoder(res.Body).Decode(v)
}

type listAnswer struct {
	Data struct {
		Result []struct {
			ID           int64  `json:"id"`
			CustomerName string `json:"customer_name"`
			CompanyEmail string `json:"company_email"`
		} `json:"result"`
		Total int64   `json:"total"`
		Next  *string `json:"next"`
	} `json:"data"`
}

// target is one request of a load: a path and who asks.
type target struct {
	path string
	s    session
}

// picker hands out targets, at random by weight, safely from vegeta's workers.
type picker struct {
	mu      sync.Mutex
	r       *rand.Rand
	weights []int
	groups  [][]target
	total   int
}

func newPicker(seed uint64) *picker { return &picker{r: rand.New(rand.NewPCG(seed, 7))} }

func (p *picker) add(weight int, ts []target) {
	if len(ts) == 0 || weight == 0 {
		return
	}
	p.weights = append(p.weights, weight)
	p.groups = append(p.groups, ts)
	p.total += weight
}

func (p *picker) targeter(base string) vegeta.Targeter {
	return func(t *vegeta.Target) error {
		p.mu.Lock()
		n := p.r.IntN(p.total)
		var tg target
		for i, w := range p.weights {
			if n < w {
				g := p.groups[i]
				tg = g[p.r.IntN(len(g))]
				break
			}
			n -= w
		}
		p.mu.Unlock()
		t.Method, t.URL, t.Header = "GET", base+tg.path, tg.s.header.Clone()
		return nil
	}
}

// attack runs one fixed-rate load and returns its metrics.
func attack(ctx context.Context, name string, tr vegeta.Targeter, rate int, d time.Duration) *vegeta.Metrics {
	a := vegeta.NewAttacker(vegeta.Timeout(10*time.Second), vegeta.KeepAlive(true), vegeta.Workers(8), vegeta.MaxWorkers(256),
		vegeta.MaxBody(0))
	m := &vegeta.Metrics{}
	done := ctx.Done()
	for res := range a.Attack(tr, vegeta.Rate{Freq: rate, Per: time.Second}, d, name) {
		m.Add(res)
		select {
		case <-done:
			a.Stop()
		default:
		}
	}
	m.Close()
	return m
}

// measure builds the request sets from the seeded data and runs every measurement.
func measure(ctx context.Context, c config, engine, base string, specs []tenantSpec, out io.Writer) ([]result, error) {
	type caller struct {
		admin, rep session
		ids        []int64  // a sample of the tenant's lead ids
		terms      []string // selective search terms (an email's local part)
		cursors    []string // next-page cursors of several sorts
		masters    map[string][]string
	}
	const list = "/v1/api/lead/list-customer-lead"
	var callers []caller
	for ti, sp := range specs {
		admin, err := apiLogin(base, sp.admin)
		if err != nil {
			return nil, err
		}
		rep, err := apiLogin(base, c.repEmail(ti, 0))
		if err != nil {
			return nil, err
		}
		cl := caller{admin: admin, rep: rep, masters: map[string][]string{}}
		for _, kind := range []string{"stage", "status"} {
			var d struct {
				Data []struct {
					Value int64 `json:"value"`
				} `json:"data"`
			}
			if err := getJSON(base, "/v1/api/dropdown-lead-"+kind+"-master", admin, &d); err != nil {
				return nil, err
			}
			for _, o := range d.Data {
				cl.masters[kind] = append(cl.masters[kind], strconv.FormatInt(o.Value, 10))
			}
		}
		// Sample leads across the tenant: a page at several depths of the id order.
		r := rand.New(rand.NewPCG(uint64(sp.id), 1))
		for range 10 {
			var a listAnswer
			page := 1 + r.IntN(max(c.leads/100, 1))
			if err := getJSON(base, fmt.Sprintf("%s?limit=100&page=%d", list, min(page, 400)), admin, &a); err != nil {
				return nil, err
			}
			for _, l := range a.Data.Result {
				cl.ids = append(cl.ids, l.ID)
				if at := strings.IndexByte(l.CompanyEmail, '@'); at > 0 && len(cl.terms) < 200 {
					cl.terms = append(cl.terms, l.CompanyEmail[:at])
				}
			}
		}
		for _, q := range []string{"", "sort=customer_name", "sort=company_name&order=desc", "sort=stage", "sort=created_at",
			"sort=company_email", "sort=status"} {
			path := list + "?limit=20&" + q
			for range 5 { // five pages deep
				var a listAnswer
				if err := getJSON(base, path, admin, &a); err != nil {
					return nil, err
				}
				if a.Data.Next == nil {
					break
				}
				path = list + "?limit=20&" + q + "&after=" + url.QueryEscape(*a.Data.Next)
				cl.cursors = append(cl.cursors, strings.TrimPrefix(path, list))
			}
		}
		callers = append(callers, cl)
	}
	fmt.Fprintf(out, "sampled %d leads, %d search terms, %d cursors\n", len(callers[0].ids), len(callers[0].terms), len(callers[0].cursors))
	one := callers[0]
	var results []result
	run := func(name string, p *picker, rate int, d time.Duration, q float64, budget time.Duration, zero bool) {
		fmt.Fprintf(out, "measuring %s: %d/s for %s\n", name, rate, d)
		m := attack(ctx, name, p.targeter(base), rate, d)
		r := result{engine: engine, name: name, rate: rate, m: m, quantile: q, budget: budget, zeroErrors: zero}
		fmt.Fprintln(out, r.row())
		results = append(results, r)
	}

	// Warm up: the first requests after a start read the indexes from disk.
	warm := newPicker(1)
	warm.add(1, []target{{list + "?page=1&limit=20", one.admin}})
	for _, term := range one.terms {
		warm.add(1, []target{{list + "?search=" + url.QueryEscape(term), one.admin}})
	}
	attack(ctx, "warm-up", warm.targeter(base), 50, 10*time.Second)

	p := newPicker(2)
	p.add(1, []target{{list + "?page=1&limit=20", one.admin}})
	run("list-customer-lead, page 1", p, 50, c.duration, 0.99, 25*time.Millisecond, true)

	p = newPicker(3)
	var searches []target
	for _, term := range one.terms {
		searches = append(searches, target{list + "?search=" + url.QueryEscape(term), one.admin})
	}
	p.add(1, searches)
	run("selective search", p, 20, c.duration, 0.95, 50*time.Millisecond, true)

	if engine == "postgres" || len(c.engines) == 1 {
		page, err := pageLogin(base, specs[0].admin)
		if err != nil {
			return nil, err
		}
		req, _ := http.NewRequest("GET", base+"/leads", nil)
		req.Header = page.header.Clone()
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		res.Body.Close()
		if res.StatusCode == 200 {
			p = newPicker(4)
			p.add(1, []target{{"/leads", page}})
			run("/leads page (HTML)", p, 20, c.duration, 0.99, 40*time.Millisecond, true)
		} else {
			results = append(results, result{engine: engine, name: "/leads page (HTML)", note: fmt.Sprintf("not measured: GET /leads answered %d", res.StatusCode)})
		}
	}

	// The steady mixed load: lists (first pages of several sorts and filters, and next
	// pages), searches and lead views, by administrators and sales users of every tenant.
	p = newPicker(5)
	for i, cl := range callers {
		weight := 1
		if i == 0 {
			weight = 3 // most traffic on the first tenant
		}
		var lists, next, finds, views, own []target
		for _, q := range []string{"?page=1&limit=20", "?limit=50&sort=customer_name", "?limit=20&sort=stage",
			"?limit=20&sort=created_at&order=desc", "?limit=100",
			"?limit=20&stage_id=" + url.QueryEscape("["+strings.Join(cl.masters["stage"][:2], ",")+"]"),
			"?limit=20&sort=company_name&status_id=" + url.QueryEscape("["+cl.masters["status"][0]+"]")} {
			lists = append(lists, target{list + q, cl.admin})
		}
		for _, cur := range cl.cursors {
			next = append(next, target{list + cur, cl.admin})
		}
		for j, term := range cl.terms {
			finds = append(finds, target{list + "?search=" + url.QueryEscape(term), cl.admin})
			if j%10 == 0 { // some broader searches: a customer's name
				finds = append(finds, target{list + "?search=" + url.QueryEscape(strings.ReplaceAll(strings.TrimRight(term, "0123456789"), ".", " ")), cl.admin})
			}
		}
		for _, id := range cl.ids {
			views = append(views, target{"/v1/api/lead/view-customer-lead/" + strconv.FormatInt(id, 10), cl.admin})
		}
		own = append(own, target{list + "?page=1&limit=20", cl.rep}, target{list + "?page=1&limit=20&sort=stage", cl.rep},
			target{list + "?search=" + url.QueryEscape(cl.terms[0]), cl.rep}, target{list + "?search=sharma", cl.rep})
		// Of every 100 requests: 30 first pages, 15 next pages, 20 searches, 30 views of a
		// lead, 5 by a sales user ("own" records).
		p.add(30*weight, lists)
		p.add(15*weight, next)
		p.add(20*weight, finds)
		p.add(30*weight, views)
		p.add(5*weight, own)
	}
	if c.mixed > 0 && c.mixRate > 0 {
		run(fmt.Sprintf("mixed list/search/view, %d tenant(s)", len(callers)), p, c.mixRate, c.mixed, 0, 0, true)
	}
	return results, nil
}
