// Command crmbench measures the lead list at scale against the real server, against the
// budgets of issue 13 (docs/PERFORMANCE.md, "Lead list at scale" and "Cost per request"): it
// seeds a database (a million leads in each of two tenants on PostgreSQL, a million on
// SQLite), starts `crm serve` on 127.0.0.1, signs in through the API and the login form, and
// measures, each part chosen with --cases:
//
//   - rates (load.go): page 1, a selective search and the /leads page at fixed rates (vegeta);
//   - seq (cases.go): one client, sequential, --seq requests per case — page 1, a lead view,
//     searches, a stage + status filter sorted by name, the dashboards;
//   - direct (direct.go): page 1 and the lead view against the same SQL run directly;
//   - mixed and maxrate (load.go): the steady mixed load at --rate (after a warm-up of the
//     same mix until it holds its budget), then the highest rate that keeps p99 ≤ 100 ms;
//   - sizes (sizes.go): bytes per million leads;
//   - writes (load.go): the mixed load with lead stage changes among its reads, reported;
//   - import: the CSV import (import.go);
//
// with the server's SQL statements per request (metrics.go) next to each sequential case.
// It prints each figure against its budget and ends with Markdown tables (report.go).
//
//	go run ./cmd/crmbench --crm bin/crm            (what `just bench` runs)
//	go run ./cmd/crmbench --engines sqlite --leads 100000 --duration 10s --cases seq,direct
//
// A database that already holds the tenants and their leads is reused; --reseed starts over.
// All load goes to the server it starts on 127.0.0.1, for a bounded time.
package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"crm/app/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if len(os.Args) > 1 && os.Args[1] == referenceCmd {
		err = runReference(ctx, os.Stdin, os.Stdout) // reference.go: a process of its own, as the app is
	} else {
		err = run(ctx, os.Args[1:], os.Getenv, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "crmbench:", err)
		os.Exit(1)
	}
}

// config is what a run measures and where.
type config struct {
	crm          string
	pgURL        string
	pgDB         string
	sqlite       string
	engines      []string
	leads        int
	reps         int
	duration     time.Duration
	mixed        time.Duration
	mixRate      int
	reseed       bool
	seq          int           // requests per sequential case
	maxRateSteps int           // loads of the search for the highest rate (0: none)
	step         time.Duration // length of each of those loads
	importRows   int           // rows of the CSV import measurement (0: none)
	cpuProfile   string        // where to write this process's CPU profile (the import runs in it)
	serverProf   string        // where to write the server's CPU profile over the mixed load ("": none)
	cases        map[string]bool
}

// allCases are the parts of a run --cases chooses from.
var allCases = []string{"rates", "seq", "direct", "mixed", "maxrate", "sizes", "writes", "import"}

// has reports whether the run measures the part.
func (c config) has(part string) bool { return c.cases[part] }

const password = "Bench@12345"

func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	c, err := parseFlags(args, getenv)
	if err != nil {
		return err
	}
	if _, err := os.Stat(c.crm); err != nil {
		return fmt.Errorf("%s: %w (run `npx just build` first)", c.crm, err)
	}
	release, err := lockRun(runLockPath()) // runlock.go
	if err != nil {
		return err
	}
	defer release()
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	started := time.Now()
	machine(stdout)
	var all []result
	var loads []string
	for _, e := range c.engines {
		var res []result
		var err error
		loads = append(loads, fmt.Sprintf("%s %s", e, loadLine()))
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
	fmt.Fprintln(stdout, "\n## Results (ready for docs/PERFORMANCE.md)")
	fmt.Fprintln(stdout, "\n"+methodLine(c, args, started, loads))
	failed := printTables(stdout, all)
	if failed > 0 {
		return fmt.Errorf("%d measurement(s) over budget", failed)
	}
	return nil
}

// parseFlags reads the command line.
func parseFlags(args []string, getenv func(string) string) (config, error) {
	fs := flag.NewFlagSet("crmbench", flag.ContinueOnError)
	c := config{}
	defPG := getenv("TEST_DATABASE_URL")
	if defPG == "" {
		defPG = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	engines := fs.String("engines", "postgres,sqlite", "engines to measure, comma-separated")
	cases := fs.String("cases", strings.Join(allCases, ","), "parts to measure, comma-separated: "+strings.Join(allCases, ", "))
	fs.StringVar(&c.crm, "crm", "bin/crm", "the crm binary (`just build` makes it)")
	fs.StringVar(&c.pgURL, "pg", defPG, "a PostgreSQL server (env TEST_DATABASE_URL); the bench uses a database of its own on it")
	fs.StringVar(&c.pgDB, "pg-database", "crm_bench", "the bench's database on that server (created when missing)")
	fs.StringVar(&c.sqlite, "sqlite", filepath.Join(os.TempDir(), "crmbench", "crm.db"), "the SQLite database file")
	fs.IntVar(&c.leads, "leads", 1_000_000, "leads per tenant")
	fs.IntVar(&c.reps, "reps", 9, "sales users per tenant besides the administrator (the leads' owners)")
	fs.DurationVar(&c.duration, "duration", 20*time.Second, "length of each fixed-rate latency measurement")
	fs.DurationVar(&c.mixed, "mixed", 60*time.Second, "length of the steady mixed load (0: none)")
	fs.IntVar(&c.mixRate, "rate", 200, "requests per second of the mixed load")
	fs.BoolVar(&c.reseed, "reseed", false, "start from an empty database even if one is seeded")
	fs.IntVar(&c.seq, "seq", 300, "requests per sequential case (one client, one request at a time), after a warm-up of a tenth")
	fs.IntVar(&c.maxRateSteps, "max-rate-steps", 8, "loads of the search for the highest mixed rate with p99 ≤ 100 ms (0: none)")
	fs.DurationVar(&c.step, "step", 15*time.Second, "length of each load of that search")
	fs.IntVar(&c.importRows, "import-rows", importRows, "rows of the CSV import measurement (0: skip it)")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write this process's CPU profile to the file (the import runs in this process)")
	fs.StringVar(&c.serverProf, "server-profile", "",
		"write the server's CPU profile over the steady mixed load (or, without the mixed case, the mixed load with writes) to `PREFIX`-<engine>.pprof")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	c.engines = strings.Split(*engines, ",")
	c.cases = map[string]bool{}
	for _, p := range strings.Split(*cases, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if !slices.Contains(allCases, p) {
			return c, fmt.Errorf("--cases: unknown part %q (parts: %s)", p, strings.Join(allCases, ", "))
		}
		c.cases[p] = true
	}
	switch {
	case c.duration <= 0:
		return c, errors.New("--duration must be positive")
	case c.seq <= 0:
		return c, errors.New("--seq must be positive")
	case c.step <= 0:
		return c, errors.New("--step must be positive")
	}
	return c, nil
}

// machine prints what the figures were taken on.
func machine(w io.Writer) {
	fmt.Fprintf(w, "# crmbench %s\n\nmachine: %s; load average at start: %s\n",
		time.Now().UTC().Format(time.RFC3339), machineLine(), loadLine())
}

// machineLine describes the machine: CPUs, memory, system, Go.
func machineLine() string {
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
	return fmt.Sprintf("%d CPUs (%s), memory %s, %s/%s, %s", runtime.NumCPU(), model, mem, runtime.GOOS, runtime.GOARCH,
		runtime.Version())
}

// loadLine is the load average (1, 5 and 15 minutes), or "unknown".
func loadLine() string {
	one, five, fifteen, ok := loadAverage()
	if !ok {
		return "unknown"
	}
	return fmt.Sprintf("%.2f %.2f %.2f", one, five, fifteen)
}

// loadAverage reads /proc/loadavg.
func loadAverage() (one, five, fifteen float64, ok bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, 0, 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return 0, 0, 0, false
	}
	var errs [3]error
	one, errs[0] = strconv.ParseFloat(f[0], 64)
	five, errs[1] = strconv.ParseFloat(f[1], 64)
	fifteen, errs[2] = strconv.ParseFloat(f[2], 64)
	return one, five, fifteen, errors.Join(errs[:]...) == nil
}

// quietLoad is the 1-minute load average above which the figures are not those of a quiet
// machine: the client, the server and the database share the cores.
const quietLoad = 1.5

// checkLoad prints the load average and warns when the machine is busy.
func checkLoad(w io.Writer) {
	one, _, _, ok := loadAverage()
	fmt.Fprintf(w, "load average: %s\n", loadLine())
	if ok && one > quietLoad {
		fmt.Fprintf(w, "\n!!! WARNING: the 1-minute load average is %.2f (> %.1f): the machine is busy, and every\n"+
			"!!! latency below will be higher than on a quiet machine. Take the figures again when it is quiet.\n\n", one, quietLoad)
	}
}

// methodLine says how the figures were taken, for the docs.
func methodLine(c config, args []string, started time.Time, loads []string) string {
	commit := "unknown commit"
	if b, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = "`" + strings.TrimSpace(string(b)) + "`"
	}
	return fmt.Sprintf("Method: `npx just bench %s` on %s, %s; %s; load average (1, 5, 15 min) at each engine's start: %s. "+
		"Sequential cases: one client, one request at a time, %d requests per case after a warm-up of %d, keep-alive, "+
		"gzip, latency to the answer's last byte. Fixed-rate loads: vegeta, %d leads per tenant.",
		strings.Join(args, " "), started.UTC().Format("2006-01-02"), commit, machineLine(), strings.Join(loads, "; "),
		c.seq, warmups(c.seq), c.leads)
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
	checkLoad(out)
	dbURL, err := c.prepare(ctx, engine, out)
	if err != nil {
		return nil, err
	}
	specs, err := c.seed(ctx, dbURL, tenants, out)
	if err != nil {
		return nil, err
	}
	env := []string{"DATABASE_URL=" + dbURL}
	appURL := dbURL
	if engine != "sqlite" {
		// The server logs in as a role row-level security binds, as in production, and
		// migrates (and grants it its rights) with the owner's URL.
		if appURL, err = appRoleURL(ctx, dbURL); err != nil {
			return nil, err
		}
		env = []string{"DATABASE_URL=" + appURL, "MIGRATE_DATABASE_URL=" + dbURL}
	}
	if err := clearImportLeftovers(ctx, c, appURL, dbURL, out); err != nil { // import.go
		return nil, fmt.Errorf("import leftovers: %w", err)
	}
	srv, err := startServer(ctx, c.crm, env, c.serverProf != "", out)
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	b, err := newBench(ctx, c, engine, srv, specs, out)
	if err != nil {
		return nil, err
	}
	b.dbURL, b.appURL = dbURL, appURL
	steps := []struct {
		part string
		fn   func(context.Context) error
	}{
		{"rates", b.rates},     // fixed-rate loads: page 1, a selective search, the /leads page
		{"seq", b.sequential},  // one client, sequential, --seq requests per case
		{"direct", b.direct},   // page 1 and the lead view against their SQL run directly
		{"mixed", b.mixed},     // the steady mixed load at --rate
		{"maxrate", b.maxRate}, // the highest mixed rate with p99 ≤ 100 ms
		{"sizes", b.sizes},     // bytes per million leads
		{"writes", b.writes},   // the mixed load with stage changes, after sizes: it writes
	}
	for _, st := range steps {
		if !c.has(st.part) || ctx.Err() != nil {
			continue
		}
		fmt.Fprintf(out, "\n### %s %s (load average %s)\n\n", engine, st.part, loadLine())
		if err := st.fn(ctx); err != nil {
			return b.results, fmt.Errorf("%s: %w", st.part, err)
		}
	}
	srv.stop() // the import runs on a quiet machine, with a server of its own if it needs one
	if c.has("import") && c.importRows > 0 && ctx.Err() == nil {
		// The CSV import (cmd/crmbench/import.go), as the server's role would run it.
		res, err := benchImport(ctx, c, engine, appURL, dbURL, out)
		if err != nil {
			return b.results, fmt.Errorf("import: %w", err)
		}
		b.results = append(b.results, res...)
	}
	return b.results, nil
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
	cmd     *exec.Cmd
	base    string
	metrics string // its /metrics URL (--metrics-addr), "" when it printed none
	done    chan error
	once    sync.Once
}

// benchAppRole is the PostgreSQL role the bench's server logs in as.
const benchAppRole = "crm_bench_app"

// appRoleURL makes sure benchAppRole exists (a plain login role: no superuser, no
// BYPASSRLS) with its rights on the database (migrated by the seed), and returns ownerURL
// logged in as it. `serve` grants the same rights when it migrates, but the bench works as
// the server before it starts one (clearImportLeftovers), which on a database never served
// before the role could not: "permission denied for table tenants".
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
	db, err := store.Open(ctx, ownerURL)
	if err != nil {
		return "", err
	}
	defer db.Close()
	if err := db.GrantApp(ctx, benchAppRole); err != nil {
		return "", err
	}
	u, err := url.Parse(ownerURL)
	if err != nil {
		return "", err
	}
	u.User = url.User(benchAppRole)
	return u.String(), nil
}

func startServer(ctx context.Context, crm string, env []string, profiles bool, out io.Writer) (*server, error) {
	// --metrics-addr: the request histograms (statements per request) on an address of their
	// own, and Go's profiles there too when asked for.
	args := []string{"serve", "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"}
	if profiles {
		args = append(args, "--pprof")
	}
	cmd := exec.Command(crm, args...)
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
	s, err := launch(cmd, stdout, func(s *server, line string) {
		if m, ok := strings.CutPrefix(line, "Metrics at "); ok {
			s.metrics = strings.Fields(m)[0]
		}
		if m, ok := strings.CutPrefix(line, "CRM is running at "); ok {
			s.base = strings.Fields(m)[0]
		}
	})
	logFile.Close() // the server has its own copy
	if err != nil {
		return nil, err
	}
	if s.base == "" || !strings.HasPrefix(s.base, "http://127.0.0.1:") {
		s.stop()
		return nil, fmt.Errorf("the server did not start on 127.0.0.1 (log: %s)", logFile.Name())
	}
	fmt.Fprintf(out, "server at %s (pid %d, log %s, metrics %s)\n", s.base, cmd.Process.Pid, logFile.Name(), s.metrics)
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

// launch starts cmd and reads its output (stdout, cmd's StdoutPipe) line by line through
// see until see has set the server's base, or the output ends; the rest is read and
// dropped, so the process never blocks on a full pipe.
func launch(cmd *exec.Cmd, stdout io.Reader, see func(s *server, line string)) (*server, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, done: make(chan error, 1)}
	sc := bufio.NewScanner(stdout)
	for s.base == "" && sc.Scan() {
		see(s, sc.Text())
	}
	go func() { _, _ = io.Copy(io.Discard, stdout); s.done <- cmd.Wait() }()
	return s, nil
}

// stop ends the server started here (by its process, with SIGTERM, then SIGKILL); once.
func (s *server) stop() {
	s.once.Do(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(20 * time.Second):
			_ = s.cmd.Process.Kill()
		}
	})
}
