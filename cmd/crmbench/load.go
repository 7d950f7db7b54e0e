package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// listPath is the lead list's API.
const listPath = "/v1/api/lead/list-customer-lead"

// caller is a tenant of the bench as its callers see it: an administrator and a Sales user
// with "own" records, signed in through the API (bearer tokens) and through the login form
// (session cookies, for the pages), and a sample of the tenant's data.
type caller struct {
	spec               tenantSpec
	repEmail           string
	admin, rep         session
	adminPage, repPage session
	ids                []int64          // a sample of the tenant's lead ids, in a random order
	stageOf            map[int64]string // each sampled lead's stage id ("" for none)
	terms              []string         // selective search terms (an email's local part)
	cursors            []string         // next-page cursors of several sorts
	masters            map[string][]string
}

// bench is one engine's measurement against its running server.
type bench struct {
	c             config
	engine, base  string
	metrics       string // the server's /metrics URL, "" for none
	pid           int    // the server's process, whose threads the comparisons watch
	dbURL, appURL string // the owner's and the server's database URLs
	out           io.Writer
	callers       []caller
	results       []result
	mixedHeld     int // the mixed load's rate when it kept p99 ≤ 100 ms with no error
	mixedMeasured bool
	warmed        bool // the mixed load's warm-up has run
}

// newBench signs in to the server and samples the data the loads ask for.
func newBench(ctx context.Context, c config, engine string, srv *server, specs []tenantSpec, out io.Writer) (*bench, error) {
	b := &bench{c: c, engine: engine, base: srv.base, metrics: srv.metrics, pid: srv.cmd.Process.Pid, out: out}
	base := b.base
	for ti, sp := range specs {
		cl := caller{spec: sp, repEmail: c.repEmail(ti, 0)}
		var err error
		if cl.admin, err = apiLogin(base, sp.admin); err != nil {
			return nil, err
		}
		if cl.rep, err = apiLogin(base, cl.repEmail); err != nil {
			return nil, err
		}
		if cl.adminPage, err = pageLogin(base, sp.admin); err != nil {
			return nil, err
		}
		if cl.repPage, err = pageLogin(base, cl.repEmail); err != nil {
			return nil, err
		}
		if err := cl.sample(base, c.leads); err != nil {
			return nil, err
		}
		b.callers = append(b.callers, cl)
	}
	fmt.Fprintf(out, "sampled %d leads, %d search terms, %d cursors\n", len(b.callers[0].ids), len(b.callers[0].terms), len(b.callers[0].cursors))

	// Warm up: the first requests after a start read the indexes from disk.
	one := b.callers[0]
	warm := newPicker(1)
	warm.add(1, []target{read(listPath+"?page=1&limit=20", one.admin)})
	for _, term := range one.terms {
		warm.add(1, []target{read(listPath+"?search="+url.QueryEscape(term), one.admin)})
	}
	for _, id := range one.ids {
		warm.add(1, []target{read(viewPath(id), one.admin)})
	}
	attack(ctx, "warm-up", warm.targeter(base), 50, 10*time.Second)
	return b, nil
}

// sample asks the server, as the tenant's administrator, for what the loads ask for: the
// stages and statuses, a sample of the leads (of a tenant of about leads) with their
// stages and search terms, and next-page cursors of several sorts.
func (cl *caller) sample(base string, leads int) error {
	cl.masters, cl.stageOf = map[string][]string{}, map[int64]string{}
	for _, kind := range []string{"stage", "status"} {
		var d struct {
			Data []struct {
				Value int64 `json:"value"`
			} `json:"data"`
		}
		if err := getJSON(base, "/v1/api/dropdown-lead-"+kind+"-master", cl.admin, &d); err != nil {
			return err
		}
		for _, o := range d.Data {
			cl.masters[kind] = append(cl.masters[kind], strconv.FormatInt(o.Value, 10))
		}
	}
	r := rand.New(rand.NewPCG(uint64(cl.spec.id), 1))
	for _, page := range samplePages(r, leads) {
		var a listAnswer
		if err := getJSON(base, fmt.Sprintf("%s?limit=100&page=%d", listPath, page), cl.admin, &a); err != nil {
			return err
		}
		for _, l := range a.Data.Result {
			cl.ids = append(cl.ids, l.ID)
			if l.LeadStageID != nil {
				cl.stageOf[l.ID] = strconv.FormatInt(*l.LeadStageID, 10)
			}
			if at := strings.IndexByte(l.CompanyEmail, '@'); at > 0 && len(cl.terms) < 200 {
				cl.terms = append(cl.terms, l.CompanyEmail[:at])
			}
		}
	}
	r.Shuffle(len(cl.ids), func(i, j int) { cl.ids[i], cl.ids[j] = cl.ids[j], cl.ids[i] })
	for _, q := range []string{"", "sort=customer_name", "sort=company_name&order=desc", "sort=stage", "sort=created_at",
		"sort=company_email", "sort=status"} {
		path := listPath + "?limit=20&" + q
		for range 5 { // five pages deep
			var a listAnswer
			if err := getJSON(base, path, cl.admin, &a); err != nil {
				return err
			}
			if a.Data.Next == nil {
				break
			}
			path = listPath + "?limit=20&" + q + "&after=" + url.QueryEscape(*a.Data.Next)
			cl.cursors = append(cl.cursors, strings.TrimPrefix(path, listPath))
		}
	}
	if len(cl.ids) == 0 || len(cl.terms) == 0 || len(cl.masters["stage"]) < 2 || len(cl.masters["status"]) == 0 {
		return fmt.Errorf("tenant %q: too little data to measure (%d leads sampled)", cl.spec.name, len(cl.ids))
	}
	return nil
}

// samplePages are the ten pages of 100 leads the sample of a tenant of about leads reads:
// pages at several depths of the id order, no deeper than the 400th (an offset read walks
// every row before it). Each depth is drawn within those 400 pages: drawn in the whole
// tenant and then cut to 400, nine draws in ten would be the 400th page, and the sample a
// few hundred leads.
func samplePages(r *rand.Rand, leads int) []int {
	pages := make([]int, 10)
	for i := range pages {
		pages[i] = 1 + r.IntN(min(max(leads/100, 1), 400))
	}
	return pages
}

func viewPath(id int64) string { return "/v1/api/lead/view-customer-lead/" + strconv.FormatInt(id, 10) }

func stagePath(id int64) string {
	return "/v1/api/lead/update-stage-customer-lead/" + strconv.FormatInt(id, 10)
}

// load runs one fixed-rate load and records it.
func (b *bench) load(ctx context.Context, name string, p *picker, rate int, d time.Duration, q float64, budget time.Duration, zero bool) result {
	fmt.Fprintf(b.out, "measuring %s: %d/s for %s\n", name, rate, d)
	m := attack(ctx, name, p.targeter(b.base), rate, d)
	st := vegetaStats(m)
	r := result{engine: b.engine, name: name, load: fmt.Sprintf("%d/s, %s", rate, d), st: &st, quantile: q, budget: budget, zeroErrors: zero}
	fmt.Fprintln(b.out, r.row())
	b.results = append(b.results, r)
	return r
}

// rates measures page 1, a selective search and the admin /leads page at fixed rates.
func (b *bench) rates(ctx context.Context) error {
	one := b.callers[0]
	p := newPicker(2)
	p.add(1, []target{read(listPath+"?page=1&limit=20", one.admin)})
	b.load(ctx, "list-customer-lead, page 1", p, 50, b.c.duration, 0.99, 25*time.Millisecond, true)

	p = newPicker(3)
	var searches []target
	for _, term := range one.terms {
		searches = append(searches, read(listPath+"?search="+url.QueryEscape(term), one.admin))
	}
	p.add(1, searches)
	b.load(ctx, "selective search", p, 20, b.c.duration, 0.95, 50*time.Millisecond, true)

	if b.engine == "postgres" || len(b.c.engines) == 1 {
		req, _ := http.NewRequest("GET", b.base+"/leads", nil)
		req.Header = one.adminPage.header.Clone()
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode == 200 {
			p = newPicker(4)
			p.add(1, []target{read("/leads", one.adminPage)})
			b.load(ctx, "/leads page (HTML)", p, 20, b.c.duration, 0.99, 40*time.Millisecond, true)
		} else {
			b.results = append(b.results, result{engine: b.engine, name: "/leads page (HTML)", note: fmt.Sprintf("not measured: GET /leads answered %d", res.StatusCode)})
		}
	}
	return nil
}

// mixPicker is the steady mixed load: lists (first pages of several sorts and filters, and
// next pages), searches and lead views, by administrators and sales users of every tenant.
func (b *bench) mixPicker(seed uint64) *picker {
	p := newPicker(seed)
	for i, cl := range b.callers {
		weight := tenantWeight(i)
		var lists, next, finds, views, own []target
		for _, q := range []string{"?page=1&limit=20", "?limit=50&sort=customer_name", "?limit=20&sort=stage",
			"?limit=20&sort=created_at&order=desc", "?limit=100",
			"?limit=20&stage_id=" + url.QueryEscape("["+strings.Join(cl.masters["stage"][:2], ",")+"]"),
			"?limit=20&sort=company_name&status_id=" + url.QueryEscape("["+cl.masters["status"][0]+"]")} {
			lists = append(lists, read(listPath+q, cl.admin))
		}
		for _, cur := range cl.cursors {
			next = append(next, read(listPath+cur, cl.admin))
		}
		for j, term := range cl.terms {
			finds = append(finds, read(listPath+"?search="+url.QueryEscape(term), cl.admin))
			if j%10 == 0 { // some broader searches: a customer's name
				finds = append(finds, read(listPath+"?search="+url.QueryEscape(strings.ReplaceAll(strings.TrimRight(term, "0123456789"), ".", " ")), cl.admin))
			}
		}
		for _, id := range cl.ids {
			views = append(views, read(viewPath(id), cl.admin))
		}
		own = append(own, read(listPath+"?page=1&limit=20", cl.rep), read(listPath+"?page=1&limit=20&sort=stage", cl.rep),
			read(listPath+"?search="+url.QueryEscape(cl.terms[0]), cl.rep), read(listPath+"?search=sharma", cl.rep))
		// Of every 100 requests: 30 first pages, 15 next pages, 20 searches, 30 views of a
		// lead, 5 by a sales user ("own" records).
		p.add(30*weight, lists)
		p.add(15*weight, next)
		p.add(20*weight, finds)
		p.add(30*weight, views)
		p.add(5*weight, own)
	}
	return p
}

// tenantWeight is the share of the mixed load the i-th tenant gets: most on the first.
func tenantWeight(i int) int {
	if i == 0 {
		return 3
	}
	return 1
}

// The mixed load's budgets: at --rate (200/s) p99 ≤ 50 ms with no error; the highest rate
// is the highest that keeps p99 ≤ 100 ms.
const (
	mixedBudget  = 50 * time.Millisecond
	maxRateLimit = 100 * time.Millisecond
)

// The mixed load's warm-up: slices of warmSlice of the same mix at the same rate until one
// holds the budget with no error, at most maxWarmSlices of them.
const (
	warmSlice     = 5 * time.Second
	maxWarmSlices = 12
)

// mixed runs the steady mixed load at --rate for --mixed, after its warm-up.
func (b *bench) mixed(ctx context.Context) error {
	if b.c.mixed <= 0 || b.c.mixRate <= 0 {
		return nil
	}
	name := fmt.Sprintf("mixed list/search/view, %d tenant(s)", len(b.callers))
	b.warmUp(ctx, name)
	clock, why := b.startStatementClock(ctx)
	profiled := b.profileServer(ctx, b.c.mixed)
	r := b.load(ctx, name, b.mixPicker(5), b.c.mixRate, b.c.mixed, 0.99, mixedBudget, true)
	b.mixedMeasured = true
	b.statementBreakdown(ctx, clock, why)
	if err := profiled(); err != nil {
		return err
	}
	if held(*r.st, b.c.mixRate) {
		b.mixedHeld = b.c.mixRate
	}
	return nil
}

// warmUp runs the mix until the database's pages it reads are in memory, as on a server
// that has been serving: a database whose files other work has pushed out of the page
// cache (the other engine's bench, an import) answers the first seconds of the load from
// disk, p99 in seconds, after which the same load holds p99 under 50 ms
// (docs/PERFORMANCE.md, "Twenty-seventh round"); on the VMs of those rounds the kernel also
// pages out what nothing has read for a minute, however much memory is free ("Sixty-first
// round"). The warm-up is reported, not budgeted.
func (b *bench) warmUp(ctx context.Context, name string) {
	b.warmed = true
	p := b.mixPicker(4)
	slices, last := warmSlices(maxWarmSlices, func() stats {
		m := attack(ctx, name+", warm-up", p.targeter(b.base), b.c.mixRate, warmSlice)
		return vegetaStats(m)
	}, func(st stats) bool { return ctx.Err() != nil || st.errors == 0 && st.n > 0 && st.p99 <= mixedBudget })
	note := fmt.Sprintf("%d slice(s) of %s at %d/s until one held p99 ≤ %s with no error (at most %d); the last: p99 %s, %d error(s)",
		slices, warmSlice, b.c.mixRate, ms(mixedBudget), maxWarmSlices, ms(last.p99), last.errors)
	r := result{engine: b.engine, name: name + ", warm-up (not budgeted)", note: note}
	fmt.Fprintln(b.out, r.row())
	b.results = append(b.results, r)
}

// warmSlices runs slice until done says a slice's figures are enough, at most limit times,
// and gives how many ran and the last one's figures.
func warmSlices(limit int, slice func() stats, done func(stats) bool) (int, stats) {
	var st stats
	for n := 1; n <= limit; n++ {
		if st = slice(); done(st) {
			return n, st
		}
	}
	return limit, st
}

// held reports whether a load at rate kept p99 ≤ 100 ms, with no error, at the rate asked.
func held(st stats, rate int) bool {
	return st.errors == 0 && st.n > 0 && st.p99 <= maxRateLimit && st.rate >= 0.95*float64(rate)
}

// rateLadder are the rates the search for the highest rate climbs.
var rateLadder = []int{200, 300, 400, 500, 600, 800, 1000, 1200, 1500, 2000, 2500, 3000}

// nextRate is the next rate to try, given the highest rate that held (0: none yet) and the
// lowest that failed (0: none yet): up the ladder until one fails, then halfway between
// the two, to the nearest 25/s, until they are 50/s apart. ok is false when done.
func nextRate(heldAt, failedAt int) (rate int, ok bool) {
	if failedAt == 0 {
		for _, r := range rateLadder {
			if r > heldAt {
				return r, true
			}
		}
		return 0, false
	}
	if failedAt-heldAt <= 50 {
		return 0, false
	}
	mid := (heldAt + failedAt) / 2 / 25 * 25
	if mid <= heldAt || mid >= failedAt {
		return 0, false
	}
	return mid, true
}

// maxRate finds the highest rate of the mixed load that keeps p99 ≤ 100 ms: up to
// --max-rate-steps loads of --step each, climbing the ladder from the steady load's rate
// and then halving the gap.
func (b *bench) maxRate(ctx context.Context) error {
	if b.c.maxRateSteps <= 0 {
		return nil
	}
	heldAt, failedAt := b.mixedHeld, 0
	if b.mixedMeasured && b.mixedHeld == 0 {
		failedAt = b.c.mixRate
	}
	if !b.warmed && b.c.mixRate > 0 {
		b.warmUp(ctx, "mixed, rate search") // as the mixed case does, which has not run
	}
	for i := 0; i < b.c.maxRateSteps && ctx.Err() == nil; i++ {
		rate, ok := nextRate(heldAt, failedAt)
		if !ok {
			break
		}
		r := b.load(ctx, "mixed, rate search", b.mixPicker(uint64(100+i)), rate, b.c.step, 0, 0, false)
		if held(*r.st, rate) {
			heldAt = rate
		} else {
			failedAt = rate
		}
	}
	fig := "none of the rates tried"
	if heldAt > 0 {
		fig = fmt.Sprintf("%d/s", heldAt)
	}
	note := fmt.Sprintf("%s loads; aim ≥ 500/s", b.c.step)
	if failedAt > 0 {
		note = fmt.Sprintf("%d/s did not; %s", failedAt, note)
	}
	b.results = append(b.results, result{engine: b.engine, name: "highest mixed rate with p99 ≤ 100 ms, no error", figure: fig, note: note})
	return nil
}

// stageMovesPer100 is how many lead stage changes the mixed load with writes adds to every
// 100 of the mixed load's reads.
const stageMovesPer100 = 5

// writes runs the mixed load with writes at --rate for --mixed: the steady mix and, to
// every 100 of its requests, stageMovesPer100 stage changes of a sampled lead by its
// tenant's administrator, as a sales team moving leads along the pipeline. Reported, not
// budgeted (issue 13's budget is for the reads): what writes cost the reads beside them.
// On SQLite every commit makes each connection, at its next read, drop its memory map of
// the file and fault in again what it reads (app/store/db.go), which the read-only mix
// almost never makes it pay. Every change is a journey entry, a few hundred bytes; the
// leads stay where the last run moved them.
func (b *bench) writes(ctx context.Context) error {
	if b.c.mixed <= 0 || b.c.mixRate <= 0 {
		return nil
	}
	name := fmt.Sprintf("mixed with stage changes (%d to every 100 reads)", stageMovesPer100)
	if !b.warmed {
		b.warmUp(ctx, "mixed") // as the mixed case does, which has not run
	}
	p := b.mixPicker(6)
	for i, cl := range b.callers {
		p.add(stageMovesPer100*tenantWeight(i), stageMoves(cl))
	}
	profiled := func() error { return nil }
	if !b.mixedMeasured { // --server-profile's file is the mixed load's when it ran
		profiled = b.profileServer(ctx, b.c.mixed)
	}
	b.load(ctx, name, p, b.c.mixRate, b.c.mixed, 0, 0, true)
	return profiled()
}

// stageMoves are a tenant's stage changes: each moves a sampled lead to the stage after
// its own in the dropdown's order (round again after the last; the first if it has none
// the dropdown offers), and a lead picked again moves on again, so every write changes
// its lead (one target a lead: the sample may hold a lead twice). A body is made when its
// request is picked, under the picker's lock.
func stageMoves(cl caller) []target {
	stages := cl.masters["stage"]
	ts := make([]target, 0, len(cl.ids))
	seen := map[int64]bool{}
	for _, id := range cl.ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		at := slices.Index(stages, cl.stageOf[id])
		ts = append(ts, target{method: "PATCH", path: stagePath(id), s: cl.admin, body: func() string {
			at = (at + 1) % len(stages)
			return `{"lead_stage_id":` + stages[at] + `}`
		}})
	}
	return ts
}

// target is one request of a load: a method, a path, who asks and, for a write, its JSON
// body.
type target struct {
	method, path string
	s            session
	body         func() string // a write's JSON body, made when it is picked; nil for a read
}

// read is a read of path by s.
func read(path string, s session) target { return target{method: "GET", path: path, s: s} }

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
		var body []byte
		if tg.body != nil {
			body = []byte(tg.body())
		}
		p.mu.Unlock()
		t.Method, t.URL, t.Header, t.Body = tg.method, base+tg.path, tg.s.header.Clone(), body
		if body != nil {
			t.Header.Set("Content-Type", "application/json")
		}
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
