package store

import (
	"fmt"
	neturl "net/url"
	"runtime"
	"strconv"
)

// poolMaxConnsParam is the parameter of a PostgreSQL URL that sets how many connections the
// server keeps at most (pgxpool's name for it; taken out of the URL before pgx reads it, as
// PostgreSQL would refuse it as a setting).
const poolMaxConnsParam = "pool_max_conns"

// defaultPoolSize is how many PostgreSQL connections a process keeps at most unless the URL
// says otherwise, and how many SQLite connections always (db.go says why): pgxpool's default,
// the larger of 4 and the CPUs the process may use. Requests beyond it wait for a connection in
// the process, which costs nothing, where more connections than the database has cores to run
// them only take turns on those cores, each new backend paying to fill its caches. With 20 on a
// machine of 2 cores, a mixed load of 200 requests a second opened all 20 at once and stalled
// for seconds (p99 1.3–2.2 s); with 4, the same load's p99 was 0.1–0.6 s, the seconds after the
// start included (docs/PERFORMANCE.md, "Twenty-fifth round").
func defaultPoolSize() int { return max(4, runtime.GOMAXPROCS(0)) }

// poolSize takes pool_max_conns out of a PostgreSQL URL: the URL without it, and the pool's
// size (defaultPoolSize when absent).
func poolSize(url string) (string, int, error) {
	u, err := neturl.Parse(url)
	if err != nil {
		return "", 0, err
	}
	q := u.Query()
	v := q.Get(poolMaxConnsParam)
	if !q.Has(poolMaxConnsParam) {
		return url, defaultPoolSize(), nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return "", 0, fmt.Errorf("%s must be a whole number of at least 1, not %q", poolMaxConnsParam, v)
	}
	q.Del(poolMaxConnsParam)
	u.RawQuery = q.Encode()
	return u.String(), n, nil
}

// WithPoolSize is url with pool_max_conns set to conns: the URL poolSize reads it from.
func WithPoolSize(url string, conns int) (string, error) {
	u, err := neturl.Parse(url)
	if err != nil {
		return "", err
	}
	q := u.Query()
	q.Set(poolMaxConnsParam, strconv.Itoa(conns))
	u.RawQuery = q.Encode()
	return u.String(), nil
}
