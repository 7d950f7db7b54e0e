// Sign-in with an identity provider, end to end through the real router against an OpenID
// provider this test runs in-process (discovery, JWKS with an RSA key, authorize and token
// endpoints, RS256 ID tokens): a good sign-in, and refusals of a wrong audience, an expired
// token, a replayed state and an unverified email; the settings page; the only-SSO rule.
package sso_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"crm/app"
	"crm/app/apptest"
	"crm/app/store"
	"crm/app/store/storetest"
)

// provider is a small OpenID provider. claims adjusts the ID token of the next sign-in.
type provider struct {
	srv    *httptest.Server
	key    *rsa.PrivateKey
	mu     sync.Mutex
	codes  map[string]map[string]string // code → the authorize request's parameters
	claims func(c map[string]any)
	email  string
}

func newProvider(t *testing.T) *provider {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p := &provider{key: key, codes: map[string]map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": p.srv.URL, "authorization_endpoint": p.srv.URL + "/authorize",
			"token_endpoint": p.srv.URL + "/token", "jwks_uri": p.srv.URL + "/jwks", "response_types_supported": []string{"code"},
			"subject_types_supported": []string{"public"}, "id_token_signing_alg_values_supported": []string{"RS256"}})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("nonce") == "" {
			http.Error(w, "PKCE and a nonce are required", http.StatusBadRequest)
			return
		}
		code := base64.RawURLEncoding.EncodeToString([]byte(time.Now().String()))
		p.mu.Lock()
		p.codes[code] = map[string]string{"challenge": q.Get("code_challenge"), "nonce": q.Get("nonce"), "client_id": q.Get("client_id")}
		p.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?"+url.Values{"code": {code}, "state": {q.Get("state")}}.Encode(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		p.mu.Lock()
		req, ok := p.codes[r.PostForm.Get("code")]
		delete(p.codes, r.PostForm.Get("code"))
		p.mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != req["challenge"] {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant"})
			return
		}
		now := time.Now()
		c := map[string]any{"iss": p.srv.URL, "sub": "u-1", "aud": req["client_id"], "email": p.email, "email_verified": true,
			"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "nonce": req["nonce"]}
		if p.claims != nil {
			p.claims(c)
		}
		signer, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: p.key}, (&jose.SignerOptions{}).WithHeader("kid", "k1"))
		tok, _ := jwt.Signed(signer).Claims(c).Serialize()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": "at", "token_type": "Bearer", "id_token": tok, "expires_in": 300})
	})
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

// signIn walks a browser through the provider: start with the email, the provider's
// authorize redirect, the callback. It returns the callback's answer and its URL.
func signIn(t *testing.T, c *apptest.Client, email string) (*apptest.Response, string) {
	t.Helper()
	r := c.Get("/auth/google?email=" + url.QueryEscape(email))
	if r.Status != http.StatusSeeOther {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	res, err := c.HTTP.Get(r.Location()) // the provider (not our server): follow its redirect by hand
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	back := res.Header.Get("Location")
	if res.StatusCode != http.StatusFound || !strings.HasPrefix(back, c.Env.Srv.URL+"/auth/google/callback?") {
		t.Fatalf("authorize: %d %s", res.StatusCode, back)
	}
	cb := strings.TrimPrefix(back, c.Env.Srv.URL)
	return c.Get(cb), cb
}

func TestSignInWithAnOpenIDProvider(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			e := apptest.NewServer(t, storetest.Open(t, d), func(deps *app.Deps) { deps.SecretKey = "test-key-" + string(d) })
			f := e.Tenant("Acme")
			idp := newProvider(t)
			admin := e.Browser(f.Admin.Email)
			admin.Get("/settings/sso").WantStatus(http.StatusOK).Lacks(`data-testid="sso-no-key"`)
			admin.Form("/settings/sso", url.Values{"provider_name": {"Acme IdP"}, "issuer": {idp.srv.URL},
				"client_id": {"crm-client"}, "client_secret": {"s3cret"}}).WantStatus(http.StatusSeeOther)
			// The secret is sealed at rest.
			c, err := e.Scope(f).SSO(t.Context())
			if err != nil || c.ClientSecret == "" || strings.Contains(c.ClientSecret, "s3cret") {
				t.Fatalf("stored secret: %+v %v", c, err)
			}
			rep := e.User(f, "rep@acme.test", nil)
			// The sign-in page's second step offers the provider of the email's tenant, and reads
			// the same for an unknown email as for a tenant without a provider.
			e.Client().Get("/login/sso?email="+url.QueryEscape(rep.Email)).WantStatus(http.StatusOK).
				Has("Sign in with Acme IdP", "/auth/google?email=rep%40acme.test")
			e.Client().Get("/login/sso?email=nobody%40else.test").WantStatus(http.StatusOK).Has(`data-testid="sso-none"`)

			// A good sign-in lands on the home page, signed in as the user of that email.
			idp.email = rep.Email
			browser := e.Client()
			r, cb := signIn(t, browser, rep.Email)
			if r.Status != http.StatusSeeOther || r.Location() != "/home" {
				t.Fatalf("callback: %d %s", r.Status, r.Body)
			}
			if me := browser.Get("/v1/api/auth/me"); me.Status != http.StatusOK || !strings.Contains(me.Body, rep.Email) {
				t.Errorf("me after SSO: %d %s", me.Status, me.Body)
			}
			// The same callback again (a replayed state) is refused.
			replay := e.Client()
			replay.HTTP.Jar = browser.HTTP.Jar
			if r := replay.Get(cb); r.Status != http.StatusForbidden {
				t.Errorf("replayed state: %d", r.Status)
			}

			for name, bad := range map[string]func(c map[string]any){
				"wrong audience": func(c map[string]any) { c["aud"] = "someone-else" },
				"expired token": func(c map[string]any) {
					c["exp"] = time.Now().Add(-time.Hour).Unix()
					c["iat"] = time.Now().Add(-2 * time.Hour).Unix()
				},
				"unverified email": func(c map[string]any) { c["email_verified"] = false },
				"another issuer":   func(c map[string]any) { c["iss"] = "https://evil.example" },
				"unknown email":    func(c map[string]any) { c["email"] = "nobody@acme.test" },
			} {
				idp.claims = bad
				b := e.Client()
				if r, _ := signIn(t, b, rep.Email); r.Status != http.StatusForbidden || !strings.Contains(r.Body, "did not succeed") {
					t.Errorf("%s: %d %.200s", name, r.Status, r.Body)
				}
				if me := b.Get("/v1/api/auth/me"); me.Status != http.StatusUnauthorized {
					t.Errorf("%s: signed in anyway (%d)", name, me.Status)
				}
			}
			idp.claims = nil

			// Only SSO: the password is refused to a user, kept for the Administrator (break glass).
			admin.Form("/settings/sso", url.Values{"provider_name": {"Acme IdP"}, "issuer": {idp.srv.URL},
				"client_id": {"crm-client"}, "only_sso": {"on"}}).WantStatus(http.StatusSeeOther)
			r = e.Client().Do("POST", "/v1/api/auth/login", map[string]string{"email": rep.Email, "password": apptest.Password})
			if r.Status != http.StatusForbidden {
				t.Errorf("password under only-SSO: %d %s", r.Status, r.Body)
			}
			e.APIClient(f.Admin.Email) // the Administrator still signs in with the password
			if r, _ := signIn(t, e.Client(), rep.Email); r.Status != http.StatusSeeOther {
				t.Errorf("SSO under only-SSO (the secret kept): %d %s", r.Status, r.Body)
			}
		})
	}
}

func TestSSONeedsTheServerKey(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		admin := e.Browser(f.Admin.Email)
		admin.Get("/settings/sso").WantStatus(http.StatusOK).Has(`data-testid="sso-no-key"`, "CRM_SECRET_KEY")
		admin.Form("/settings/sso", url.Values{"provider_name": {"X"}, "issuer": {"https://idp.example"}, "client_id": {"c"},
			"client_secret": {"s"}}).WantStatus(http.StatusConflict)
		if _, err := e.Scope(f).SSO(t.Context()); err != store.ErrNotFound {
			t.Errorf("saved without a key: %v", err)
		}
		e.Client().Get("/auth/google?email=" + url.QueryEscape(f.Admin.Email)).WantStatus(http.StatusNotFound)
	})
}
