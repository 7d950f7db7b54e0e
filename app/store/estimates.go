package store

import (
	"sync"
	"time"
)

// The planner's row estimates of search probes, kept a while (searchProbe asks whether a
// term is common enough to walk the newest rows for it; docs/PERFORMANCE.md "Common-word
// search"). The question is an EXPLAIN round trip, ~1 ms on PostgreSQL, and a search's next
// pages and the same words asked again would ask it each time. An estimate changes only
// when the table's statistics do (autovacuum, the import's refresh); one a minute old
// picks the plan a new one would, and a stale one only picks the other way to the same
// matches: both give every match, in the same order.

// estimateTTL is how long an estimate is used.
const estimateTTL = time.Minute

// estimatesMax bounds the cache; past it the map starts afresh.
const estimatesMax = 2000

type estimate struct {
	rows float64
	at   time.Time
}

// estimateCache holds estimates by the text of the statement asked about (its tenant,
// caller's scope, filters and term are all in it).
type estimateCache struct {
	mu sync.Mutex
	m  map[string]estimate
}

func newEstimateCache() *estimateCache { return &estimateCache{m: map[string]estimate{}} }

func (c *estimateCache) get(query string, now time.Time) (float64, bool) {
	if c == nil {
		return 0, false
	}
	c.mu.Lock()
	e, ok := c.m[query]
	c.mu.Unlock()
	if !ok || now.Sub(e.at) >= estimateTTL || now.Before(e.at) {
		return 0, false
	}
	return e.rows, true
}

func (c *estimateCache) put(query string, rows float64, now time.Time) {
	if c == nil {
		return
	}
	c.mu.Lock()
	if len(c.m) >= estimatesMax {
		c.m = map[string]estimate{}
	}
	c.m[query] = estimate{rows, now}
	c.mu.Unlock()
}
