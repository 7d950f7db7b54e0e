package store

import (
	"sync"
	"sync/atomic"
	"time"

	"crm/app/auth"
)

// The caller cache keeps who makes a request — the user, the tenant, the role's grants —
// and what an API token stands for, so a signed-in request does not read them again on
// every call (web.Kit.Authenticate, DB.Caller, DB.TokenCaller).
//
// An entry is good while both hold:
//   - no write to a caller table (callerTables: users, roles, role_permissions, teams,
//     team_members, tenants, api_tokens) has been seen in this process since it was read:
//     the query hook bumps one process-wide generation after every such write, and
//     Scope.Tx bumps it again once a transaction that wrote one has committed, so a
//     request that read the old rows while the transaction was open cannot keep them;
//   - it is younger than the cache bound (DefaultCallerCacheTTL): another instance's change (or a change made
//     around the store) is seen within that bound.
//
// A deactivated user, a revoked or deleted token, a changed role take effect on the next
// request of this instance; elsewhere within that bound (docs/SECURITY.md).

// DefaultCallerCacheTTL is the longest a cached caller or token is used without reading it
// again, unless SetCallerCacheTTL says otherwise.
const DefaultCallerCacheTTL = 5 * time.Second

// callerCacheTTL is the process's bound, set once by `crm serve` (an atomic: tests start
// several servers at once).
var callerCacheTTL atomic.Int64

func init() { callerCacheTTL.Store(int64(DefaultCallerCacheTTL)) }

// SetCallerCacheTTL sets how long a cached caller or token is used (0: read every time) and
// returns the previous bound.
func SetCallerCacheTTL(d time.Duration) time.Duration {
	return time.Duration(callerCacheTTL.Swap(int64(d)))
}

// callerCacheMax bounds each map; past it the map starts afresh.
const callerCacheMax = 10000

// callerGen is the process-wide generation of the caller tables: every DB of the process
// (a test's owner connection, too) bumps it, so a write through one is seen by all.
var callerGen atomic.Uint64

func callersChanged() { callerGen.Add(1) }

type callerKey struct{ tenantID, userID int64 }

type callerEntry struct {
	user   User
	tenant Tenant
	perms  auth.Permissions
	gen    uint64
	at     time.Time
}

type tokenEntry struct {
	tenantID, userID int64
	expires          *time.Time
	gen              uint64
	at               time.Time
}

type callerCache struct {
	mu      sync.Mutex
	callers map[callerKey]callerEntry
	tokens  map[string]tokenEntry // by the token's hash
}

func newCallerCache() *callerCache {
	return &callerCache{callers: map[callerKey]callerEntry{}, tokens: map[string]tokenEntry{}}
}

func fresh(gen uint64, at, now time.Time) bool {
	return gen == callerGen.Load() && now.Sub(at) < time.Duration(callerCacheTTL.Load()) && !now.Before(at)
}

func (c *callerCache) caller(k callerKey, now time.Time) (callerEntry, bool) {
	if c == nil {
		return callerEntry{}, false
	}
	c.mu.Lock()
	e, ok := c.callers[k]
	c.mu.Unlock()
	if !ok || !fresh(e.gen, e.at, now) {
		return callerEntry{}, false
	}
	return e, true
}

func (c *callerCache) putCaller(k callerKey, e callerEntry) {
	if c == nil {
		return
	}
	c.mu.Lock()
	if len(c.callers) >= callerCacheMax {
		c.callers = map[callerKey]callerEntry{}
	}
	c.callers[k] = e
	c.mu.Unlock()
}

func (c *callerCache) token(hash string, now time.Time) (tokenEntry, bool) {
	if c == nil {
		return tokenEntry{}, false
	}
	c.mu.Lock()
	e, ok := c.tokens[hash]
	c.mu.Unlock()
	if !ok || !fresh(e.gen, e.at, now) || (e.expires != nil && !now.Before(*e.expires)) {
		return tokenEntry{}, false
	}
	return e, true
}

func (c *callerCache) putToken(hash string, e tokenEntry) {
	if c == nil {
		return
	}
	c.mu.Lock()
	if len(c.tokens) >= callerCacheMax {
		c.tokens = map[string]tokenEntry{}
	}
	c.tokens[hash] = e
	c.mu.Unlock()
}
