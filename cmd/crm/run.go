package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	neturl "net/url"
	"strings"
	"time"

	"crm/app"
	"crm/app/assets"
	"crm/app/files"
	"crm/app/i18n"
	"crm/app/importer"
	"crm/app/jobs"
	"crm/app/logbuf"
	"crm/app/mail"
	"crm/app/secret"
	"crm/app/store"
	"crm/app/web"
	"crm/static"
)

const usage = `usage: crm <command> [flags]

commands:
  serve          run the web server (--addr, --database-url, --migrate-database-url, --demo)
  migrate        apply pending database migrations (as the schema's owner; --grant-to ROLE)
  create-tenant  --name NAME --admin-email EMAIL --admin-password PASSWORD
  create-user    --tenant ID --email EMAIL --password PASSWORD --role NAME
  seed           --demo: create the demo tenant if it is missing;
                 --tenant ID --leads N: add N generated leads to a tenant`

// run is the whole program, so tests can drive it like a user at a terminal.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) < 2 {
		return errors.New("no command given (serve, migrate, create-tenant, create-user, seed)")
	}
	cmd, rest := args[1], args[2:]
	err := runCommand(ctx, cmd, rest, getenv, stdout, stderr)
	var help helpRequested
	if errors.As(err, &help) {
		fmt.Fprint(stdout, string(help))
		return nil
	}
	return err
}

func runCommand(ctx context.Context, cmd string, rest []string, getenv func(string) string, stdout, stderr io.Writer) error {
	switch cmd {
	case "serve":
		return cmdServe(ctx, rest, getenv, stdout, stderr)
	case "migrate":
		return cmdMigrate(ctx, rest, getenv, stdout)
	case "create-tenant":
		return cmdCreateTenant(ctx, rest, getenv, stdout)
	case "create-user":
		return cmdCreateUser(ctx, rest, getenv, stdout)
	case "seed":
		return cmdSeed(ctx, rest, getenv, stdout)
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q (serve, migrate, create-tenant, create-user, seed)", cmd)
}

// newFlags makes a flag set whose errors come back as one line instead of a usage dump.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// helpRequested is a command's flag list, asked for with -h or --help.
type helpRequested string

func (h helpRequested) Error() string { return "help requested" }

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		var b strings.Builder
		fmt.Fprintf(&b, "usage: crm %s [flags]\n\nflags:\n", fs.Name())
		fs.SetOutput(&b)
		fs.PrintDefaults()
		return helpRequested(b.String())
	} else if err != nil {
		return fmt.Errorf("%s: %v", fs.Name(), err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

func dbFlag(fs *flag.FlagSet, getenv func(string) string) *string {
	def := getenv("DATABASE_URL")
	if def == "" {
		def = store.DefaultURL
	}
	return fs.String("database-url", def, "postgres://… or sqlite:PATH (env DATABASE_URL)")
}

// ownerDBFlag is the database of the commands that change the schema or run as the system
// (migrate, create-tenant, create-user, seed): on PostgreSQL the schema owner's URL.
func ownerDBFlag(fs *flag.FlagSet, getenv func(string) string) *string {
	def := getenv("MIGRATE_DATABASE_URL")
	if def == "" {
		def = getenv("DATABASE_URL")
	}
	if def == "" {
		def = store.DefaultURL
	}
	return fs.String("database-url", def, "the schema owner's postgres://… or sqlite:PATH (env MIGRATE_DATABASE_URL, else DATABASE_URL)")
}

// grantFlag names the PostgreSQL role `crm serve` logs in as, to be granted what it needs
// after migrating: by default CRM_APP_ROLE, else the user of DATABASE_URL when the owner's
// URL is MIGRATE_DATABASE_URL.
func grantFlag(fs *flag.FlagSet, getenv func(string) string) *string {
	def := getenv("CRM_APP_ROLE")
	if def == "" && getenv("MIGRATE_DATABASE_URL") != "" {
		if u, err := neturl.Parse(getenv("DATABASE_URL")); err == nil && u.User != nil &&
			(u.Scheme == "postgres" || u.Scheme == "postgresql") {
			def = u.User.Username()
		}
	}
	return fs.String("grant-to", def, "PostgreSQL role of `crm serve` to grant the schema's rows to (env CRM_APP_ROLE)")
}

// openMigrated opens the database and applies pending migrations; on PostgreSQL it then
// grants the server's role (when named) what it needs, new tables included.
func openMigrated(ctx context.Context, url, grantTo string) (*store.DB, []string, error) {
	db, err := store.Open(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	applied, err := db.Migrate(ctx)
	if err == nil && grantTo != "" {
		err = db.GrantApp(ctx, grantTo)
	}
	if err != nil {
		_ = db.Close()
		return nil, nil, err
	}
	return db, applied, nil
}

// openServing opens the server's database. On PostgreSQL the server's role must be bound by
// row-level security: migrations run with the owner's URL (migrateURL, then the server's
// role is granted its rights), or beforehand with `crm migrate`. SQLite is migrated in place.
func openServing(ctx context.Context, url, migrateURL string) (*store.DB, []string, error) {
	db, err := store.Open(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	if db.Dialect != store.Postgres {
		applied, err := db.Migrate(ctx)
		if err != nil {
			_ = db.Close()
			return nil, nil, err
		}
		return db, applied, nil
	}
	applied, err := func() ([]string, error) {
		if err := db.CheckAppRole(ctx); err != nil {
			return nil, err
		}
		if migrateURL == "" {
			pending, err := db.Pending(ctx)
			if err == nil && len(pending) > 0 {
				err = fmt.Errorf("%d migration(s) pending (%s): run `crm migrate` with the schema owner's URL, or give serve --migrate-database-url",
					len(pending), strings.Join(pending, ", "))
			}
			return nil, err
		}
		role, err := db.CurrentRole(ctx)
		if err != nil {
			return nil, err
		}
		owner, applied, err := openMigrated(ctx, migrateURL, role)
		if err != nil {
			return nil, fmt.Errorf("migrate: %w", err)
		}
		return applied, owner.Close()
	}()
	if err != nil {
		_ = db.Close()
		return nil, nil, err
	}
	return db, applied, nil
}

func cmdMigrate(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := newFlags("migrate")
	url := ownerDBFlag(fs, getenv)
	grantTo := grantFlag(fs, getenv)
	if err := parse(fs, args); err != nil {
		return err
	}
	db, applied, err := openMigrated(ctx, *url, *grantTo)
	if err != nil {
		return err
	}
	defer db.Close()
	if len(applied) == 0 {
		fmt.Fprintln(stdout, "database is up to date")
		return nil
	}
	fmt.Fprintf(stdout, "applied %d migration(s): %s\n", len(applied), strings.Join(applied, ", "))
	return nil
}

func cmdCreateTenant(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := newFlags("create-tenant")
	url := ownerDBFlag(fs, getenv)
	grantTo := grantFlag(fs, getenv)
	name := fs.String("name", "", "tenant name")
	email := fs.String("admin-email", "", "administrator's email")
	password := fs.String("admin-password", "", "administrator's password")
	locale := fs.String("locale", store.DefaultLocale, "default language of the tenant")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *name == "" || *email == "" || *password == "" {
		return errors.New("create-tenant: --name, --admin-email and --admin-password are required")
	}
	if !i18n.Supported(*locale) {
		return fmt.Errorf("create-tenant: unsupported locale %q (one of %s)", *locale, strings.Join(i18n.Locales, ", "))
	}
	db, _, err := openMigrated(ctx, *url, *grantTo)
	if err != nil {
		return err
	}
	defer db.Close()
	t, _, err := db.CreateTenant(ctx, store.NewTenant{Name: *name, DefaultLocale: *locale, AdminEmail: *email, AdminPassword: *password})
	if err != nil {
		return fmt.Errorf("create-tenant: %w", err)
	}
	fmt.Fprintf(stdout, "created tenant %q with administrator %s\n%d\n", t.Name, strings.ToLower(*email), t.ID)
	return nil
}

func cmdCreateUser(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := newFlags("create-user")
	url := ownerDBFlag(fs, getenv)
	grantTo := grantFlag(fs, getenv)
	tenant := fs.Int64("tenant", 0, "tenant id")
	email := fs.String("email", "", "email (the sign-in name)")
	name := fs.String("name", "", "display name")
	password := fs.String("password", "", "password")
	role := fs.String("role", "", "role name, e.g. Administrator or Sales")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *tenant <= 0 || *email == "" || *password == "" || *role == "" {
		return errors.New("create-user: --tenant, --email, --password and --role are required")
	}
	db, _, err := openMigrated(ctx, *url, *grantTo)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.TenantByID(ctx, *tenant); err != nil {
		return fmt.Errorf("create-user: tenant %d: %w", *tenant, err)
	}
	u, err := db.System(*tenant, 0).CreateUser(ctx, store.NewUser{Email: *email, Name: *name, Password: *password, Role: *role})
	if err != nil {
		return fmt.Errorf("create-user: %w", err)
	}
	fmt.Fprintf(stdout, "created user %s in tenant %d\n%d\n", u.Email, *tenant, u.ID)
	return nil
}

func cmdSeed(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := newFlags("seed")
	url := ownerDBFlag(fs, getenv)
	grantTo := grantFlag(fs, getenv)
	demo := fs.Bool("demo", false, "create the demo tenant if it is missing")
	tenant := fs.Int64("tenant", 0, "tenant to add generated leads to (with --leads)")
	leads := fs.Int("leads", 0, "how many generated leads to add (with --tenant)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if !*demo && *leads == 0 && *tenant == 0 {
		return errors.New("seed: nothing to do (use --demo, or --tenant ID --leads N)")
	}
	if (*leads != 0 || *tenant != 0) && (*leads <= 0 || *tenant <= 0) {
		return errors.New("seed: --tenant and --leads go together, both positive")
	}
	db, _, err := openMigrated(ctx, *url, *grantTo)
	if err != nil {
		return err
	}
	defer db.Close()
	if *leads > 0 {
		return seedLeads(ctx, db, *tenant, *leads, stdout)
	}
	t, created, err := db.SeedDemo(ctx)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	if created {
		fmt.Fprintf(stdout, "created demo tenant %q (id %d)\n", t.Name, t.ID)
	} else {
		fmt.Fprintf(stdout, "demo tenant %q already exists (id %d)\n", t.Name, t.ID)
	}
	return nil
}

// seedLeads adds n generated leads to a tenant, owned by its users, reporting progress.
func seedLeads(ctx context.Context, db *store.DB, tenantID int64, n int, stdout io.Writer) error {
	if _, err := db.TenantByID(ctx, tenantID); err != nil {
		return fmt.Errorf("seed: tenant %d: %w", tenantID, err)
	}
	start := time.Now()
	step := max(n/20, store.SeedBatch)
	next := step
	err := db.System(tenantID, 0).SeedLeads(ctx, n, func(done int) {
		if done >= next || done == n {
			fmt.Fprintf(stdout, "seeded %d/%d leads (%.0f/s)\n", done, n, float64(done)/time.Since(start).Seconds())
			next = done + step
		}
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "added %d leads to tenant %d in %s\n", n, tenantID, time.Since(start).Round(time.Second))
	return nil
}

func cmdServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("serve")
	defAddr := getenv("CRM_ADDR")
	if defAddr == "" {
		defAddr = "127.0.0.1:8080"
	}
	addr := fs.String("addr", defAddr, "listen address (env CRM_ADDR)")
	url := dbFlag(fs, getenv)
	migrateURL := fs.String("migrate-database-url", getenv("MIGRATE_DATABASE_URL"),
		"PostgreSQL: the schema owner's URL, to migrate with before serving as --database-url's role (env MIGRATE_DATABASE_URL)")
	demo := fs.Bool("demo", false, "create the demo tenant if it is missing")
	secure := fs.Bool("secure-cookies", getenv("CRM_SECURE_COOKIES") == "true", "mark cookies Secure (serve over HTTPS)")
	trustProxy := fs.Bool("trust-proxy", false, "take the client address from X-Forwarded-For")
	idle := fs.Duration("session-idle", app.DefaultConfig().SessionIdle, "sign out after this long without a request")
	lifetime := fs.Duration("session-lifetime", app.DefaultConfig().SessionLifetime, "sign out this long after sign-in")
	mobile := fs.Duration("mobile-session", app.DefaultConfig().MobileSessionLifetime, "lifetime of a mobile sign-in")
	defFiles := getenv("CRM_FILES_DIR")
	if defFiles == "" {
		defFiles = "./data/files"
	}
	filesDir := fs.String("files-dir", defFiles, "where uploaded documents are kept (env CRM_FILES_DIR)")
	reminderEvery := fs.Duration("reminder-interval", 30*time.Second, "how often due reminders are fired and keep-in-touch plans produced")
	importPause := fs.Duration("import-pause", 0, "rest between two batches of a CSV import")
	metricsAddr := fs.String("metrics-addr", getenv("CRM_METRICS_ADDR"),
		"serve /metrics on this separate address, e.g. 127.0.0.1:9090 (env CRM_METRICS_ADDR; empty: none)")
	profiles := fs.Bool("pprof", false,
		"also serve Go's profiles (/debug/pprof/) on --metrics-addr, to see where a loaded server's time goes")
	mailEvery := fs.Duration("mail-interval", 5*time.Second, "how often the outbox is swept for mail to send")
	baseURL := fs.String("base-url", getenv("CRM_BASE_URL"),
		"the CRM's public address, for links in mail such as unsubscribe, e.g. https://crm.example.com (env CRM_BASE_URL; default: the listen address)")
	serverTiming := fs.Bool("server-timing", getenv("CRM_SERVER_TIMING") == "true",
		"add a Server-Timing header (SQL statements and time, request time) to every answer; for development, on with --demo (env CRM_SERVER_TIMING)")
	callerTTL := fs.Duration("caller-cache-ttl", store.DefaultCallerCacheTTL,
		"how long a signed-in caller (user, role, tenant) or an API token read from the database is reused; another instance's change is seen within it (0: read on every request)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *profiles && *metricsAddr == "" {
		return errors.New("--pprof needs --metrics-addr: profiles are never served on the public address")
	}
	store.SetCallerCacheTTL(*callerTTL)
	// The log (an access line a request) is written a tenth of a second at a time; a warning
	// or an error at once, and what is held when serve returns.
	logs := logbuf.New(stderr, 64<<10, 100*time.Millisecond)
	defer logs.Close()
	log := slog.New(logbuf.Handler(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}), logs))
	var smtpServer *mail.Server // the server-wide SMTP_URL: tenants without a server of their own use it
	if raw := getenv("SMTP_URL"); raw != "" {
		var err error
		if smtpServer, err = mail.ParseURL(raw); err != nil {
			return err
		}
	}

	db, applied, err := openServing(ctx, *url, *migrateURL)
	if err != nil {
		return err
	}
	defer db.Close()
	if len(applied) > 0 {
		log.Info("migrations applied", "names", strings.Join(applied, ","))
	}
	if *demo {
		if _, created, err := db.SeedDemo(ctx); err != nil {
			return fmt.Errorf("seed demo: %w", err)
		} else if created {
			log.Info("demo tenant created")
		}
	}
	bundle, err := i18n.Embedded()
	if err != nil {
		return err
	}
	as, err := assets.Load(static.FS)
	if err != nil {
		return err
	}
	fileStore, err := files.NewLocal(*filesDir)
	if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	cfg := app.Config{SecureCookies: *secure, TrustProxy: *trustProxy, SessionIdle: *idle,
		SessionLifetime: *lifetime, MobileSessionLifetime: *mobile, MetricsToken: getenv("METRICS_TOKEN"),
		BaseURL: *baseURL, ServerTiming: *serverTiming || *demo}
	metrics := web.NewMetrics()
	// One import runner: requests start imports on it, its sweep resumes interrupted ones,
	// and Close stops both before the database closes.
	imports := importer.NewRunner(db, log, *importPause)
	defer imports.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	if *baseURL == "" {
		*baseURL = "http://" + ln.Addr().String()
	}
	// The mail sender delivers the outbox; Close (before the database closes) lets the
	// sweep under way finish.
	sender := mail.New(mail.Config{DB: db, Sealer: secret.NewSealer(getenv("CRM_SECRET_KEY")), Fallback: smtpServer,
		BaseURL: *baseURL, Log: log, Interval: *mailEvery})
	defer sender.Close()
	handler := app.NewServer(app.Deps{Config: cfg, DB: db, Log: log, I18n: bundle, Assets: as, Files: fileStore, Imports: imports,
		Metrics: metrics, SecretKey: getenv("CRM_SECRET_KEY"), SMTP: smtpServer, MailWake: sender.Wake})
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 60 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second}
	drained := web.SendFirst(srv) // the access log and the metrics after each answer, not before it
	// Metrics on an address of their own (loopback or an operator network), never public.
	var metricsSrv *http.Server
	if *metricsAddr != "" {
		mln, err := net.Listen("tcp", *metricsAddr)
		if err != nil {
			_ = ln.Close()
			return fmt.Errorf("metrics: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", metrics.Handler())
		if *profiles {
			mux.HandleFunc("/debug/pprof/", pprof.Index)
			mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
			mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
			mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
		}
		metricsSrv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = metricsSrv.Serve(mln) }()
		defer metricsSrv.Close()
		fmt.Fprintf(stdout, "Metrics at http://%s/metrics\n", mln.Addr())
	}
	go db.Sessions().Sweep(ctx, 10*time.Minute, log)
	go jobs.Reminders(ctx, db, *reminderEvery, log)
	go jobs.KeepInTouch(ctx, db, *reminderEvery, sender.Wake, log) // keep-in-touch plans: their reminders and emails
	sender.Start(ctx)                                              // mail: the outbox, one tenant at a time
	imports.Work(5 * time.Second)                                  // CSV imports: queued ones, and resuming interrupted ones

	url2 := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "CRM is running at %s (database: %s)\n", url2, db.Dialect)
	if *demo {
		fmt.Fprintf(stdout, "Demo sign-in: %s / %s (sales: %s / %s)\n", store.DemoAdminEmail, store.DemoAdminPassword,
			store.DemoSalesEmail, store.DemoSalesPassword)
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// Finish in-flight requests; refuse new ones.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := drained(shutdownCtx); err != nil { // the last requests' log lines and metrics
		return err
	}
	fmt.Fprintln(stdout, "stopped")
	return nil
}
