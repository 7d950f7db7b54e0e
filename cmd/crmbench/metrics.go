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

// statementsMetric is the server's histogram of SQL statements per request, by route
// (when the server has it: the figures then say how many statements each case costs).
const statementsMetric = "crm_http_request_sql_statements"

// sumCount is a histogram's _sum and _count.
type sumCount struct{ sum, count float64 }

// parseStatements reads statementsMetric's _sum and _count by route from a Prometheus text
// exposition, adding up the series of a route (methods, statuses). Nil when it is absent.
func parseStatements(r io.Reader) map[string]sumCount {
	var out map[string]sumCount
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, statementsMetric+"_")
		if !ok {
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
		if out == nil {
			out = map[string]sumCount{}
		}
		sc := out[route]
		if part == "sum" {
			sc.sum += v
		} else {
			sc.count += v
		}
		out[route] = sc
	}
	return out
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

// statementsPerRequest is the mean number of statements of the route's requests between two
// reads of the metrics, "n/a" when the server does not count them.
func statementsPerRequest(before, after map[string]sumCount, route string) string {
	a, ok := after[route]
	if !ok {
		return "n/a"
	}
	b := before[route]
	if n := a.count - b.count; n > 0 {
		return fmt.Sprintf("%.1f", (a.sum-b.sum)/n)
	}
	return "n/a"
}

// scrapeStatements reads the server's statement counts; nil when it has none.
func (b *bench) scrapeStatements() map[string]sumCount {
	if b.metrics == "" {
		return nil
	}
	client := &http.Client{Timeout: 5 * time.Second}
	res, err := client.Get(b.metrics)
	if err != nil {
		return nil
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil
	}
	return parseStatements(res.Body)
}
