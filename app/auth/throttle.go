package auth

import (
	"sync"
	"time"
)

// Throttle slows repeated failed sign-ins for one key (an account or a client IP).
// After Free failures the key must wait Base, doubling with each further failure up to Max;
// the wait is short enough that a real user is never locked out for long, and failures
// older than Window are forgotten.
type Throttle struct {
	Free   int
	Base   time.Duration
	Max    time.Duration
	Window time.Duration
	now    func() time.Time

	mu   sync.Mutex
	keys map[string]*attempts
}

type attempts struct {
	failures int
	last     time.Time
}

// NewThrottle makes a throttle with the given policy.
func NewThrottle(free int, base, max, window time.Duration) *Throttle {
	return &Throttle{Free: free, Base: base, Max: max, Window: window, now: time.Now, keys: map[string]*attempts{}}
}

// SetClock replaces the clock, for tests.
func (t *Throttle) SetClock(now func() time.Time) { t.now = now }

// Wait returns how long the key must still wait before another attempt; zero means go ahead.
func (t *Throttle) Wait(key string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.keys[key]
	if a == nil || a.failures < t.Free {
		return 0
	}
	now := t.now()
	if now.Sub(a.last) > t.Window {
		delete(t.keys, key)
		return 0
	}
	delay := t.Base << (a.failures - t.Free)
	if delay > t.Max || delay <= 0 {
		delay = t.Max
	}
	if left := a.last.Add(delay).Sub(now); left > 0 {
		return left
	}
	return 0
}

// Fail records a failed attempt for the key.
func (t *Throttle) Fail(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	a := t.keys[key]
	if a == nil || now.Sub(a.last) > t.Window {
		a = &attempts{}
		t.keys[key] = a
	}
	a.failures++
	a.last = now
	if len(t.keys) > 100_000 {
		t.prune(now)
	}
}

// Reset forgets the key's failures, after a successful sign-in.
func (t *Throttle) Reset(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.keys, key)
}

func (t *Throttle) prune(now time.Time) {
	for k, a := range t.keys {
		if now.Sub(a.last) > t.Window {
			delete(t.keys, k)
		}
	}
}

// LoginThrottle bundles the per-account and per-IP throttles used by sign-in.
type LoginThrottle struct {
	Account *Throttle
	IP      *Throttle
}

// NewLoginThrottle is the production policy: an account gets 5 free tries, then waits
// from 2 s up to 5 min; an IP gets 20 free tries, then waits from 2 s up to 15 min.
func NewLoginThrottle() *LoginThrottle {
	return &LoginThrottle{
		Account: NewThrottle(5, 2*time.Second, 5*time.Minute, 30*time.Minute),
		IP:      NewThrottle(20, 2*time.Second, 15*time.Minute, 30*time.Minute),
	}
}

// Wait returns the longer of the two waits.
func (l *LoginThrottle) Wait(account, ip string) time.Duration {
	return max(l.Account.Wait(account), l.IP.Wait(ip))
}

// Fail records a failure against both keys.
func (l *LoginThrottle) Fail(account, ip string) {
	l.Account.Fail(account)
	l.IP.Fail(ip)
}

// Succeed clears the account's failures; the IP's stay, so one good account
// cannot be used to reset guessing at others.
func (l *LoginThrottle) Succeed(account string) { l.Account.Reset(account) }
