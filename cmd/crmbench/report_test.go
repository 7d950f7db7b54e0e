package main

import (
	"strings"
	"testing"
	"time"
)

func TestQuantileIsNearestRank(t *testing.T) {
	var lat []time.Duration
	for i := 300; i >= 1; i-- { // unsorted on purpose
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	st := newStats(lat, 2, nil)
	for _, c := range []struct {
		got, want time.Duration
		name      string
	}{{st.p50, 150 * time.Millisecond, "p50"}, {st.p95, 285 * time.Millisecond, "p95"},
		{st.p99, 297 * time.Millisecond, "p99"}, {st.max, 300 * time.Millisecond, "max"}} {
		if c.got != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
	if st.n != 300 || st.errors != 2 {
		t.Errorf("n %d errors %d", st.n, st.errors)
	}
	if q := quantile(nil, 0.99); q != 0 {
		t.Errorf("quantile of nothing = %s", q)
	}
	if q := quantile([]time.Duration{7}, 0.5); q != 7 {
		t.Errorf("quantile of one = %s", q)
	}
}

// TestRateSearchFindsTheCapacity: climbing the ladder then halving the gap ends on the
// highest rate that holds, to 50/s, in a bounded number of loads.
func TestRateSearchFindsTheCapacity(t *testing.T) {
	for _, c := range []struct {
		capacity, start, steps, want int
		tried                        []int
	}{
		{capacity: 650, start: 200, steps: 8, want: 650, tried: []int{300, 400, 500, 600, 800, 700, 650}},
		{capacity: 450, start: 200, steps: 3, want: 400, tried: []int{300, 400, 500}},
		{capacity: 120, start: 0, steps: 8, want: 100, tried: []int{200, 100, 150}}, // the steady load held nothing
		{capacity: 99999, start: 200, steps: 20, want: 3000},
	} {
		heldAt, failedAt := c.start, 0
		var tried []int
		for range c.steps {
			rate, ok := nextRate(heldAt, failedAt)
			if !ok {
				break
			}
			tried = append(tried, rate)
			if rate <= c.capacity {
				heldAt = rate
			} else {
				failedAt = rate
			}
		}
		if heldAt != c.want {
			t.Errorf("capacity %d: found %d (tried %v), want %d", c.capacity, heldAt, tried, c.want)
		}
		if c.tried != nil && fmtInts(tried) != fmtInts(c.tried) {
			t.Errorf("capacity %d: tried %v, want %v", c.capacity, tried, c.tried)
		}
	}
	if _, ok := nextRate(600, 625); ok {
		t.Error("the search went on with 25/s between held and failed")
	}
}

func fmtInts(v []int) string {
	var b strings.Builder
	for i, n := range v {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(thousands(n))
	}
	return b.String()
}

func TestHeldNeedsTheRateNoErrorAndTheTail(t *testing.T) {
	ok := stats{n: 3000, p99: 80 * time.Millisecond, rate: 199.9}
	if !held(ok, 200) {
		t.Error("a good load did not hold")
	}
	for name, st := range map[string]stats{
		"slow":       {n: 3000, p99: 120 * time.Millisecond, rate: 200},
		"an error":   {n: 3000, p99: 10 * time.Millisecond, rate: 200, errors: 1},
		"rate short": {n: 3000, p99: 10 * time.Millisecond, rate: 150},
		"nothing":    {},
	} {
		if held(st, 200) {
			t.Errorf("%s: held", name)
		}
	}
}

const exposition = `# HELP crm_http_request_sql_statements SQL statements per request.
# TYPE crm_http_request_sql_statements histogram
crm_http_request_sql_statements_bucket{method="GET",route="/v1/api/lead/list-customer-lead",le="1"} 0
crm_http_request_sql_statements_sum{method="GET",route="/v1/api/lead/list-customer-lead"} 50
crm_http_request_sql_statements_count{method="GET",route="/v1/api/lead/list-customer-lead"} 10
crm_http_request_sql_statements_sum{method="HEAD",route="/v1/api/lead/list-customer-lead"} 5
crm_http_request_sql_statements_count{method="HEAD",route="/v1/api/lead/list-customer-lead"} 1
crm_http_request_sql_statements_sum{route="/v1/api/lead/view-customer-lead/{id}",method="GET"} 4
crm_http_request_sql_statements_count{route="/v1/api/lead/view-customer-lead/{id}",method="GET"} 2
crm_http_request_sql_statements_sum{method="GET",note="a \"quoted\", b",route="/home"} 1e+01
crm_http_request_sql_statements_count{method="GET",note="a \"quoted\", b",route="/home"} 1 1700000000000
crm_http_request_sql_seconds_sum{method="GET",route="/v1/api/lead/list-customer-lead"} 0.022
crm_http_request_sql_seconds_count{method="GET",route="/v1/api/lead/list-customer-lead"} 11
crm_http_requests_total{method="GET",route="/home",status="200"} 99
`

func TestStatementsPerRequestFromTheMetrics(t *testing.T) {
	after := parseSQLCounts(strings.NewReader(exposition))
	want := map[string]sumCount{
		"/v1/api/lead/list-customer-lead":      {55, 11},
		"/v1/api/lead/view-customer-lead/{id}": {4, 2},
		"/home":                                {10, 1},
	}
	if len(after.statements) != len(want) {
		t.Fatalf("parsed %v", after.statements)
	}
	for k, v := range want {
		if after.statements[k] != v {
			t.Errorf("%s: %v, want %v", k, after.statements[k], v)
		}
	}
	before := sqlCounts{statements: map[string]sumCount{"/v1/api/lead/list-customer-lead": {22, 5}},
		seconds: map[string]sumCount{"/v1/api/lead/list-customer-lead": {0.01, 5}}}
	for route, want := range map[string]string{
		"/v1/api/lead/list-customer-lead":      "5.5 · 2.00 ms", // (55-22)/(11-5); (0.022-0.01)/6 s
		"/v1/api/lead/view-customer-lead/{id}": "2.0",           // no time for the route
		"/v1/api/lead/dashboard/lead":          "n/a",
	} {
		if got := statementsPerRequest(before, after, route); got != want {
			t.Errorf("%s: %s, want %s", route, got, want)
		}
	}
	if got := statementsPerRequest(sqlCounts{}, parseSQLCounts(strings.NewReader("crm_http_requests_total 1\n")), "/home"); got != "n/a" {
		t.Errorf("without the metric: %s", got)
	}
	if got := statementsPerRequest(after, after, "/home"); got != "n/a" {
		t.Errorf("no request between the reads: %s", got)
	}
}

func TestResultRowsAndVerdicts(t *testing.T) {
	st := newStats([]time.Duration{time.Millisecond, 2 * time.Millisecond, 9 * time.Millisecond}, 0, nil)
	over := result{engine: "postgres", name: "lead view", load: "sequential, 3", st: &st, quantile: 0.99, budget: 4 * time.Millisecond, zeroErrors: true, stmts: "n/a"}
	if over.ok() || !strings.Contains(over.row(), "p99 ≤ 4.0 ms: **missed**") || !strings.Contains(over.row(), "| 9.0 ms |") {
		t.Errorf("over budget: ok=%v %s", over.ok(), over.row())
	}
	within := over
	within.budget = 10 * time.Millisecond
	if !within.ok() || !strings.Contains(within.row(), ": met") {
		t.Errorf("within budget: %s", within.row())
	}
	failing := newStats([]time.Duration{time.Millisecond}, 1, []string{"500"})
	errs := result{engine: "sqlite", name: "mix", st: &failing, zeroErrors: true}
	if errs.ok() || !strings.Contains(errs.row(), "zero errors: **missed** (500)") {
		t.Errorf("errors: %s", errs.row())
	}
	ratio := result{engine: "postgres", name: "ratio", figure: "2.5×", limit: "≤ 2×", missed: true}
	if ratio.ok() || ratio.row() != "| PostgreSQL | ratio | 2.5× | ≤ 2×: **missed** |" {
		t.Errorf("figure: %s", ratio.row())
	}
	note := result{engine: "sqlite", name: "import", note: "not measured"}
	if !note.ok() || note.row() != "| SQLite | import | not measured | (reported) |" {
		t.Errorf("note: %s", note.row())
	}
	var b strings.Builder
	if n := printTables(&b, []result{over, within, ratio, note}); n != 2 {
		t.Errorf("%d failed, want 2", n)
	}
	if strings.Count(b.String(), "| Engine |") != 2 {
		t.Errorf("want two tables:\n%s", b.String())
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %s", n, got)
		}
	}
}

func TestFlags(t *testing.T) {
	env := func(string) string { return "" }
	c, err := parseFlags(nil, env)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range allCases {
		if !c.has(p) {
			t.Errorf("default run lacks %s", p)
		}
	}
	if c.seq != 300 || c.importRows != 100_000 || c.mixRate != 200 || c.mixed != time.Minute {
		t.Errorf("defaults: %+v", c)
	}
	if c, err = parseFlags([]string{"--cases", "seq,sizes", "--seq", "50"}, env); err != nil || !c.has("seq") || c.has("mixed") || c.seq != 50 {
		t.Errorf("subset: %v %+v", err, c.cases)
	}
	for _, bad := range [][]string{{"--cases", "seq,nope"}, {"--seq", "0"}, {"--duration", "0s"}} {
		if _, err := parseFlags(bad, env); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
