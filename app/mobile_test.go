package app_test

import (
	"encoding/json"
	"html"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"crm/locales"
)

var mobileScreens = []string{"/m/leads-mobile", "/m/add-lead", "/m/add-lead-address"}

var mobileLangs = []string{"en", "fr", "es", "de", "pt", "it", "cs"}

func TestMobileRedirects(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		for _, c := range []struct {
			name string
			c    *client
		}{{"anonymous", e.client()}, {"signed in", e.browser(f.Admin.Email)}} {
			for _, path := range []string{"/m", "/m/", "/m/unknown", "/m/leads", "/m/a/b/c?x=1"} {
				r := c.c.get(path)
				if r.status != http.StatusSeeOther || r.header.Get("Location") != "/m/leads-mobile" {
					t.Errorf("%s GET %s = %d → %q, want 303 → /m/leads-mobile", c.name, path, r.status, r.header.Get("Location"))
				}
			}
		}
	})
}

func TestMobileScreensNeedSignIn(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		c := e.client()
		for _, path := range mobileScreens {
			r := c.get(path)
			want := "/m/login?next=" + url.QueryEscape(path)
			if r.status != http.StatusSeeOther || r.header.Get("Location") != want {
				t.Errorf("GET %s = %d → %q, want 303 → %q", path, r.status, r.header.Get("Location"), want)
			}
		}
		// The JSON calls the islands make answer 401 in the envelope, never a redirect.
		r := c.get("/v1/api/auth/me", "Accept", "application/json")
		if r.status != http.StatusUnauthorized || r.env().Status != http.StatusUnauthorized {
			t.Errorf("anonymous /auth/me = %d %s", r.status, r.body)
		}
	})
}

func TestMobileLogin(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.client()

		page := c.get("/m/login?next=%2Fm%2Fadd-lead")
		if page.status != http.StatusOK {
			t.Fatalf("GET /m/login = %d", page.status)
		}
		for _, want := range []string{`action="/m/login"`, `name="next" value="/m/add-lead"`, `name="viewport"`, `id="email"`, `id="password"`} {
			if !strings.Contains(page.body, want) {
				t.Errorf("sign-in page lacks %s", want)
			}
		}
		assertStrictPage(t, page.body)

		bad := c.form("/m/login", url.Values{"email": {f.Admin.Email}, "password": {"wrong"}, "next": {"/m/add-lead"}})
		if bad.status != http.StatusUnauthorized || !strings.Contains(bad.body, `data-testid="login-error"`) ||
			!strings.Contains(bad.body, `value="/m/add-lead"`) {
			t.Fatalf("wrong password: %d, want 401 with the error and next kept", bad.status)
		}

		ok := c.form("/m/login", url.Values{"email": {f.Admin.Email}, "password": {testPassword}, "next": {"/m/add-lead"}})
		if ok.status != http.StatusSeeOther || ok.header.Get("Location") != "/m/add-lead" {
			t.Fatalf("sign-in = %d → %q, want 303 → /m/add-lead", ok.status, ok.header.Get("Location"))
		}
		// A mobile sign-in lasts: the cookie outlives the admin session's 12 hours by far.
		var exp time.Time
		for _, ck := range (&http.Response{Header: ok.header}).Cookies() {
			if ck.Name == "crm_session" {
				exp = ck.Expires
			}
		}
		if time.Until(exp) < 29*24*time.Hour {
			t.Errorf("mobile session cookie expires %v, want about 30 days", exp)
		}
		if r := c.get("/m/add-lead"); r.status != http.StatusOK {
			t.Errorf("after sign-in GET /m/add-lead = %d", r.status)
		}
		// Signed in already: the sign-in page sends the user on.
		if r := c.get("/m/login?next=%2Fm%2Fadd-lead-address"); r.status != http.StatusSeeOther || r.header.Get("Location") != "/m/add-lead-address" {
			t.Errorf("signed-in GET /m/login = %d → %q", r.status, r.header.Get("Location"))
		}

		// next never leaves the site.
		c2 := e.client()
		r := c2.form("/m/login", url.Values{"email": {f.Admin.Email}, "password": {testPassword}, "next": {"//evil.example/x"}})
		if r.header.Get("Location") != "/m/leads-mobile" {
			t.Errorf("next=//evil → %q, want /m/leads-mobile", r.header.Get("Location"))
		}
	})
}

// assertStrictPage checks a page keeps to the CSP: every script external, no inline styles.
func assertStrictPage(t *testing.T, body string) {
	t.Helper()
	for _, m := range regexp.MustCompile(`<script[^>]*>`).FindAllString(body, -1) {
		if !strings.Contains(m, ` src="/static/build/`) {
			t.Errorf("inline or foreign script: %s", m)
		}
	}
	if regexp.MustCompile(`<style|\sstyle=`).MatchString(body) {
		t.Error("page has inline styles")
	}
}

type mobileProps struct {
	Lang       string `json:"lang"`
	Locale     string `json:"locale"`
	LocalesURL string `json:"localesUrl"`
	ConfigURL  string `json:"configUrl"`
	SWURL      string `json:"swUrl"`
	Scope      string `json:"scope"`
}

func TestMobileScreens(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.browser(f.Admin.Email)
		propsRE := regexp.MustCompile(`data-island="mobile-app" data-props="([^"]*)"`)
		for _, path := range mobileScreens {
			r := c.get(path)
			if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
				t.Fatalf("GET %s = %d %s", path, r.status, r.header.Get("Content-Type"))
			}
			assertStrictPage(t, r.body)
			if !strings.Contains(r.header.Get("Content-Security-Policy"), "script-src 'self'") {
				t.Errorf("%s: no strict CSP", path)
			}
			m := propsRE.FindStringSubmatch(r.body)
			if m == nil {
				t.Fatalf("%s: no mobile island mount point", path)
			}
			var p mobileProps
			mustJSON(t, html.UnescapeString(m[1]), &p)
			if p.Lang != "en" || p.Locale != "en-GB" || p.ConfigURL != "/v1/api/config.json" || p.SWURL != "/m/sw.js" || p.Scope != "/m/" ||
				!strings.HasPrefix(p.LocalesURL, "/locales/mobile/en.json?v=") {
				t.Errorf("%s props = %+v", path, p)
			}
			for _, want := range []string{`<html lang="en">`, `<div id="toasts"`, `href="/static/build/mobilecss-`, `src="/static/build/mobile-`} {
				if !strings.Contains(r.body, want) {
					t.Errorf("%s lacks %s", path, want)
				}
			}
			if got := c.get(p.LocalesURL); got.status != http.StatusOK {
				t.Errorf("the page's message file %s = %d", p.LocalesURL, got.status)
			}
		}
	})
}

func TestMobileLanguageFollowsTheUser(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		f := e.tenant("Acme")
		c := e.browser(f.Admin.Email)
		if r := c.form("/language", url.Values{"locale": {"de_DE"}, "back": {"/m/leads-mobile"}}); r.status != http.StatusSeeOther {
			t.Fatalf("set language: %d", r.status)
		}
		r := c.get("/m/leads-mobile")
		if !strings.Contains(r.body, `<html lang="de">`) || !strings.Contains(r.body, "/locales/mobile/de.json?v=") {
			t.Errorf("German user gets another language: %.400s", r.body)
		}
		// en_AU has no mobile file of its own: English.
		c.form("/language", url.Values{"locale": {"en_AU"}, "back": {"/m/leads-mobile"}})
		if r := c.get("/m/add-lead"); !strings.Contains(r.body, "/locales/mobile/en.json?v=") {
			t.Error("en_AU user does not get the English file")
		}
	})
}

func TestMobileServiceWorker(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		r := e.client().get("/m/sw.js")
		if r.status != http.StatusOK {
			t.Fatalf("GET /m/sw.js = %d", r.status)
		}
		for h, want := range map[string]string{"Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache",
			"Service-Worker-Allowed": "/m/"} {
			if got := r.header.Get(h); got != want {
				t.Errorf("%s = %q, want %q", h, got, want)
			}
		}
		first, _, _ := strings.Cut(r.body, "\n")
		list, ok := strings.CutPrefix(first, "self.CRM_PRECACHE=")
		if !ok {
			t.Fatalf("worker does not start with its precache list: %.200s", r.body)
		}
		var urls []string
		mustJSON(t, strings.TrimSuffix(list, ";"), &urls)
		for _, want := range append(slices.Clone(mobileScreens), "/v1/api/config.json") {
			if !slices.Contains(urls, want) {
				t.Errorf("precache lacks %s: %v", want, urls)
			}
		}
		var js, css, loc bool
		for _, u := range urls {
			js = js || strings.HasPrefix(u, "/static/build/mobile-") && strings.HasSuffix(u, ".js")
			css = css || strings.HasPrefix(u, "/static/build/mobilecss-")
			loc = loc || strings.HasPrefix(u, "/locales/mobile/en.json?v=")
			if strings.HasPrefix(u, "/v1/api/lead/") {
				t.Errorf("lead calls must not be precached: %s", u)
			}
		}
		if !js || !css || !loc {
			t.Errorf("precache lacks the bundle, the stylesheet or the messages: %v", urls)
		}
		if !strings.Contains(r.body, "addEventListener(\"fetch\"") && !strings.Contains(r.body, "addEventListener('fetch'") {
			t.Error("worker has no fetch handler")
		}
		// Every precached file is really served.
		c := e.browser(e.tenant("Acme").Admin.Email)
		for _, u := range urls {
			if got := c.get(u); got.status != http.StatusOK {
				t.Errorf("precached %s = %d", u, got.status)
			}
		}
	})
}

// readMobileLocale reads locales/mobile/<lang>.json from the embedded files.
func readMobileLocale(t *testing.T, lang string) map[string]string {
	t.Helper()
	b, err := fs.ReadFile(locales.FS, "mobile/"+lang+".json")
	if err != nil {
		t.Fatalf("mobile messages %s: %v", lang, err)
	}
	m := map[string]string{}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("mobile messages %s: %v", lang, err)
	}
	return m
}

var placeholderRE = regexp.MustCompile(`\{\w+\}`)

func TestMobileLocalesComplete(t *testing.T) {
	t.Parallel()
	en := readMobileLocale(t, "en")
	for _, lang := range mobileLangs {
		msgs := readMobileLocale(t, lang)
		for key, src := range en {
			got, ok := msgs[key]
			if !ok || strings.TrimSpace(got) == "" {
				t.Errorf("%s.json lacks %q", lang, key)
				continue
			}
			want := placeholderRE.FindAllString(src, -1)
			have := placeholderRE.FindAllString(got, -1)
			slices.Sort(want)
			slices.Sort(have)
			if !slices.Equal(want, have) {
				t.Errorf("%s.json %q has placeholders %v, English has %v", lang, key, have, want)
			}
		}
		for key := range msgs {
			if _, ok := en[key]; !ok {
				t.Errorf("%s.json has %q, which en.json does not", lang, key)
			}
		}
	}
	// The spec's exact English texts (sections 2, 4, 5 and 8).
	for key, want := range map[string]string{
		"leads.title": "Leads", "leads.won": "Leads Won", "leads.lost": "Leads Lost",
		"leads.loading": "Loading leads...", "leads.empty": "No leads found",
		"sort.recent": "Recent", "sort.name": "Name", "sort.stage": "Stage",
		"filter.stage": "Lead Stage", "filter.status": "Lead Status", "filter.all": "All",
		"filter.reset": "Reset", "filter.apply": "Apply",
		"card.leadId": "Lead ID", "card.unknownStatus": "Unknown", "card.notAvailable": "N/A", "card.createdBy": "Created by",
		"add.title": "Add Lead", "error.leadName": "Lead name is required", "error.email": "Enter a valid email",
		"error.phone": "Phone number is required (10 digits)", "error.leadType": "Please select a lead type",
		"error.flatNo": "Flat/Door No is required", "error.city": "City is required", "error.state": "State is required",
		"error.country": "Country is required", "alert.synced": "Lead synced successfully!",
		"toast.configError": "Error while loading the configuration file!",
		"menu.home":         "Home", "menu.leads": "Leads", "menu.requirements": "Requirements",
		"menu.subRequirement1": "Sub Requirement 1", "menu.subRequirement2": "Sub Requirement 2",
		"menu.clients": "Clients", "menu.client1": "Client 1", "menu.client2": "Client 2", "menu.proposal": "Proposal",
		"menu.quotation": "Quotation", "menu.orders": "Orders", "menu.agreements": "Agreements", "menu.items": "Items",
		"menu.expenses": "Expenses", "menu.timesheet": "Timesheet", "menu.payment": "Payment", "menu.settings": "Settings",
	} {
		if en[key] != want {
			t.Errorf("en.json %q = %q, want the spec's %q", key, en[key], want)
		}
	}
}

// TestMobileLocalesCoverTheIslands checks every message key the island code names is in en.json.
func TestMobileLocalesCoverTheIslands(t *testing.T) {
	t.Parallel()
	en := readMobileLocale(t, "en")
	files, err := filepath.Glob("../islands/mobile/*.ts*")
	if err != nil || len(files) == 0 {
		t.Fatalf("island sources not found: %v", err)
	}
	keyRE := regexp.MustCompile(`'((?:menu|profile|leads|sort|filter|search|card|sync|add|field|select|logo|address|error|button|alert|toast)\.[A-Za-z0-9]+)'`)
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range keyRE.FindAllStringSubmatch(string(b), -1) {
			seen++
			if _, ok := en[m[1]]; !ok {
				t.Errorf("%s uses %q, missing from en.json", filepath.Base(f), m[1])
			}
		}
	}
	// Keys built from a prefix and a field name.
	for _, k := range []string{"sort.recent", "sort.name", "sort.stage", "field.leadType", "field.leadSource"} {
		if _, ok := en[k]; !ok {
			t.Errorf("en.json lacks %q", k)
		}
	}
	for _, f := range []string{"flatNo", "street", "city", "state", "zip", "country"} {
		if _, ok := en["address."+f]; !ok {
			t.Errorf("en.json lacks address.%s", f)
		}
	}
	if seen < 50 {
		t.Errorf("only %d message keys found in the island code: the pattern is stale", seen)
	}
}

func TestMobileLocaleFiles(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		c := e.client()
		var version string
		for _, lang := range mobileLangs {
			r := c.get("/locales/mobile/" + lang + ".json")
			if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
				t.Fatalf("%s.json = %d %s", lang, r.status, r.header.Get("Content-Type"))
			}
			var m map[string]string
			mustJSON(t, r.body, &m)
			if len(m) == 0 {
				t.Errorf("%s.json is empty", lang)
			}
			if r.header.Get("Cache-Control") != "no-cache" {
				t.Errorf("%s.json without v: Cache-Control %q, want no-cache", lang, r.header.Get("Cache-Control"))
			}
			version = strings.Trim(r.header.Get("ETag"), `"`)
		}
		// With the current version the file may be kept for good.
		r := c.get("/locales/mobile/fr.json?v=" + version)
		if r.status != http.StatusOK || !strings.Contains(r.header.Get("Cache-Control"), "immutable") {
			t.Errorf("versioned file: %d %q", r.status, r.header.Get("Cache-Control"))
		}
		if r := c.get("/locales/mobile/fr.json", "If-None-Match", `"`+version+`"`); r.status != http.StatusNotModified {
			t.Errorf("revalidation = %d, want 304", r.status)
		}
		for _, bad := range []string{"xx.json", "en_US.json", "en.toml", "EN.json", "en", "..%2Fen_US.toml"} {
			if r := c.get("/locales/mobile/" + bad); r.status != http.StatusNotFound {
				t.Errorf("%s = %d, want 404", bad, r.status)
			}
		}
	})
}

func TestMobileConfig(t *testing.T) {
	t.Parallel()
	eachServer(t, func(t *testing.T, e *testEnv) {
		var cfg struct {
			Data map[string]json.RawMessage `json:"data"`
		}
		r := e.client().get("/v1/api/config.json")
		if r.status != http.StatusOK || r.env().Status != http.StatusOK {
			t.Fatalf("anonymous config = %d %s", r.status, r.body)
		}
		if cc := r.header.Get("Cache-Control"); !strings.HasPrefix(cc, "private") {
			t.Errorf("config Cache-Control = %q, want private (it names the caller's tenant)", cc)
		}
		mustJSON(t, r.body, &cfg)
		for _, section := range []string{"CentralSystemServer", "Authorization", "Advanced", "User", "Company", "Tenant", "Asset", "Site", "SiteArea"} {
			if _, ok := cfg.Data[section]; !ok {
				t.Errorf("config lacks section %s", section)
			}
		}
		var v struct {
			CentralSystemServer struct {
				BaseURL   string `json:"baseURL"`
				APIPrefix string `json:"apiPrefix"`
			}
			Authorization struct{ Header, SkipHeader, IdempotencyHeader string }
			Advanced      struct {
				PageSize       int  `json:"pageSize"`
				FirstPage      int  `json:"firstPage"`
				ToastTimeoutMs int  `json:"toastTimeoutMs"`
				Prevent        bool `json:"preventDuplicateToasts"`
			}
			User struct {
				Languages       []string `json:"languages"`
				DefaultLanguage string   `json:"defaultLanguage"`
				Locale          string   `json:"locale"`
			}
			Tenant struct {
				ID   int64  `json:"id"`
				Name string `json:"name"`
			}
			Asset struct {
				MaxFiles      int `json:"maxFiles"`
				MaxFileSizeKB int `json:"maxFileSizeKB"`
			}
		}
		raw, _ := json.Marshal(cfg.Data)
		mustJSON(t, string(raw), &v)
		if v.CentralSystemServer.BaseURL != e.srv.URL || v.CentralSystemServer.APIPrefix != "/v1/api" {
			t.Errorf("server section = %+v, want base %s", v.CentralSystemServer, e.srv.URL)
		}
		if v.Authorization.Header != "Authorization" || v.Authorization.SkipHeader != "skip" || v.Authorization.IdempotencyHeader != "Idempotency-Key" {
			t.Errorf("authorization section = %+v", v.Authorization)
		}
		if v.Advanced.PageSize != 20 || v.Advanced.FirstPage != 1 || v.Advanced.ToastTimeoutMs != 3000 || !v.Advanced.Prevent {
			t.Errorf("advanced section = %+v", v.Advanced)
		}
		if !slices.Equal(v.User.Languages, mobileLangs) || v.User.DefaultLanguage != "en" || v.User.Locale != "en-GB" {
			t.Errorf("user section = %+v", v.User)
		}
		if v.Asset.MaxFiles != 5 || v.Asset.MaxFileSizeKB != 2048 {
			t.Errorf("asset section = %+v", v.Asset)
		}
		if v.Tenant.ID != 0 {
			t.Errorf("anonymous config names a tenant: %+v", v.Tenant)
		}

		f := e.tenant("Acme")
		r = e.browser(f.Admin.Email).get("/v1/api/config.json")
		mustJSON(t, r.body, &cfg)
		raw, _ = json.Marshal(cfg.Data)
		mustJSON(t, string(raw), &v)
		if v.Tenant.ID != f.Tenant.ID || v.Tenant.Name != "Acme" {
			t.Errorf("signed-in tenant section = %+v", v.Tenant)
		}
	})
}
