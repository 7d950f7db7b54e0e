package session_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"crm/app"
	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
	"crm/app/store/storetest"
)

func sessionCookie(t *testing.T, r *apptest.Response) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: r.Header}).Cookies() {
		if c.Name == "crm_session" {
			return c
		}
	}
	return nil
}

func TestBrowserSignInAndOut(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.Client()

		r := c.Get("/home")
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/login?next=%2Fhome" {
			t.Fatalf("anonymous /home: %d %q", r.Status, r.Header.Get("Location"))
		}
		r = c.Get("/")
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/home" {
			t.Fatalf("empty path: %d %q", r.Status, r.Header.Get("Location"))
		}

		r = c.Form("/login", url.Values{"email": {f.Admin.Email}, "password": {"Wrong1!x"}})
		if r.Status != http.StatusUnauthorized || !strings.Contains(r.Body, "Email or password is incorrect.") {
			t.Fatalf("wrong password: %d %s", r.Status, r.Body)
		}
		if !strings.Contains(r.Body, `aria-invalid="true"`) || !strings.Contains(r.Body, `value="`+f.Admin.Email+`"`) {
			t.Fatal("the form should keep the email and mark the field invalid")
		}

		// An anonymous request already has a session (the language cookie is separate);
		// sign-in must issue a new token.
		before := c.Get("/login")
		r = c.Form("/login", url.Values{"email": {strings.ToUpper(f.Admin.Email)}, "password": {apptest.Password}, "next": {"/home"}})
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/home" {
			t.Fatalf("sign-in: %d %q %s", r.Status, r.Header.Get("Location"), r.Body)
		}
		ck := sessionCookie(t, r)
		if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure {
			t.Fatalf("session cookie: %+v", ck)
		}
		if old := sessionCookie(t, before); old != nil && old.Value == ck.Value {
			t.Fatal("sign-in did not rotate the session token")
		}

		r = c.Get("/home")
		if r.Status != http.StatusOK || !strings.Contains(r.Body, "Acme") || !strings.Contains(r.Body, `data-testid="count-users"`) {
			t.Fatalf("home: %d %s", r.Status, r.Body)
		}

		r = c.Form("/logout", nil)
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/login" {
			t.Fatalf("logout: %d", r.Status)
		}
		// The old cookie no longer opens anything.
		stale := e.Client()
		stale.Header.Set("Cookie", "crm_session="+ck.Value)
		if r := stale.Get("/home"); r.Status != http.StatusSeeOther {
			t.Fatalf("destroyed session still works: %d", r.Status)
		}
	})
}

func TestSignInRefusesForeignRedirect(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		for _, next := range []string{"https://evil.example/", "//evil.example/x", "/\\evil.example"} {
			r := e.Client().Form("/login", url.Values{"email": {f.Admin.Email}, "password": {apptest.Password}, "next": {next}})
			if r.Header.Get("Location") != "/home" {
				t.Errorf("next=%q redirected to %q", next, r.Header.Get("Location"))
			}
		}
	})
}

func TestSecureCookieFlag(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite)
	e := apptest.NewServer(t, db, func(d *app.Deps) { d.Config.SecureCookies = true })
	f := e.Tenant("Acme")
	r := e.Client().Form("/login", url.Values{"email": {f.Admin.Email}, "password": {apptest.Password}})
	if ck := sessionCookie(t, r); ck == nil || !ck.Secure {
		t.Fatalf("cookie not Secure: %+v", ck)
	}
}

func TestAPITokenLifecycle(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		anon := e.Client()
		r := anon.Get("/v1/api/auth/me")
		if r.Status != http.StatusUnauthorized || strings.TrimSpace(r.Body) != `{"status":401,"message":"Unauthorized"}` {
			t.Fatalf("anonymous me: %d %s", r.Status, r.Body)
		}
		r = anon.Do("POST", "/v1/api/auth/login", map[string]string{"email": f.Admin.Email, "password": "Wrong1!x"})
		if r.Status != http.StatusUnauthorized || r.Env().Message != "Email or password is incorrect." {
			t.Fatalf("wrong password: %d %s", r.Status, r.Body)
		}

		c := e.APIClient(f.Admin.Email)
		if len(c.Token) < 45 {
			t.Fatalf("token too short: %q", c.Token)
		}
		r = c.Get("/v1/api/auth/me")
		env := r.Env()
		if r.Status != 200 || env.Data["user"].(map[string]any)["email"] != f.Admin.Email ||
			env.Data["tenant"].(map[string]any)["name"] != "Acme" {
			t.Fatalf("me: %s", r.Body)
		}
		if strings.Contains(r.Body, "password") {
			t.Fatal("me leaks the password hash")
		}
		// A bare token works too.
		bare := e.Client()
		if r := bare.Get("/v1/api/auth/me", "Authorization", c.Token); r.Status != 200 {
			t.Fatalf("bare token: %d", r.Status)
		}
		if r := c.Do("POST", "/v1/api/auth/logout", nil); r.Status != 200 {
			t.Fatalf("logout: %d %s", r.Status, r.Body)
		}
		if r := c.Get("/v1/api/auth/me"); r.Status != http.StatusUnauthorized {
			t.Fatalf("revoked token still works: %d", r.Status)
		}
		// A made-up token for the right tenant is refused.
		forged := e.Client()
		forged.Token = c.Token[:len(c.Token)-4] + "AAAA"
		if r := forged.Get("/v1/api/auth/me"); r.Status != http.StatusUnauthorized {
			t.Fatalf("forged token: %d", r.Status)
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
	e := apptest.NewServer(t, db, func(d *app.Deps) { d.Throttle = th })
	f := e.Tenant("Acme")
	c := e.Client()
	for i := 0; i < 5; i++ {
		r := c.Do("POST", "/v1/api/auth/login", map[string]string{"email": f.Admin.Email, "password": "Wrong1!x"})
		if r.Status != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d", i+1, r.Status)
		}
	}
	// Even the right password waits now, with a clear message.
	r := c.Do("POST", "/v1/api/auth/login", map[string]string{"email": f.Admin.Email, "password": apptest.Password})
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") != "2" ||
		r.Env().Message != "Too many sign-in attempts. Try again in 2 seconds." {
		t.Fatalf("throttled: %d %q %s", r.Status, r.Header.Get("Retry-After"), r.Body)
	}
	r = c.Form("/login", url.Values{"email": {f.Admin.Email}, "password": {apptest.Password}})
	if r.Status != http.StatusTooManyRequests || !strings.Contains(r.Body, "Too many sign-in attempts") {
		t.Fatalf("throttled form: %d", r.Status)
	}
	// After the short wait the real user gets in, and the count starts over.
	now = now.Add(3 * time.Second)
	if r := c.Do("POST", "/v1/api/auth/login", map[string]string{"email": f.Admin.Email, "password": apptest.Password}); r.Status != 200 {
		t.Fatalf("after the wait: %d %s", r.Status, r.Body)
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
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.Browser(f.Admin.Email)
		r := c.Form("/language", url.Values{"locale": {"de_DE"}}, "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
		if r.Status != http.StatusForbidden || !strings.Contains(r.Body, "another site") {
			t.Fatalf("cross-site post: %d %s", r.Status, r.Body)
		}
		// An API call a browser makes from another site gets the JSON envelope.
		r = c.Do("POST", "/v1/api/lead/create-customer-lead", map[string]string{"customer_name": "X"}, "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
		var env struct {
			Success bool   `json:"success"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal([]byte(r.Body), &env); r.Status != http.StatusForbidden || err != nil || env.Success || env.Message == "" {
			t.Fatalf("cross-site API call: %d %s", r.Status, r.Body)
		}
		r = c.Form("/logout", nil, "Sec-Fetch-Site", "cross-site")
		if r.Status != http.StatusForbidden {
			t.Fatalf("cross-site logout: %d", r.Status)
		}
		if r := c.Get("/home"); r.Status != 200 {
			t.Fatalf("the session must survive the refused request: %d", r.Status)
		}
		// Same-origin browser posts and non-browser clients pass.
		if r := c.Form("/language", url.Values{"locale": {"de_DE"}}, "Sec-Fetch-Site", "same-origin"); r.Status != http.StatusSeeOther {
			t.Fatalf("same-origin post: %d", r.Status)
		}
		if r := e.Client().Do("POST", "/v1/api/auth/login", map[string]string{"email": f.Admin.Email, "password": apptest.Password}); r.Status != 200 {
			t.Fatalf("API client without browser headers: %d", r.Status)
		}
	})
}

func TestSessionIdleTimeout(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite)
	const idle = 1500 * time.Millisecond
	e := apptest.NewServer(t, db, func(d *app.Deps) { d.Config.SessionIdle = idle })
	f := e.Tenant("Acme")
	c := e.Browser(f.Admin.Email)
	if r := c.Get("/home"); r.Status != 200 {
		t.Fatalf("fresh session: %d", r.Status)
	}
	time.Sleep(idle + 300*time.Millisecond)
	if r := c.Get("/home"); r.Status != http.StatusSeeOther {
		t.Fatalf("idle session still open: %d", r.Status)
	}
}

func TestSessionAbsoluteLifetime(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite)
	const lifetime = 2 * time.Second
	e := apptest.NewServer(t, db, func(d *app.Deps) { d.Config.SessionLifetime = lifetime })
	f := e.Tenant("Acme")
	c := e.Browser(f.Admin.Email)
	start := time.Now() // the session's deadline was set during sign-in, so before now + lifetime
	// Activity within the lifetime does not extend it.
	for time.Since(start) < lifetime/2 {
		if r := c.Get("/home"); r.Status != 200 {
			t.Fatalf("session ended early: %d", r.Status)
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(time.Until(start.Add(lifetime + 300*time.Millisecond)))
	if r := c.Get("/home"); r.Status != http.StatusSeeOther {
		t.Fatalf("session outlived its lifetime: %d", r.Status)
	}
}
