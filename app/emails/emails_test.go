package emails_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"crm/app"
	"crm/app/apptest"
	"crm/app/mail"
	"crm/app/store"
	"crm/app/store/storetest"
)

const key = "a test CRM_SECRET_KEY"

func withKey(d *app.Deps) { d.SecretKey = key }

func TestSettingsKeepThePasswordSecret(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := apptest.NewServer(t, db, withKey)
		a := e.Tenant("Acme")
		api := e.APIClient(a.Admin.Email)
		const secret = "hunter2-Secret-pass"
		r := api.Do("PUT", "/v1/api/update-mail-setting", map[string]any{"host": "smtp.acme.test", "port": 587, "security": "starttls",
			"username": "crm", "password": secret, "from_address": "crm@acme.test", "from_name": "Acme"})
		if r.Status != http.StatusOK || strings.Contains(r.Body, secret) || r.Env().Data["has_password"] != true {
			t.Fatalf("update: %d %s", r.Status, r.Body)
		}
		stored, err := e.Scope(a).MailSettings(context.Background())
		if err != nil || stored.Password == "" || strings.Contains(stored.Password, secret) {
			t.Fatalf("stored password %q: %v", stored.Password, err)
		}
		// Blank keeps it; the page never shows it.
		r = api.Do("PUT", "/v1/api/update-mail-setting", map[string]any{"host": "smtp2.acme.test", "port": 2525, "security": "tls",
			"username": "crm", "from_address": "crm@acme.test"})
		if r.Status != http.StatusOK || r.Env().Data["has_password"] != true || r.Env().Data["host"] != "smtp2.acme.test" {
			t.Fatalf("update keeping the password: %d %s", r.Status, r.Body)
		}
		if again, _ := e.Scope(a).MailSettings(context.Background()); again.Password != stored.Password {
			t.Fatal("a blank password changed the stored one")
		}
		b := e.Browser(a.Admin.Email)
		page := b.Get("/settings/mail")
		if page.Status != http.StatusOK || strings.Contains(page.Body, secret) || !strings.Contains(page.Body, "smtp2.acme.test") {
			t.Fatalf("settings page: %d", page.Status)
		}
		// CR/LF in a header field is refused with the field's error.
		r = b.Form("/settings/mail", url.Values{"host": {"smtp.acme.test"}, "port": {"587"}, "security": {"starttls"},
			"from_address": {"crm@acme.test"}, "from_name": {"Acme\r\nBcc: x@evil.test"}})
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `data-testid="error-from_name"`) {
			t.Fatalf("header injection through the form: %d", r.Status)
		}
		r = api.Do("PUT", "/v1/api/update-mail-setting", map[string]any{"host": "smtp.acme.test\r\nX: y", "port": 587, "security": "starttls", "from_address": "crm@acme.test"})
		if r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("host with CR/LF: %d %s", r.Status, r.Body)
		}
	})
}

func TestPasswordNeedsTheServerKey(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := apptest.NewServer(t, db) // no CRM_SECRET_KEY
		a := e.Tenant("Acme")
		api := e.APIClient(a.Admin.Email)
		r := api.Do("PUT", "/v1/api/update-mail-setting", map[string]any{"host": "smtp.acme.test", "port": 587, "security": "starttls",
			"username": "crm", "password": "pw", "from_address": "crm@acme.test"})
		if r.Status != http.StatusConflict {
			t.Fatalf("a password without a key: %d %s", r.Status, r.Body)
		}
		// A server without a password needs no key.
		r = api.Do("PUT", "/v1/api/update-mail-setting", map[string]any{"host": "relay.acme.test", "port": 25, "security": "none", "from_address": "crm@acme.test"})
		if r.Status != http.StatusOK || r.Env().Data["configured"] != true || r.Env().Data["can_store_password"] != false {
			t.Fatalf("no password: %d %s", r.Status, r.Body)
		}
	})
}

func TestTestEmailWaitsWithoutServerAndShowsInHistory(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := apptest.NewServer(t, db, withKey)
		a, other := e.Tenant("Acme"), e.Tenant("Other")
		api := e.APIClient(a.Admin.Email)
		r := api.Do("POST", "/v1/api/send-test-email", map[string]any{})
		if r.Status != http.StatusCreated || r.Env().Data["status"] != store.EmailQueued || r.Env().Data["to_address"] != a.Admin.Email {
			t.Fatalf("send-test-email: %d %s", r.Status, r.Body)
		}
		id := int64(r.Env().Data["id"].(float64))
		if _, err := mail.New(mail.Config{DB: db}).Sweep(context.Background()); err != nil {
			t.Fatal(err)
		}
		r = api.Get("/v1/api/list-email-history?status=queued")
		res := r.Env().Data["result"].([]any)
		if r.Status != http.StatusOK || len(res) != 1 || res[0].(map[string]any)["last_error"] != store.NoMailServer {
			t.Fatalf("history: %d %s", r.Status, r.Body)
		}
		if r = api.Get("/v1/api/list-email-history?status=sent"); r.Env().Data["total"].(float64) != 0 {
			t.Fatalf("sent filter: %s", r.Body)
		}
		if r = api.Get("/v1/api/list-email-history?status=bogus"); r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("bad status filter: %d", r.Status)
		}
		if r = api.Get("/v1/api/view-email-history/" + strconv.FormatInt(id, 10)); r.Status != http.StatusOK || !strings.Contains(r.Env().Data["body_text"].(string), "test message") {
			t.Fatalf("view: %d %s", r.Status, r.Body)
		}
		b := e.Browser(a.Admin.Email)
		page := b.Get("/emails?status=queued")
		if page.Status != http.StatusOK || !strings.Contains(page.Body, store.NoMailServer) {
			t.Fatalf("history page: %d", page.Status)
		}
		if page = b.Get("/emails/" + strconv.FormatInt(id, 10)); page.Status != http.StatusOK || !strings.Contains(page.Body, store.NoMailServer) {
			t.Fatalf("detail page: %d", page.Status)
		}
		// The other tenant's history is its own.
		if r = e.APIClient(other.Admin.Email).Get("/v1/api/view-email-history/" + strconv.FormatInt(id, 10)); r.Status != http.StatusNotFound {
			t.Fatalf("another tenant's message: %d", r.Status)
		}
	})
}

func TestOneClickUnsubscribe(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := apptest.NewServer(t, db)
		a := e.Tenant("Acme")
		ctx := context.Background()
		id, err := e.Scope(a).EnqueueEmail(ctx, store.EmailInput{To: "Reader@example.test", Subject: "News", Text: "x", Kind: store.EmailBulk})
		if err != nil {
			t.Fatal(err)
		}
		em, _ := e.Scope(a).Email(ctx, id)
		path := "/unsubscribe/" + em.UnsubscribeToken
		c := e.Client()
		if r := c.Get(path); r.Status != http.StatusOK || !strings.Contains(r.Body, "unsubscribe-confirm") {
			t.Fatalf("GET: %d %s", r.Status, r.Body)
		}
		if gone, _ := e.Scope(a).Unsubscribed(ctx, "reader@example.test"); gone {
			t.Fatal("GET unsubscribed (a link preview would)")
		}
		// RFC 8058: a bare POST from a mail provider, no session, no CSRF token, and even
		// another origin's browser headers.
		req, _ := http.NewRequest("POST", e.Srv.URL+path, strings.NewReader("List-Unsubscribe=One-Click"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "https://webmail.example.net")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("one-click POST: %d", res.StatusCode)
		}
		if gone, _ := e.Scope(a).Unsubscribed(ctx, "reader@example.test"); !gone {
			t.Fatal("the POST did not unsubscribe")
		}
		if r := c.Form(path, url.Values{}); r.Status != http.StatusOK || !strings.Contains(r.Body, `data-testid="unsubscribed"`) {
			t.Fatalf("second POST: %d", r.Status)
		}
		if em, _ := e.Scope(a).Email(ctx, id); em.Status != store.EmailUnsubscribed {
			t.Fatalf("the queued message: %s", em.Status)
		}
		// A forged or altered token finds nothing; other routes keep their cross-origin protection.
		for _, bad := range []string{"/unsubscribe/1.nope", path + "x", "/unsubscribe/" + strconv.FormatInt(a.Tenant.ID+1, 10) + em.UnsubscribeToken[strings.IndexByte(em.UnsubscribeToken, '.'):]} {
			if r := c.Form(bad, url.Values{}); r.Status != http.StatusNotFound {
				t.Errorf("POST %s: %d", bad, r.Status)
			}
		}
		b := e.Browser(a.Admin.Email)
		if r := b.Form("/settings/mail", url.Values{"host": {"h"}}, "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"); r.Status != http.StatusForbidden {
			t.Fatalf("a cross-site POST elsewhere: %d", r.Status)
		}
	})
}

func TestInvitationIsMailedWhenMailIsConfigured(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := apptest.NewServer(t, db, withKey)
		a := e.Tenant("Acme")
		api := e.APIClient(a.Admin.Email)
		var roles struct {
			Data []struct {
				ID int64 `json:"id"`
			} `json:"data"`
		}
		apptest.MustJSON(t, api.Get("/v1/api/dropdown-role-master").Body, &roles)
		invite := func(email string) string {
			t.Helper()
			r := api.Do("POST", "/v1/api/add-user", map[string]any{"email": email, "name": "New", "invite": true, "role_id": roles.Data[0].ID})
			if r.Status != http.StatusCreated {
				t.Fatalf("invite: %d %s", r.Status, r.Body)
			}
			return r.Env().Data["invite_link"].(string)
		}
		// Without a mail server: the link is only shown to the administrator.
		invite("first@example.test")
		if p, _ := e.Scope(a).ListEmails(context.Background(), store.EmailQuery{}); p.Total != 0 {
			t.Fatalf("%d messages queued without a mail server", p.Total)
		}
		if r := api.Do("PUT", "/v1/api/update-mail-setting", map[string]any{"host": "relay.acme.test", "port": 25, "security": "none", "from_address": "crm@acme.test"}); r.Status != http.StatusOK {
			t.Fatal(r.Body)
		}
		link := invite("second@example.test")
		p, _ := e.Scope(a).ListEmails(context.Background(), store.EmailQuery{})
		if p.Total != 1 || p.Rows[0].ToAddress != "second@example.test" || p.Rows[0].Purpose != store.LinkInvite ||
			!strings.Contains(p.Rows[0].BodyText, link) || !strings.Contains(p.Rows[0].BodyHTML, link) {
			t.Fatalf("queued: %+v", p.Rows)
		}
	})
}
