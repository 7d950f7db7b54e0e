package profile_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/uptrace/bun"

	"crm/app"
	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
	"crm/app/store/storetest"
)

var secretRE = regexp.MustCompile(`data-testid="tfa-secret">([A-Z2-7]+)<`)
var codeRE = regexp.MustCompile(`<li><code>([a-z0-9]{5}-[a-z0-9]{5})</code></li>`)

// enrol turns two-factor sign-in on for the browser's user through the profile pages and
// returns the secret and the recovery codes.
func enrol(t *testing.T, b *apptest.Client) (string, []string) {
	t.Helper()
	r := b.Get("/profile/two-factor").WantStatus(200)
	m := secretRE.FindStringSubmatch(r.Body)
	if m == nil || !strings.Contains(r.Body, `src="data:image/png;base64,`) {
		t.Fatalf("enrol page without a secret or QR code: %.500s", r.Body)
	}
	secret := m[1]
	// A wrong first code is refused and nothing changes.
	b.Form("/profile/two-factor", url.Values{"code": {"000000"}}).WantStatus(422)
	code, err := totp.GenerateCode(secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	r = b.Form("/profile/two-factor", url.Values{"code": {code}}).WantStatus(200)
	var codes []string
	for _, c := range codeRE.FindAllStringSubmatch(r.Body, -1) {
		codes = append(codes, c[1])
	}
	if len(codes) != auth.RecoveryCodeCount {
		t.Fatalf("%d recovery codes shown, want %d: %.800s", len(codes), auth.RecoveryCodeCount, r.Body)
	}
	return secret, codes
}

// nextCode is a code of the secret for a time step after the one just used (a code works
// once), computed rather than waited for: the check allows one step of drift.
func nextCode(t *testing.T, secret string) string {
	t.Helper()
	code, err := totp.GenerateCode(secret, time.Now().Add(auth.TOTPPeriod))
	if err != nil {
		t.Fatal(err)
	}
	return code
}

func passwordLogin(c *apptest.Client, email, password string) *apptest.Response {
	return c.Form("/login", url.Values{"email": {email}, "password": {password}})
}

func TestTwoFactorWebSignIn(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		b := e.Browser(f.Admin.Email)
		secret, codes := enrol(t, b)
		b.Get("/profile").WantStatus(200).Has(`data-testid="tfa-status"`, "10 recovery codes left")

		// The password alone is not a sign-in: the second step asks for a code.
		c := e.Client()
		r := passwordLogin(c, f.Admin.Email, apptest.Password)
		if r.Status != 303 || r.Location() != "/login/two-factor" {
			t.Fatalf("password step: %d %q", r.Status, r.Location())
		}
		if r := c.Get("/profile"); r.Status != 303 || !strings.HasPrefix(r.Location(), "/login") {
			t.Fatalf("signed in before the code: %d %q", r.Status, r.Location())
		}
		c.Get("/login/two-factor").WantStatus(200).Has(`name="code"`)
		c.Form("/login/two-factor", url.Values{"code": {"123456"}}).WantStatus(401).Has(`data-testid="tfa-error"`)
		if r := c.Form("/login/two-factor", url.Values{"code": {nextCode(t, secret)}}); r.Status != 303 {
			t.Fatalf("code step: %d %s", r.Status, r.Body)
		}
		c.Get("/profile").WantStatus(200)

		// A recovery code signs in once; replayed, it is refused.
		for i, want := range []int{303, 401} {
			c := e.Client()
			passwordLogin(c, f.Admin.Email, apptest.Password).WantStatus(303)
			if r := c.Form("/login/two-factor", url.Values{"code": {strings.ToUpper(codes[0])}}); r.Status != want {
				t.Fatalf("recovery code, try %d: %d, want %d", i+1, r.Status, want)
			}
		}
		b.Get("/profile").Has("9 recovery codes left")

		// The security log has the enrolment, the 2FA sign-ins and the failure.
		log := apiLogin2FA(t, e, f.Admin.Email, codes[1]).Get("/v1/api/list-security-log").Body
		for _, kind := range []string{store.SecTwoFactorEnabled, store.SecSignInTwoFactor, store.SecTwoFactorFailed} {
			if !strings.Contains(log, `"kind":"`+kind+`"`) {
				t.Errorf("security log lacks %s", kind)
			}
		}
	})
}

// apiLogin2FA signs in through the API's two steps with a code (or recovery code).
func apiLogin2FA(t *testing.T, e *apptest.Env, email, code string) *apptest.Client {
	t.Helper()
	c := e.Client()
	r := c.Do("POST", "/v1/api/auth/login", map[string]string{"email": email, "password": apptest.Password})
	d := r.WantStatus(200).Env().Data
	challenge, _ := d["challenge"].(string)
	if d["two_factor_required"] != true || challenge == "" || d["token"] != nil {
		t.Fatalf("login of a two-factor user: %s", r.Body)
	}
	r = c.Do("POST", "/v1/api/auth/login/two-factor", map[string]string{"challenge": challenge, "code": code})
	c.Token, _ = r.WantStatus(200).Env().Data["token"].(string)
	return c
}

// expireAll back-dates the expiry of every row of table, as the owner (around the store).
func expireAll(t *testing.T, e *apptest.Env, table string) {
	t.Helper()
	err := storetest.Owner(t, e.DB).RunInTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewRaw("UPDATE "+table+" SET expires_at = ?", time.Now().UTC().Add(-time.Minute)).Exec(ctx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestTwoFactorAPISignIn(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		secret, codes := enrol(t, e.Browser(f.Admin.Email))
		c := e.Client()
		login := func() string {
			r := c.Do("POST", "/v1/api/auth/login", map[string]string{"email": f.Admin.Email, "password": apptest.Password})
			ch, _ := r.WantStatus(200).Env().Data["challenge"].(string)
			return ch
		}
		second := func(challenge, code string) *apptest.Response {
			return c.Do("POST", "/v1/api/auth/login/two-factor", map[string]string{"challenge": challenge, "code": code})
		}
		// A wrong code is refused and leaves the challenge for another try.
		ch := login()
		second(ch, "000000").WantStatus(401)
		// An expired challenge is refused, even with a right code.
		expireAll(t, e, "login_challenges")
		second(ch, codes[0]).WantStatus(401)
		// A live one gives a token once.
		ch = login()
		used := nextCode(t, secret)
		r := second(ch, used).WantStatus(200)
		token, _ := r.Env().Data["token"].(string)
		me := e.Client()
		me.Token = token
		me.Get("/v1/api/auth/me").WantStatus(200)
		second(ch, codes[1]).WantStatus(401) // the challenge is spent
		// A recovery code works once.
		second(login(), codes[2]).WantStatus(200)
		second(login(), codes[2]).WantStatus(401)
		// The code of a step already used is refused (replay): the same code, not a code
		// made again, which is a new one when a TOTP step has passed since.
		second(login(), used).WantStatus(401)
		// A garbage challenge is refused like an expired one.
		second("7.notachallenge", "123456").WantStatus(401)
	})
}

func TestWrongCodesAreThrottled(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := apptest.NewServer(t, db, func(d *app.Deps) { d.Throttle = auth.NewLoginThrottle() })
		f := e.Tenant("Acme")
		enrol(t, e.Browser(f.Admin.Email))
		c := e.Client()
		passwordLogin(c, f.Admin.Email, apptest.Password).WantStatus(303)
		statuses := []int{}
		for range 7 {
			statuses = append(statuses, c.Form("/login/two-factor", url.Values{"code": {"000000"}}).Status)
		}
		if statuses[0] != 401 || statuses[len(statuses)-1] != http.StatusTooManyRequests {
			t.Fatalf("wrong codes answered %v, want 401 at first and 429 once throttled", statuses)
		}
	})
}

func TestRoleRequiringTwoFactorSendsToEnrol(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		admin := e.APIClient(f.Admin.Email)
		u := e.User(f, "sales@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: auth.Full})
		other := e.User(f, "other@acme.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: auth.Full})
		_ = other
		r := admin.Do("PUT", "/v1/api/update-role-master/"+strconv.FormatInt(u.RoleID, 10), map[string]any{"require_two_factor": true})
		if r.WantStatus(200).Env().Data["require_two_factor"] != true {
			t.Fatalf("role not changed: %s", r.Body)
		}
		b := e.Client()
		r = passwordLogin(b, u.Email, apptest.Password).WantStatus(303)
		for range 3 { // the landing page sends on to the enrolment
			if r.Location() == "/profile/two-factor" {
				break
			}
			r = b.Get(r.Location())
		}
		if r.Location() != "/profile/two-factor" {
			t.Fatalf("not sent to enrol: %d %q", r.Status, r.Location())
		}
		for _, path := range []string{"/leads", "/profile", "/home"} {
			if r := b.Get(path); r.Status != 303 || r.Location() != "/profile/two-factor" {
				t.Errorf("GET %s before enrolling: %d %q", path, r.Status, r.Location())
			}
		}
		b.Get("/profile/two-factor").WantStatus(200).Has(`data-testid="tfa-required"`)
		api := e.Client()
		api.Token = apiToken(t, e, u.Email)
		api.Get("/v1/api/list-session").WantStatus(403)
		enrol(t, b)
		b.Get("/leads").WantStatus(200)
		api.Get("/v1/api/list-session").WantStatus(200)
		// It cannot be turned off while the role requires it.
		b.Form("/profile/two-factor/disable", url.Values{"code": {apptest.Password}}).WantStatus(409)
	})
}

// apiToken signs a user without two-factor in through the API.
func apiToken(t *testing.T, e *apptest.Env, email string) string {
	t.Helper()
	r := e.Client().Do("POST", "/v1/api/auth/login", map[string]string{"email": email, "password": apptest.Password})
	tok, _ := r.WantStatus(200).Env().Data["token"].(string)
	if tok == "" {
		t.Fatalf("no token: %s", r.Body)
	}
	return tok
}

func TestDisableTwoFactor(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		b := e.Browser(f.Admin.Email)
		_, codes := enrol(t, b)
		b.Form("/profile/two-factor/disable", url.Values{"code": {"Wrong@pass1"}}).WantStatus(422).Has("This is not your current password.")
		b.Form("/profile/two-factor/disable", url.Values{"code": {"abcde-fghjk"}}).WantStatus(422).Has("This code is not valid")
		// New recovery codes replace the old ones.
		r := b.Form("/profile/two-factor/recovery-codes", url.Values{"code": {codes[0]}}).WantStatus(200)
		if n := len(codeRE.FindAllString(r.Body, -1)); n != auth.RecoveryCodeCount {
			t.Fatalf("%d new codes", n)
		}
		b.Form("/profile/two-factor/disable", url.Values{"code": {codes[1]}}).WantStatus(422)
		b.Form("/profile/two-factor/disable", url.Values{"code": {apptest.Password}}).WantStatus(303)
		b.Get("/profile").Has(`data-testid="tfa-enrol"`)
		apiToken(t, e, f.Admin.Email) // the password alone signs in again
	})
}

func TestProfileDetailsAndPassword(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		api := e.APIClient(f.Admin.Email)
		r := api.Do("PUT", "/v1/api/update-profile", map[string]any{"name": "", "phone": "12345", "locale": "xx_XX", "time_zone": "Mars/Base"}).WantStatus(422)
		for field, key := range map[string]string{"name": "required", "phone": "invalidPhone", "locale": "invalid", "time_zone": "invalid"} {
			if got := r.Env().Errors[field]; got != key {
				t.Errorf("%s: %q, want %q", field, got, key)
			}
		}
		r = api.Do("PUT", "/v1/api/update-profile", map[string]any{"name": "Ann Admin", "phone": "+33 1 23 45 67 89", "locale": "fr_FR", "time_zone": "Europe/Paris"}).WantStatus(200)
		if d := r.Env().Data; d["name"] != "Ann Admin" || d["phone"] != "33123456789" || d["locale"] != "fr_FR" || d["time_zone"] != "Europe/Paris" {
			t.Fatalf("profile: %s", r.Body)
		}
		// The page form, with a field error shown at its field.
		b := e.Browser(f.Admin.Email)
		b.Get("/profile").WantStatus(200).Has("Mon profil", `value="Ann Admin"`)
		b.Form("/profile", url.Values{"name": {"Ann"}, "phone": {"123"}}).WantStatus(422).WantInlineError("f-phone", "Saisissez de 10 à 15 chiffres.")

		// Changing the password: the current one is required, the rule applies, and every
		// other session ends (the current one and the named tokens stay).
		other := e.Browser(f.Admin.Email)
		otherAPI := e.APIClient(f.Admin.Email)
		named := api.Do("POST", "/v1/api/create-api-token", map[string]any{"name": "CI", "expires_in_days": 0}).WantStatus(201)
		namedClient := e.Client()
		namedClient.Token, _ = named.Env().Data["token"].(string)
		r = api.Do("PUT", "/v1/api/change-password", map[string]string{"current_password": "Wrong@pass1", "password": "Better@pass2"}).WantStatus(422)
		if r.Env().Errors["current_password"] != "wrongPassword" {
			t.Fatalf("wrong current password: %s", r.Body)
		}
		r = api.Do("PUT", "/v1/api/change-password", map[string]string{"current_password": apptest.Password, "password": "weak"}).WantStatus(422)
		if r.Env().Errors["password"] != "invalidPassword" {
			t.Fatalf("weak password: %s", r.Body)
		}
		r = api.Do("PUT", "/v1/api/change-password", map[string]string{"current_password": apptest.Password, "password": "Better@pass2"}).WantStatus(200)
		if n, _ := r.Env().Data["signed_out"].(float64); n < 3 {
			t.Fatalf("signed out %v sessions, want the two browsers and the other API sign-in: %s", n, r.Body)
		}
		api.Get("/v1/api/list-session").WantStatus(200)
		otherAPI.Get("/v1/api/auth/me").WantStatus(401)
		if r := other.Get("/profile"); r.Status != 303 {
			t.Fatalf("the other browser is still signed in: %d", r.Status)
		}
		namedClient.Get("/v1/api/auth/me").WantStatus(200)
		e.Client().Do("POST", "/v1/api/auth/login", map[string]string{"email": f.Admin.Email, "password": "Better@pass2"}).WantStatus(200)
		// The page form asks for the current password too.
		b = e.Client()
		b.Form("/login", url.Values{"email": {f.Admin.Email}, "password": {"Better@pass2"}}).WantStatus(303)
		b.Form("/profile/password", url.Values{"current_password": {"nope"}, "password": {"Third@pass3"}}).WantStatus(422).
			WantInlineError("f-current-password", "Ce n'est pas votre mot de passe actuel.")
	})
}

func TestAPITokens(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f, g := e.Tenant("Acme"), e.Tenant("Globex")
		api := e.APIClient(f.Admin.Email)
		api.Do("POST", "/v1/api/create-api-token", map[string]any{"name": "", "expires_in_days": 7}).WantStatus(422)
		r := api.Do("POST", "/v1/api/create-api-token", map[string]any{"name": "Zapier", "expires_in_days": 30}).WantStatus(201)
		d := r.Env().Data
		id := strconv.FormatFloat(d["id"].(float64), 'f', 0, 64)
		tok := e.Client()
		tok.Token, _ = d["token"].(string)
		tok.Get("/v1/api/auth/me").WantStatus(200)
		list := api.Get("/v1/api/list-api-token").WantStatus(200)
		if !strings.Contains(list.Body, `"name":"Zapier"`) || strings.Contains(list.Body, tok.Token) || strings.Contains(list.Body, `"last_used_at":null`) {
			t.Fatalf("token list (named, used, no secret): %s", list.Body)
		}
		// Another tenant's administrator, and another user of the tenant, do not find it.
		e.APIClient(g.Admin.Email).Do("DELETE", "/v1/api/delete-api-token/"+id, nil).WantStatus(404)
		e.User(f, "colleague@acme.test", nil)
		e.APIClient("colleague@acme.test").Do("DELETE", "/v1/api/delete-api-token/"+id, nil).WantStatus(404)
		e.Browser(g.Admin.Email).Get("/profile/tokens/" + id + "/revoke").WantStatus(404)
		tok.Get("/v1/api/auth/me").WantStatus(200)
		// The page: confirmation, then revoked.
		b := e.Browser(f.Admin.Email)
		b.Get("/profile").Has("Zapier")
		b.Get("/profile/tokens/"+id+"/revoke").WantStatus(200).Has("Zapier", `data-testid="confirm"`)
		b.Form("/profile/tokens/"+id+"/revoke", nil).WantStatus(303)
		tok.Get("/v1/api/auth/me").WantStatus(401)
		api.Do("DELETE", "/v1/api/delete-api-token/"+id, nil).WantStatus(404)
		// Made on the page, the secret is shown once; an expired token is refused.
		r = b.Form("/profile/tokens", url.Values{"name": {"Sheet"}, "expires_in_days": {"90"}}).WantStatus(201)
		m := regexp.MustCompile(`data-testid="token-secret">([^<]+)<`).FindStringSubmatch(r.Body)
		if m == nil {
			t.Fatalf("no secret shown: %.500s", r.Body)
		}
		b.Get("/profile").Lacks(m[1])
		sheet := e.Client()
		sheet.Token = m[1]
		sheet.Get("/v1/api/auth/me").WantStatus(200)
		expireAll(t, e, "api_tokens")
		sheet.Get("/v1/api/auth/me").WantStatus(401)
	})
}

func TestSignOutEverywhere(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		b1, b2 := e.Browser(f.Admin.Email), e.Browser(f.Admin.Email)
		api := e.APIClient(f.Admin.Email)
		r := b1.Get("/v1/api/list-session").WantStatus(200)
		if n := r.Env().Data["total"].(float64); n != 3 || strings.Count(r.Body, `"current":true`) != 1 {
			t.Fatalf("sessions: %s", r.Body)
		}
		b1.Get("/profile").Has(`data-testid="session-current"`)
		b1.Form("/profile/sessions/sign-out", nil).WantStatus(303)
		b1.Get("/profile").WantStatus(200)
		if r := b2.Get("/profile"); r.Status != 303 {
			t.Fatalf("the other browser is still signed in: %d", r.Status)
		}
		api.Get("/v1/api/auth/me").WantStatus(401)
		// From the API, the calling token stays.
		api = e.APIClient(f.Admin.Email)
		r = api.Do("POST", "/v1/api/sign-out-everywhere", nil).WantStatus(200)
		if n, _ := r.Env().Data["signed_out"].(float64); n != 1 {
			t.Fatalf("signed out %v, want the one browser: %s", n, r.Body)
		}
		api.Get("/v1/api/auth/me").WantStatus(200)
		if r := b1.Get("/profile"); r.Status != 303 {
			t.Fatalf("browser still signed in: %d", r.Status)
		}
	})
}

// mailbox is a Mailer that keeps what it is asked to send.
type mailbox struct {
	mu    sync.Mutex
	sent  []string
	asked chan struct{}
}

func (m *mailbox) SendLink(_ context.Context, _ store.Scope, to, purpose, url string) error {
	m.mu.Lock()
	m.sent = append(m.sent, to+" "+purpose+" "+url)
	m.mu.Unlock()
	m.asked <- struct{}{}
	return nil
}

func TestForgotPassword(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		box := &mailbox{asked: make(chan struct{}, 10)}
		e := apptest.NewServer(t, db, func(d *app.Deps) { d.Mailer = box })
		f := e.Tenant("Acme")
		e.Client().Get("/login").Has(`href="/forgot-password"`)
		anon := e.Client()
		anon.Get("/forgot-password").WantStatus(200)
		known := anon.Form("/forgot-password", url.Values{"email": {strings.ToUpper(f.Admin.Email)}}).WantStatus(200)
		unknown := anon.Form("/forgot-password", url.Values{"email": {"nobody@nowhere.test"}}).WantStatus(200)
		if known.Body != unknown.Body {
			t.Fatalf("the answer tells whether the email has an account")
		}
		select {
		case <-box.asked:
		case <-time.After(time.Minute): // a bound on a failure, not a wait for success
			t.Fatal("no reset link was mailed")
		}
		box.mu.Lock()
		sent := box.sent
		box.mu.Unlock()
		if len(sent) != 1 || !strings.HasPrefix(sent[0], f.Admin.Email+" "+store.LinkReset+" http") {
			t.Fatalf("mailed %q", sent)
		}
		link, _ := url.Parse(strings.Fields(sent[0])[2])
		other := e.Browser(f.Admin.Email)
		anon.Get(link.Path).WantStatus(200).Has(f.Admin.Email)
		anon.Form(link.Path, url.Values{"password": {"weak"}}).WantStatus(422)
		if r := anon.Form(link.Path, url.Values{"password": {"Reset@pass1"}}); r.Status != 303 || r.Location() != "/login" {
			t.Fatalf("reset: %d %q", r.Status, r.Location())
		}
		anon.Get(link.Path).WantStatus(200).Has(`data-testid="reset-gone"`)
		anon.Form(link.Path, url.Values{"password": {"Again@pass2"}}).Has(`data-testid="reset-gone"`)
		if r := other.Get("/profile"); r.Status != 303 {
			t.Fatalf("sessions not signed out by the reset: %d", r.Status)
		}
		e.Client().Do("POST", "/v1/api/auth/login", map[string]string{"email": f.Admin.Email, "password": "Reset@pass1"}).WantStatus(200)
		// An expired link is gone.
		anon.Form("/forgot-password", url.Values{"email": {f.Admin.Email}}).WantStatus(200)
		<-box.asked
		box.mu.Lock()
		link, _ = url.Parse(strings.Fields(box.sent[1])[2])
		box.mu.Unlock()
		expireAll(t, e, "user_links")
		anon.Get(link.Path).Has(`data-testid="reset-gone"`)
	})
}
