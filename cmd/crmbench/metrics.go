package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The server's histograms of SQL per request, by route (when the server has them: the
// figures then say how many statements each case costs, and how long they took).
const (
	statementsMetric = "crm_http_request_sql_statements"
	sqlTimeMetric    = "crm_http_request_sql_seconds"
)

// sqlCounts are the two histograms' figures by route.
type sqlCounts struct{ statements, seconds map[string]sumCount }

// sumCount is a histogram's _sum and _count.
type sumCount struct{ sum, count float64 }

// parseHistograms reads the _sum and _count by route of each of the histograms named from a
// Prometheus text exposition, adding up the series of a route (methods, statuses). A
// histogram absent from the exposition has no entry.
func parseHistograms(r io.Reader, names ...string) map[string]map[string]sumCount {
	all := map[string]map[string]sumCount{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		var name, rest string
		for _, n := range names {
			if after, ok := strings.CutPrefix(line, n+"_"); ok {
				name, rest = n, after
				break
			}
		}
		if name == "" {
			continue
		}
		var part string
		switch {
		case strings.HasPrefix(rest, "sum{"):
			part = "sum"
		case strings.HasPrefix(rest, "count{"):
			part = "count"
		default:
			continue
		}
		end := strings.LastIndexByte(rest, '}')
		if end < 0 {
			continue
		}
		route, ok := label(rest[len(part)+1:end], "route")
		fields := strings.Fields(rest[end+1:])
		if !ok || len(fields) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			continue
		}
		out := all[name]
		if out == nil {
			out = map[string]sumCount{}
			all[name] = out
		}
		sc := out[route]
		if part == "sum" {
			sc.sum += v
		} else {
			sc.count += v
		}
		out[route] = sc
	}
	return all
}

// parseSQLCounts reads the statements and SQL time histograms.
func parseSQLCounts(r io.Reader) sqlCounts {
	h := parseHistograms(r, statementsMetric, sqlTimeMetric)
	return sqlCounts{statements: h[statementsMetric], seconds: h[sqlTimeMetric]}
}

// label is the value of the label name in a series' labels (`a="x",b="y"`).
func label(labels, name string) (string, bool) {
	for labels != "" {
		eq := strings.IndexByte(labels, '=')
		if eq < 0 || eq+1 >= len(labels) || labels[eq+1] != '"' {
			return "", false
		}
		key := strings.TrimSpace(labels[:eq])
		var val strings.Builder
		i := eq + 2
		for ; i < len(labels) && labels[i] != '"'; i++ {
			if labels[i] == '\\' && i+1 < len(labels) {
				i++
				if labels[i] == 'n' {
					val.WriteByte('\n')
					continue
				}
			}
			val.WriteByte(labels[i])
		}
		if key == name {
			return val.String(), true
		}
		labels = strings.TrimPrefix(labels[min(i+1, len(labels)):], ",")
	}
	return "", false
}

// perRequest is the mean of a histogram over the route's requests between two reads of
// the metrics; false when the server does not count it or no request came.
func perRequest(before, after map[string]sumCount, route string) (float64, bool) {
	a, ok := after[route]
	if !ok {
		return 0, false
	}
	b := before[route]
	if n := a.count - b.count; n > 0 {
		return (a.sum - b.sum) / n, true
	}
	return 0, false
}

// statementsPerRequest writes the statements per request of the route's requests between
// two reads of the metrics, with the time they took when the server measures it: "4.0",
// "4.0 · 1.23 ms", or "n/a" when the server does not count them.
func statementsPerRequest(before, after sqlCounts, route string) string {
	n, ok := perRequest(before.statements, after.statements, route)
	if !ok {
		return "n/a"
	}
	out := fmt.Sprintf("%.1f", n)
	if secs, ok := perRequest(before.seconds, after.seconds, route); ok {
		out += fmt.Sprintf(" · %.2f ms", secs*1000)
	}
	return out
}

// scrapeStatements reads the server's SQL counts; empty when it has none.
func (b *bench) scrapeStatements() sqlCounts {
	if b.metrics == "" {
		return sqlCounts{}
	}
	client := &http.Client{Timeout: 5 * time.Second}
	res, err := client.Get(b.metrics)
	if err != nil {
		return sqlCounts{}
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return sqlCounts{}
	}
	return parseSQLCounts(res.Body)
}
