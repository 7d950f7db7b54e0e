package app_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"crm/app"
	"crm/app/auth"
	"crm/app/store"
	"crm/app/store/storetest"
)

func sessionCookie(t *testing.T, r *response) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == "crm_session" {
			return c
		}
	}
	return nil
}

func TestBrowserSignInAndOut(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.client()

		r := c.get("/home")
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/login?next=%2Fhome" {
			t.Fatalf("anonymous /home: %d %q", r.status, r.header.Get("Location"))
		}
		r = c.get("/")
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/home" {
			t.Fatalf("empty path: %d %q", r.status, r.header.Get("Location"))
		}

		r = c.form("/login", url.Values{"email": {f.Admin.Email}, "password": {"Wrong1!x"}})
		if r.status != http.StatusUnauthorized || !strings.Contains(r.body, "Email or password is incorrect.") {
			t.Fatalf("wrong password: %d %s", r.status, r.body)
		}
		if !strings.Contains(r.body, `aria-invalid="true"`) || !strings.Contains(r.body, `value="`+f.Admin.Email+`"`) {
			t.Fatal("the form should keep the email and mark the field invalid")
		}

		// An anonymous request already has a session (the language cookie is separate);
		// sign-in must issue a new token.
		before := c.get("/login")
		r = c.form("/login", url.Values{"email": {strings.ToUpper(f.Admin.Email)}, "password": {testPassword}, "next": {"/home"}})
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/home" {
			t.Fatalf("sign-in: %d %q %s", r.status, r.header.Get("Location"), r.body)
		}
		ck := sessionCookie(t, r)
		if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure {
			t.Fatalf("session cookie: %+v", ck)
		}
		if old := sessionCookie(t, before); old != nil && old.Value == ck.Value {
			t.Fatal("sign-in did not rotate the session token")
		}

		r = c.get("/home")
		if r.status != http.StatusOK || !strings.Contains(r.body, "Acme") || !strings.Contains(r.body, `data-testid="count-users"`) {
			t.Fatalf("home: %d %s", r.status, r.body)
		}

		r = c.form("/logout", nil)
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/login" {
			t.Fatalf("logout: %d", r.status)
		}
		// The old cookie no longer opens anything.
		stale := e.client()
		stale.header.Set("Cookie", "crm_session="+ck.Value)
		if r := stale.get("/home"); r.status != http.StatusSeeOther {
			t.Fatalf("destroyed session still works: %d", r.status)
		}
	})
}

func TestSignInRefusesForeignRedirect(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		for _, next := range []string{"https://evil.example/", "//evil.example/x", "/\\evil.example"} {
			r := e.client().form("/login", url.Values{"email": {f.Admin.Email}, "password": {testPassword}, "next": {next}})
			if r.header.Get("Location") != "/home" {
				t.Errorf("next=%q redirected to %q", next, r.header.Get("Location"))
			}
		}
	})
}

func TestSecureCookieFlag(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite)
	e := newTestServer(t, db, func(d *app.Deps) { d.Config.SecureCookies = true })
	f := e.tenant("Acme")
	r := e.client().form("/login", url.Values{"email": {f.Admin.Email}, "password": {testPassword}})
	if ck := sessionCookie(t, r); ck == nil || !ck.Secure {
		t.Fatalf("cookie not Secure: %+v", ck)
	}
}

func TestAPITokenLifecycle(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		anon := e.client()
		r := anon.get("/v1/api/auth/me")
		if r.status != http.StatusUnauthorized || strings.TrimSpace(r.body) != `{"status":401,"message":"Unauthorized"}` {
			t.Fatalf("anonymous me: %d %s", r.status, r.body)
		}
		r = anon.do("POST", "/v1/api/auth/login", map[string]string{"email": f.Admin.Email, "password": "Wrong1!x"})
		if r.status != http.StatusUnauthorized || r.env().Message != "Email or password is incorrect." {
			t.Fatalf("wrong password: %d %s", r.status, r.body)
		}

		c := e.apiClient(f.Admin.Email)
		if len(c.token) < 45 {
			t.Fatalf("token too short: %q", c.token)
		}
		r = c.get("/v1/api/auth/me")
		env := r.env()
		if r.status != 200 || env.Data["user"].(map[string]any)["email"] != f.Admin.Email ||
			env.Data["tenant"].(map[string]any)["name"] != "Acme" {
			t.Fatalf("me: %s", r.body)
		}
		if strings.Contains(r.body, "password") {
			t.Fatal("me leaks the password hash")
		}
		// A bare token works too.
		bare := e.client()
		if r := bare.get("/v1/api/auth/me", "Authorization", c.token); r.status != 200 {
			t.Fatalf("bare token: %d", r.status)
		}
		if r := c.do("POST", "/v1/api/auth/logout", nil); r.status != 200 {
			t.Fatalf("logout: %d %s", r.status, r.body)
		}
		if r := c.get("/v1/api/auth/me"); r.status != http.StatusUnauthorized {
			t.Fatalf("revoked token still works: %d", r.status)
		}
		// A made-up token for the right tenant is refused.
		forged := e.client()
		forged.token = c.token[:len(c.token)-4] + "AAAA"
		if r := forged.get("/v1/api/auth/me"); r.status != http.StatusUnauthorized {
			t.Fatalf("forged token: %d", r.status)
		}
	})
}

func TestLoginThrottleSlowsButDoesNotLockOut(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite)
	now := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	th := auth.NewLoginThrottle()
	th.Account.SetClock(func() time.Time { return now })
	th.IP.SetClock(func() time.Time { return now })
	e := newTestServer(t, db, func(d *app.Deps) { d.Throttle = th })
	f := e.tenant("Acme")
	c := e.client()
	for i := 0; i < 5; i++ {
		r := c.do("POST", "/v1/api/auth/login", map[string]string{"email": f.Admin.Email, "password": "Wrong1!x"})
		if r.status != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d", i+1, r.status)
		}
	}
	// Even the right password waits now, with a clear message.
	r := c.do("POST", "/v1/api/auth/login", map[string]string{"email": f.Admin.Email, "password": testPassword})
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") != "2" ||
		r.env().Message != "Too many sign-in attempts. Try again in 2 seconds." {
		t.Fatalf("throttled: %d %q %s", r.status, r.header.Get("Retry-After"), r.body)
	}
	r = c.form("/login", url.Values{"email": {f.Admin.Email}, "password": {testPassword}})
	if r.status != http.StatusTooManyRequests || !strings.Contains(r.body, "Too many sign-in attempts") {
		t.Fatalf("throttled form: %d", r.status)
	}
	// After the short wait the real user gets in, and the count starts over.
	now = now.Add(3 * time.Second)
	if r := c.do("POST", "/v1/api/auth/login", map[string]string{"email": f.Admin.Email, "password": testPassword}); r.status != 200 {
		t.Fatalf("after the wait: %d %s", r.status, r.body)
	}
	// The longest wait an attacker can cause for an account is capped at 5 minutes.
	for i := 0; i < 30; i++ {
		th.Account.Fail("victim@x.test")
	}
	if w := th.Account.Wait("victim@x.test"); w > 5*time.Minute {
		t.Fatalf("lock-out too long: %v", w)
	}
}

func TestCrossSiteFormsRefused(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.browser(f.Admin.Email)
		r := c.form("/language", url.Values{"locale": {"de_DE"}}, "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
		if r.status != http.StatusForbidden || !strings.Contains(r.body, "another site") {
			t.Fatalf("cross-site post: %d %s", r.status, r.body)
		}
		// An API call a browser makes from another site gets the JSON envelope.
		r = c.do("POST", "/v1/api/lead/create-customer-lead", map[string]string{"customer_name": "X"}, "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
		var env struct {
			Success bool   `json:"success"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal([]byte(r.body), &env); r.status != http.StatusForbidden || err != nil || env.Success || env.Message == "" {
			t.Fatalf("cross-site API call: %d %s", r.status, r.body)
		}
		r = c.form("/logout", nil, "Sec-Fetch-Site", "cross-site")
		if r.status != http.StatusForbidden {
			t.Fatalf("cross-site logout: %d", r.status)
		}
		if r := c.get("/home"); r.status != 200 {
			t.Fatalf("the session must survive the refused request: %d", r.status)
		}
		// Same-origin browser posts and non-browser clients pass.
		if r := c.form("/language", url.Values{"locale": {"de_DE"}}, "Sec-Fetch-Site", "same-origin"); r.status != http.StatusSeeOther {
			t.Fatalf("same-origin post: %d", r.status)
		}
		if r := e.client().do("POST", "/v1/api/auth/login", map[string]string{"email": f.Admin.Email, "password": testPassword}); r.status != 200 {
			t.Fatalf("API client without browser headers: %d", r.status)
		}
	})
}

func TestSessionIdleTimeout(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite)
	const idle = 1500 * time.Millisecond
	e := newTestServer(t, db, func(d *app.Deps) { d.Config.SessionIdle = idle })
	f := e.tenant("Acme")
	c := e.browser(f.Admin.Email)
	if r := c.get("/home"); r.status != 200 {
		t.Fatalf("fresh session: %d", r.status)
	}
	time.Sleep(idle + 300*time.Millisecond)
	if r := c.get("/home"); r.status != http.StatusSeeOther {
		t.Fatalf("idle session still open: %d", r.status)
	}
}

func TestSessionAbsoluteLifetime(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite)
	const lifetime = 2 * time.Second
	e := newTestServer(t, db, func(d *app.Deps) { d.Config.SessionLifetime = lifetime })
	f := e.tenant("Acme")
	c := e.browser(f.Admin.Email)
	start := time.Now() // the session's deadline was set during sign-in, so before now + lifetime
	// Activity within the lifetime does not extend it.
	for time.Since(start) < lifetime/2 {
		if r := c.get("/home"); r.status != 200 {
			t.Fatalf("session ended early: %d", r.status)
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(time.Until(start.Add(lifetime + 300*time.Millisecond)))
	if r := c.get("/home"); r.status != http.StatusSeeOther {
		t.Fatalf("session outlived its lifetime: %d", r.status)
	}
}
