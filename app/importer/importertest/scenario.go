package importertest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"crm/app/importer"
	"crm/app/store"
)

// Scenario is the import measurement of issue 13, on the product's code path (upload as
// POST /v1/api/import/create-import does it, queue, importer.Runner.Run): a tenant of
// Seeded leads (store.SeedLeads) and Users sales users gets a file of Rows new leads
// (create mode), then the same leads changed (update mode), then the undo of the update,
// then the undo of the create. After each step it checks the counts: the tenant's leads
// against what the step must leave, the lead counters (the list's total and each stage's)
// against a recount, no lead twice, and the import's own counts.
type Scenario struct {
	DB         *store.DB
	TenantName string
	Rows       int
	Seeded     int
	Users      int
	Seed       uint64
	// BatchSize, when set, is the runner's batch size for the import and the undo (a small
	// one makes a small file run many batches, two in flight on PostgreSQL).
	BatchSize int
	// Log, when set, gets a line per step and the per-batch rates.
	Log io.Writer
	// Reuse takes the tenant named TenantName if there is one, as it is, instead of making
	// one (crmbench, whose database outlives a run).
	Reuse bool
	// Statements adds to each step's line the time of its statements by kind
	// (store.StatementTimes).
	Statements bool
	// BatchLines logs each step's first batches, this many, each with its time (from the
	// batch before's commit, the first's from the step's start) and this process's CPU.
	BatchLines int
}

// Step is one timed step of a scenario.
type Step struct {
	Name string
	Rows int
	Wall time.Duration
	CPU  time.Duration // user and system time of this process during the step
	// Rates are rows per second over the first, middle and last tenth of the step's
	// batches (each at least one batch); CPURates the same in rows per second of this
	// process's CPU time, which the machine's other work does not change.
	Rates, CPURates [3]float64
	// Load is the machine's one-minute load average at the end of the step.
	Load string
	// Tidy is what the runner does after the step (Runner.Tidy, Runner.TidyAfter: the merge
	// of the search index on SQLite, the statistics on PostgreSQL), timed apart from it: the
	// import is done, and shown done, before.
	Tidy      time.Duration
	TidySteps int
}

func (st Step) String() string {
	return fmt.Sprintf("%s: %d rows in %s (%.0f rows/s), %s CPU in this process; per batch %.0f / %.0f / %.0f rows/s at start / middle / end (%.0f / %.0f / %.0f rows per CPU second); load %s",
		st.Name, st.Rows, st.Wall.Round(time.Millisecond), float64(st.Rows)/st.Wall.Seconds(), st.CPU.Round(time.Millisecond),
		st.Rates[0], st.Rates[1], st.Rates[2], st.CPURates[0], st.CPURates[1], st.CPURates[2], st.Load) +
		fmt.Sprintf("; then tidied in %s (search index: %d steps)", st.Tidy.Round(time.Millisecond), st.TidySteps)
}

// userNames are the sales users' names: owners by name in the file (with accents).
var userNames = []string{"Aditi Rao", "José Álvarez", "Jürgen Groß", "Chloé Lefèvre", "Søren Holm", "Ana Müller",
	"Rahul Menon", "Inês Costa", "Tomáš Dvořák", "Fatima Zahra", "Liam O'Connor", "Mei Lin"}

// Run creates the tenant, seeds it and runs the four steps.
func (sc Scenario) Run(ctx context.Context) ([]Step, error) {
	logf := func(format string, args ...any) {
		if sc.Log != nil {
			fmt.Fprintf(sc.Log, format+"\n", args...)
		}
	}
	s, owners, seeded, err := sc.tenant(ctx, logf)
	if err != nil {
		return nil, err
	}
	o := Options{Rows: sc.Rows, Seed: sc.Seed, Owners: owners}
	for _, x := range []struct {
		dst  *[]string
		kind store.MasterKind
	}{{&o.Titles, store.KindTitle}, {&o.CompanyTypes, store.KindBusinessType}, {&o.LeadTypes, store.KindType},
		{&o.Sources, store.KindSource}, {&o.Statuses, store.KindStatus}, {&o.Stages, store.KindStage}} {
		ms, err := s.Masters(ctx, x.kind)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			*x.dst = append(*x.dst, m.Name)
		}
	}
	c := checker{s: s, seeded: seeded}
	if err := c.check(ctx, "seeded", 0, 0); err != nil {
		return nil, err
	}

	runner := importer.NewRunner(sc.DB, slog.New(slog.NewTextHandler(io.Discard, nil)), 0)
	defer runner.Close()
	if sc.BatchSize > 0 {
		runner.BatchSize, runner.UndoBatchSize = sc.BatchSize, sc.BatchSize
	}
	tidyAfter := runner.TidyAfter
	runner.TidyAfter = 0 // the step tidies as the runner would, timed on its own
	var batches []batchMark
	runner.AfterBatch = func(im *store.Import) {
		batches = append(batches, batchMark{time.Now(), CPUTime(), im.Processed() + im.Undone})
	}
	var stmts *store.StatementTimes
	if sc.Statements {
		stmts = sc.DB.TimeStatements()
	}
	var steps []Step
	timed := func(name string, rows int, im *store.Import) (*store.Import, error) {
		before, err := s.Import(ctx, im.ID)
		if err != nil {
			return nil, err
		}
		batches = batches[:0]
		if stmts != nil {
			stmts.Reset()
		}
		start, cpu := time.Now(), CPUTime()
		batches = append(batches, batchMark{start, cpu, before.Processed() + before.Undone})
		// labelled, so a CPU profile of a run can be read step by step (-tagfocus step=update)
		pprof.Do(ctx, pprof.Labels("step", name), func(ctx context.Context) {
			err = runner.Run(ctx, store.ImportRef{TenantID: s.TenantID, ID: im.ID})
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		st := Step{Name: name, Rows: rows, Wall: time.Since(start), CPU: CPUTime() - cpu, Load: loadAverage()}
		st.Rates, st.CPURates = rates(batches)
		for i := 1; i < len(batches) && i <= sc.BatchLines; i++ {
			a, b := batches[i-1], batches[i]
			logf("  %s, batch %d: %d rows in %s, %s CPU", name, i, b.done-a.done, b.at.Sub(a.at).Round(time.Millisecond),
				(b.cpu - a.cpu).Round(time.Millisecond))
		}
		if rows >= tidyAfter {
			tidied := time.Now()
			if st.TidySteps, err = runner.Tidy(ctx, s.TenantID, store.LeadEntity); err != nil {
				return nil, fmt.Errorf("%s: tidy: %w", name, err)
			}
			st.Tidy = time.Since(tidied)
		}
		steps = append(steps, st)
		logf("%s", st)
		if stmts != nil {
			logf("  statements: %s", stmts)
		}
		return s.Import(ctx, im.ID)
	}

	// 1. Create: every row a new lead.
	data := Generate(o)
	im, err := Upload(ctx, s, data)
	if err != nil {
		return steps, err
	}
	logf("file: %d rows, %d columns, %.1f MB", sc.Rows, len(Header), float64(len(data))/1e6)
	if _, err := s.QueueImport(ctx, im.ID, im.Mapping, store.ModeCreate, store.MatchEmail); err != nil {
		return steps, err
	}
	got, err := timed("create", sc.Rows, im)
	if err != nil {
		return steps, err
	}
	if got.Status != store.ImportDone || got.Created != sc.Rows || got.Failed+got.Skipped+got.Updated != 0 {
		return steps, fmt.Errorf("create: status %s, created %d updated %d skipped %d failed %d of %d rows (%s)",
			got.Status, got.Created, got.Updated, got.Skipped, got.Failed, sc.Rows, firstReasons(ctx, s, got))
	}
	if err := c.check(ctx, "create", sc.Rows, 0); err != nil {
		return steps, err
	}

	// 2. Update: the same leads, each changed.
	o.Changed = true
	upd, err := Upload(ctx, s, Generate(o))
	if err != nil {
		return steps, err
	}
	if _, err := s.QueueImport(ctx, upd.ID, upd.Mapping, store.ModeUpdate, store.MatchEmail); err != nil {
		return steps, err
	}
	if got, err = timed("update", sc.Rows, upd); err != nil {
		return steps, err
	}
	if got.Status != store.ImportDone || got.Updated != sc.Rows || got.Created+got.Failed+got.Skipped != 0 {
		return steps, fmt.Errorf("update: status %s, created %d updated %d skipped %d failed %d of %d rows (%s)",
			got.Status, got.Created, got.Updated, got.Skipped, got.Failed, sc.Rows, firstReasons(ctx, s, got))
	}
	if err := c.check(ctx, "update", sc.Rows, sc.Rows); err != nil {
		return steps, err
	}

	// An undo, queued and run, then every one of the import's rows undone.
	undo := func(name string, of *store.Import) error {
		if _, err := s.QueueUndo(ctx, of.ID); err != nil {
			return err
		}
		got, err := timed(name, sc.Rows, of)
		if err != nil {
			return err
		}
		if got.Status != store.ImportUndone || got.Undone != sc.Rows {
			return fmt.Errorf("%s: status %s, undone %d of %d", name, got.Status, got.Undone, sc.Rows)
		}
		return nil
	}

	// 3. Undo of the update: every lead back to what the create made.
	if err := undo("undo of the update", upd); err != nil {
		return steps, err
	}
	if err := c.check(ctx, "undo of the update", sc.Rows, 0); err != nil {
		return steps, err
	}

	// 4. Undo of the create: the tenant as seeded.
	if err := undo("undo of the create", im); err != nil {
		return steps, err
	}
	return steps, c.check(ctx, "undo of the create", 0, 0)
}

// tenant is the scenario's tenant: with Reuse, the one of that name if there is one (a
// scenario leaves its tenant as it found it), else a new one with Users sales users and
// Seeded leads. It gives its administrator's scope, the owners' cells (each user by name
// and by email) and how many leads it has.
func (sc Scenario) tenant(ctx context.Context, logf func(string, ...any)) (store.Scope, []string, int, error) {
	var owners []string
	if sc.Reuse {
		tn, err := sc.DB.TenantByName(ctx, sc.TenantName)
		if err == nil {
			s := sc.DB.System(tn.ID, 0)
			users, err := s.Users(ctx)
			if err != nil {
				return s, nil, 0, err
			}
			for _, u := range users {
				if strings.HasPrefix(u.Email, "admin.") {
					s = sc.DB.System(tn.ID, u.ID)
				} else {
					owners = append(owners, u.Name, u.Email)
				}
			}
			if _, err := sc.removeLeftovers(ctx, s); err != nil {
				return s, nil, 0, err
			}
			n, err := s.Select((*store.Lead)(nil)).Count(ctx)
			logf("tenant %d %q reused: %d leads", tn.ID, sc.TenantName, n)
			return s, owners, int(n), err
		} else if !errors.Is(err, store.ErrNotFound) {
			return store.Scope{}, nil, 0, err
		}
	}
	stamp := time.Now().UnixNano()
	tn, admin, err := sc.DB.CreateTenant(ctx, store.NewTenant{DefaultLocale: "en_US", Name: sc.TenantName,
		AdminEmail: fmt.Sprintf("admin.%d@import-bench.test", stamp), AdminPassword: "Bench@12345"})
	if err != nil {
		return store.Scope{}, nil, 0, fmt.Errorf("tenant: %w", err)
	}
	s := sc.DB.System(tn.ID, admin.ID)
	for i := range sc.Users {
		name := userNames[i%len(userNames)]
		if i >= len(userNames) {
			name += fmt.Sprintf(" %d", i/len(userNames)+1)
		}
		email := fmt.Sprintf("rep%d.%d@import-bench.test", i+1, stamp)
		if _, err := s.CreateUser(ctx, store.NewUser{Email: email, Name: name, Password: "Bench@12345", Role: store.RoleSales}); err != nil {
			return s, nil, 0, fmt.Errorf("user: %w", err)
		}
		owners = append(owners, name, email)
	}
	if sc.Seeded > 0 {
		start := time.Now()
		if err := s.SeedLeads(ctx, sc.Seeded, nil); err != nil {
			return s, nil, 0, err
		}
		logf("tenant %d %q: %d leads seeded in %s", tn.ID, sc.TenantName, sc.Seeded, time.Since(start).Round(time.Millisecond))
	}
	return s, owners, sc.Seeded, nil
}

// RemoveLeftovers deletes, from the tenant a scenario reuses, the leads of a file that a
// run stopped before its last undo left there, and says how many (none when there is no
// such tenant). Run does it first too; a caller that measures other things on the same
// database calls it before them.
func (sc Scenario) RemoveLeftovers(ctx context.Context) (int64, error) {
	tn, err := sc.DB.TenantByName(ctx, sc.TenantName)
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	return sc.removeLeftovers(ctx, sc.DB.System(tn.ID, 0))
}

// removeLeftovers deletes the leads of a file that a run stopped before its last undo left
// in the reused tenant (the files' emails are under importDomain, the seed's are not):
// every step's counts would otherwise be off by them, and the run would fail at its first
// check. On SQLite it then merges the search index, as the runner does after an import,
// when the removal or a run stopped before its tidy left it in more than one segment (a
// segment a batch, which every search, and the next import, would read).
func (sc Scenario) removeLeftovers(ctx context.Context, s store.Scope) (int64, error) {
	start := time.Now()
	res, err := s.Delete((*store.Lead)(nil)).Where("company_email LIKE ?", importDomain).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("leftovers: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	segments, err := sc.DB.SearchSegments(ctx, store.LeadEntity) // 0 on PostgreSQL
	if err != nil || n == 0 && segments <= 1 {
		return 0, err
	}
	runner := importer.NewRunner(sc.DB, slog.New(slog.NewTextHandler(io.Discard, nil)), 0)
	defer runner.Close()
	if _, err := runner.Tidy(ctx, s.TenantID, store.LeadEntity); err != nil {
		return n, fmt.Errorf("leftovers: tidy: %w", err)
	}
	if sc.Log == nil {
		return n, nil
	}
	took := time.Since(start).Round(time.Millisecond)
	if n > 0 {
		fmt.Fprintf(sc.Log, "tenant %d %q: %d leads of an earlier run's file removed (that run stopped before its last undo), in %s\n",
			s.TenantID, sc.TenantName, n, took)
	} else {
		fmt.Fprintf(sc.Log, "tenant %d %q: the search index's %d segments merged (a run stopped before its tidy), in %s\n",
			s.TenantID, sc.TenantName, segments, took)
	}
	return n, nil
}

// ImportCreate is what a run stopped after its create step leaves in the tenant named
// tenantName: a file of o's rows uploaded and imported in create mode to its end, by a
// runner of its own, as the tenant's first user. It gives that user's scope, to count
// with. For the tests of what the next run does about it.
func ImportCreate(ctx context.Context, db *store.DB, tenantName string, o Options) (store.Scope, error) {
	tn, err := db.TenantByName(ctx, tenantName)
	if err != nil {
		return store.Scope{}, err
	}
	users, err := db.System(tn.ID, 0).Users(ctx)
	if err != nil || len(users) == 0 {
		return store.Scope{}, fmt.Errorf("the tenant's users: %d (%v)", len(users), err)
	}
	s := db.System(tn.ID, users[0].ID)
	im, err := Upload(ctx, s, Generate(o))
	if err != nil {
		return s, err
	}
	if _, err := s.QueueImport(ctx, im.ID, im.Mapping, store.ModeCreate, store.MatchEmail); err != nil {
		return s, err
	}
	runner := importer.NewRunner(db, slog.New(slog.NewTextHandler(io.Discard, nil)), 0)
	defer runner.Close()
	return s, runner.Run(ctx, store.ImportRef{TenantID: tn.ID, ID: im.ID})
}

// Upload stores a file as an upload does (importer.Inspect, then Scope.CreateImport with
// the suggested mapping, as POST /v1/api/import/create-import), every column mapped.
func Upload(ctx context.Context, s store.Scope, data []byte) (*store.Import, error) {
	in, err := importer.Inspect(data)
	if err != nil {
		return nil, err
	}
	mapping := importer.Suggest(store.EntityLead, in.Header, nil)
	for i, f := range mapping {
		if f == "" {
			return nil, fmt.Errorf("column %q is not mapped", in.Header[i])
		}
	}
	return s.CreateImport(ctx, store.NewImport{Entity: store.EntityLead, FileName: "leads.csv", Content: data,
		Delimiter: importer.DelimiterName(in.Format.Delimiter), Encoding: in.Format.Encoding, Header: in.Header,
		Preview: in.Preview, TotalRows: in.Rows, Mapping: mapping})
}

// firstReasons are the reasons of the first rows that were not created or updated.
func firstReasons(ctx context.Context, s store.Scope, im *store.Import) string {
	rows, err := s.ImportRows(ctx, im.ID, 0, 1000)
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, r := range rows {
		if r.Reason != nil && len(out) < 3 {
			out = append(out, fmt.Sprintf("row %d %s %+v", r.RowNo, r.Outcome, *r.Reason))
		}
	}
	return strings.Join(out, "; ")
}

// checker checks a scenario's counts.
type checker struct {
	s      store.Scope
	seeded int
}

// importDomain picks out the leads of the generated files (the seed's emails end in
// ".example").
const importDomain = "%.example.com"

// check compares, after a step: the tenant's leads with the seeded ones plus imported;
// the leads of the file, and those of them changed by the update file, with imported and
// changed; the list's total and each stage's count (kept by triggers) with a recount; and
// that no email of the file is on two leads.
func (c checker) check(ctx context.Context, step string, imported, changed int) error {
	s := c.s
	count := func(where string, args ...any) (int, error) {
		n, err := s.Select((*store.Lead)(nil)).Where(where, args...).Count(ctx)
		return int(n), err
	}
	all, err := count("TRUE")
	if err != nil {
		return err
	}
	if all != c.seeded+imported {
		return fmt.Errorf("%s: %d leads in the tenant, want %d", step, all, c.seeded+imported)
	}
	var dup struct{ N, Distinct int }
	if err := s.Select((*store.Lead)(nil)).ColumnExpr("count(*) AS n, count(DISTINCT company_email) AS d").
		Where("company_email LIKE ?", importDomain).Scan(ctx, &dup.N, &dup.Distinct); err != nil {
		return err
	}
	if dup.N != imported || dup.Distinct != imported {
		return fmt.Errorf("%s: %d leads of the file (%d emails), want %d", step, dup.N, dup.Distinct, imported)
	}
	n, err := count("company_email LIKE ? AND company_name LIKE ?", importDomain, "%& Partners%")
	if err != nil {
		return err
	}
	if n != changed {
		return fmt.Errorf("%s: %d leads with the update file's company names, want %d", step, n, changed)
	}
	page, err := s.ListLeads(ctx, store.LeadQuery{Limit: 1})
	if err != nil {
		return err
	}
	if page.Total != int64(all) {
		return fmt.Errorf("%s: the lead counters say %d leads, a recount %d", step, page.Total, all)
	}
	stages, err := s.Masters(ctx, store.KindStage)
	if err != nil {
		return err
	}
	for _, m := range stages {
		page, err := s.ListLeads(ctx, store.LeadQuery{StageIDs: []int64{m.ID}, Limit: 1})
		if err != nil {
			return err
		}
		n, err := count("lead_stage_id = ?", m.ID)
		if err != nil {
			return err
		}
		if page.Total != int64(n) {
			return fmt.Errorf("%s: the counters say %d leads in stage %s, a recount %d", step, page.Total, m.Name, n)
		}
	}
	return nil
}

type batchMark struct {
	at   time.Time
	cpu  time.Duration
	done int
}

// rates are rows per second over the first, middle and last tenth of the batches.
// (by the clock and by this process's CPU time). Each tenth is an even number of batches
// and the middle one starts after an even number: on PostgreSQL two batches are in flight
// and commit one just after the other, so a tenth of five batches of a step of fifty held
// three commits or two, and its rate swung by half with where it began.
func rates(marks []batchMark) (wall, cpu [3]float64) {
	n := len(marks) - 1 // intervals
	if n < 1 {
		return wall, cpu
	}
	w := max(n/10, 1)
	if w%2 == 1 && w < n {
		w++
	}
	for i, from := range []int{0, ((n - w) / 2) &^ 1, n - w} {
		a, b := marks[from], marks[from+w]
		if d := b.at.Sub(a.at).Seconds(); d > 0 {
			wall[i] = float64(b.done-a.done) / d
		}
		if d := (b.cpu - a.cpu).Seconds(); d > 0 {
			cpu[i] = float64(b.done-a.done) / d
		}
	}
	return wall, cpu
}

// CPUTime is the CPU time (user and system) this process has used so far.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAverage is the machine's one-minute load average ("?" where /proc has none).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}
