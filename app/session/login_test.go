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
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/login" {
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

// The idle timeout (2 h by default): a session unused for longer is refused and the
// browser sent to sign in, with the page it asked for in next; one used within it goes on.
// The stored session is aged (apptest.AgeSession) rather than waited for.
func TestSessionIdleTimeout(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		idle := app.DefaultConfig().SessionIdle
		f := e.Tenant("Acme")
		c := e.Browser(f.Admin.Email)
		c.AgeSession(idle - time.Minute)
		if r := c.Get("/leads?sort=name"); r.Status != http.StatusOK {
			t.Fatalf("session used within the idle limit: %d", r.Status)
		}
		c.AgeSession(idle + time.Minute)
		r := c.Get("/leads?sort=name")
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/login?next=%2Fleads%3Fsort%3Dname" {
			t.Fatalf("idle session: %d → %q, want 303 to sign-in with next", r.Status, r.Header.Get("Location"))
		}
		// Ended for good: the next request is anonymous too.
		if r := c.Get("/home"); r.Status != http.StatusSeeOther {
			t.Fatalf("idle session came back: %d", r.Status)
		}
	})
}

// The absolute lifetime (12 h by default): past it the session is refused however busy
// it was. htmx requests are sent to sign-in with HX-Redirect, keeping the page they were
// made on (the request's own address for a GET, the page for a change).
func TestSessionAbsoluteLifetime(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		cfg := app.DefaultConfig()
		f := e.Tenant("Acme")
		c := e.Browser(f.Admin.Email)
		// Busy all along (never idle), but past the lifetime since sign-in.
		for aged := time.Duration(0); aged+cfg.SessionIdle/2 < cfg.SessionLifetime; aged += cfg.SessionIdle / 2 {
			c.AgeSession(cfg.SessionIdle / 2)
			if r := c.Get("/home"); r.Status != http.StatusOK {
				t.Fatalf("busy session ended %v after sign-in: %d", aged+cfg.SessionIdle/2, r.Status)
			}
		}
		c.AgeSession(cfg.SessionIdle / 2)
		r := c.Get("/clients?page=2", "HX-Request", "true", "HX-Target", "main")
		if r.Status != http.StatusUnauthorized || r.Header.Get("HX-Redirect") != "/login?next=%2Fclients%3Fpage%3D2" {
			t.Fatalf("expired session (htmx GET): %d HX-Redirect %q", r.Status, r.Header.Get("HX-Redirect"))
		}

		// A change sent by htmx comes back to the page it was made on.
		c2 := e.Browser(f.Admin.Email)
		c2.AgeSession(cfg.SessionLifetime + time.Minute)
		r = c2.Form("/leads/1/stage", url.Values{"stage": {"1"}}, "HX-Request", "true",
			"HX-Current-URL", e.Srv.URL+"/leads?q=acme")
		if r.Status != http.StatusUnauthorized || r.Header.Get("HX-Redirect") != "/login?next=%2Fleads%3Fq%3Dacme" {
			t.Fatalf("expired session (htmx POST): %d HX-Redirect %q", r.Status, r.Header.Get("HX-Redirect"))
		}
	})
}

// Sign-in lands on the first page of the navigation the role may see: /home for a role
// with the dashboard, the lead list for one without it; `/` and the sign-in page of a
// signed-in user go there too, and an asked-for next still wins.
func TestSignInLandsOnAPageTheRoleMaySee(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		e.User(f, "leadsonly@example.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeAll, Export: auth.ScopeAll}})
		e.User(f, "clientsonly@example.test", map[auth.Feature]auth.Grant{auth.FeatureClients: {View: auth.ScopeAll, Export: auth.ScopeAll}})
		for _, c := range []struct{ email, want string }{
			{f.Admin.Email, "/home"},
			{"leadsonly@example.test", "/leads"},
			{"clientsonly@example.test", "/clients"},
		} {
			cl := e.Client()
			r := cl.Form("/login", url.Values{"email": {c.email}, "password": {apptest.Password}})
			if r.Status != http.StatusSeeOther || r.Header.Get("Location") != c.want {
				t.Errorf("%s signs in to %d %q, want %s", c.email, r.Status, r.Header.Get("Location"), c.want)
				continue
			}
			if r := cl.Get(c.want); r.Status != http.StatusOK {
				t.Errorf("%s: landing page %s = %d", c.email, c.want, r.Status)
			}
			for _, path := range []string{"/", "/login"} {
				if r := cl.Get(path); r.Header.Get("Location") != c.want {
					t.Errorf("%s: GET %s → %q, want %s", c.email, path, r.Header.Get("Location"), c.want)
				}
			}
		}
		r := e.Client().Form("/login", url.Values{"email": {"leadsonly@example.test"}, "password": {apptest.Password}, "next": {"/leads/board"}})
		if r.Header.Get("Location") != "/leads/board" {
			t.Errorf("next ignored: %q", r.Header.Get("Location"))
		}
	})
}
