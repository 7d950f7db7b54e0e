package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"time"

	"crm/app/store"
)

// Sequential cases: one client, one request at a time, --seq requests per case after a
// warm-up, each figure against the budget issue 13 sets for it.

// The budgets of the sequential cases (p99).
const (
	listBudget      = 8 * time.Millisecond
	viewBudget      = 4 * time.Millisecond
	commonBudget    = 40 * time.Millisecond
	filterBudget    = 20 * time.Millisecond
	dashboardBudget = 50 * time.Millisecond
)

// commonTerms are the commonest words of store.SeedLeads' leads (app/store/leads_seed.go):
// a trade is in one company name (and email domain) in 20, a last name in one customer
// name in 40 — 50,000 and 25,000 matches in a tenant of a million.
var commonTerms = []string{"software", "patel", "cloud", "sharma", "energy", "smith"}

// The route patterns the server's metrics name the cases' requests by.
const (
	viewRoute          = "/v1/api/lead/view-customer-lead/{id}"
	leadDashboardPath  = "/v1/api/lead/dashboard/lead?period=all"
	leadDashboardRoute = "/v1/api/lead/dashboard/lead"
	homePath           = "/home?period=all"
	homeRoute          = "/home"
)

// seqCase is one sequential measurement: its requests, asked in turn by one caller.
type seqCase struct {
	key    string // names the case for the direct comparison ("" when it does not take part)
	name   string
	route  string   // the route pattern of its requests, for statements per request
	paths  []string // asked in turn: request k asks paths[k % len(paths)], the warm-up's included
	s      session
	budget time.Duration // p99; 0 for none
}

// Keys of the cases whose requests the direct comparison asks again, in turn with their SQL.
const (
	keyList = "list"
	keyView = "view"
)

// warmups is how many requests warm a sequential case up before it is measured.
func warmups(n int) int { return max(n/10, 10) }

// seqCases are the sequential cases of the first tenant.
func (b *bench) seqCases() []seqCase {
	cl := b.callers[0]
	page1 := []string{listPath + "?page=1&limit=20"}
	var views, selective, common []string
	for _, id := range cl.ids {
		views = append(views, viewPath(id))
	}
	for _, t := range cl.terms {
		selective = append(selective, listPath+"?search="+url.QueryEscape(t))
	}
	for _, t := range commonTerms {
		common = append(common, listPath+"?search="+url.QueryEscape(t))
	}
	filtered := stageStatusPaths(cl.masters["stage"], cl.masters["status"], 6)
	return []seqCase{
		// The floor every request pays before any SQL: HTTP on 127.0.0.1, the middleware and
		// the caller (cached), with the same client, to read the ratios below against.
		{name: "health check, no SQL (admin's token)", route: "/healthz", paths: []string{"/healthz"}, s: cl.admin},
		{key: keyList, name: "list page 1 (admin)", route: listPath, paths: page1, s: cl.admin, budget: listBudget},
		{name: "list page 1 (own)", route: listPath, paths: page1, s: cl.rep, budget: listBudget},
		{key: keyView, name: "lead view, random ids (admin)", route: viewRoute, paths: views, s: cl.admin, budget: viewBudget},
		{name: "selective search (admin)", route: listPath, paths: selective, s: cl.admin},
		{name: "common-word search (admin)", route: listPath, paths: common, s: cl.admin, budget: commonBudget},
		{name: "common-word search (own)", route: listPath, paths: common, s: cl.rep, budget: commonBudget},
		{name: "stage + status, sorted by name (admin)", route: listPath, paths: filtered, s: cl.admin, budget: filterBudget},
		{name: "stage + status, sorted by name (own)", route: listPath, paths: filtered, s: cl.rep, budget: filterBudget},
		{name: "lead dashboard, period=all (admin)", route: leadDashboardRoute, paths: []string{leadDashboardPath}, s: cl.admin, budget: dashboardBudget},
		{name: "lead dashboard, period=all (own)", route: leadDashboardRoute, paths: []string{leadDashboardPath}, s: cl.rep, budget: dashboardBudget},
		{name: "home page, period=all (admin)", route: homeRoute, paths: []string{homePath}, s: cl.adminPage, budget: dashboardBudget},
		{name: "home page, period=all (own)", route: homeRoute, paths: []string{homePath}, s: cl.repPage, budget: dashboardBudget},
	}
}

// stageStatusPaths are n list requests filtered on one stage and one status and sorted by
// name, the pairs drawn at random (the same each run) from the tenant's masters.
func stageStatusPaths(stages, statuses []string, n int) []string {
	r := rand.New(rand.NewPCG(13, 13))
	var out []string
	for range n {
		q := url.Values{"stage_id": {stages[r.IntN(len(stages))]}, "status_id": {statuses[r.IntN(len(statuses))]},
			"sort": {store.SortName}, "limit": {"20"}}
		if p := listPath + "?" + q.Encode(); !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// sequential runs every sequential case.
func (b *bench) sequential(ctx context.Context) error {
	fmt.Fprintf(b.out, "sequential cases: one client, %d requests each after %d to warm up\n", b.c.seq, warmups(b.c.seq))
	for _, sc := range b.seqCases() {
		if ctx.Err() != nil {
			break
		}
		b.runSeq(ctx, sc)
	}
	return nil
}

// runSeq measures one sequential case and records it.
func (b *bench) runSeq(ctx context.Context, sc seqCase) {
	client := seqClient()
	defer client.CloseIdleConnections()
	warm := warmups(b.c.seq)
	k := 0
	for ; k < warm && ctx.Err() == nil; k++ {
		_ = get(ctx, client, b.base+sc.paths[k%len(sc.paths)], sc.s)
	}
	before := b.scrapeStatements()
	lat := make([]time.Duration, 0, b.c.seq)
	errs := 0
	var errTexts []string
	for i := 0; i < b.c.seq && ctx.Err() == nil; i, k = i+1, k+1 {
		start := time.Now()
		err := get(ctx, client, b.base+sc.paths[k%len(sc.paths)], sc.s)
		lat = append(lat, time.Since(start))
		if err != nil {
			errs++
			if !slices.Contains(errTexts, err.Error()) && len(errTexts) < 3 {
				errTexts = append(errTexts, err.Error())
			}
		}
	}
	st := newStats(lat, errs, errTexts)
	r := result{engine: b.engine, name: sc.name, load: fmt.Sprintf("sequential, %d", b.c.seq), st: &st,
		quantile: 0.99, budget: sc.budget, zeroErrors: true, stmts: statementsPerRequest(before, b.scrapeStatements(), sc.route)}
	if sc.budget == 0 {
		r.quantile = 0
	}
	fmt.Fprintln(b.out, r.row())
	b.results = append(b.results, r)
}

// seqClient is the one client of a sequential case: one connection kept, redirects not followed.
func seqClient() *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// get asks for one page and reads the answer to its last byte; anything but 200 is an error.
func get(ctx context.Context, client *http.Client, u string, s session) error {
	req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
	if err != nil {
		return err
	}
	req.Header = s.header.Clone()
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%d", res.StatusCode)
	}
	return nil
}
