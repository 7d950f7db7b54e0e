package session_test

import (
	"context"
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

	"crm/app/apptest"
	"crm/app/auth"
	"crm/app/store"
	"crm/locales"
)

var mobileScreens = []string{"/m/leads-mobile", "/m/add-lead", "/m/add-lead-address"}

var mobileLangs = []string{"en", "fr", "es", "de", "pt", "it", "cs"}

func TestMobileRedirects(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		for _, c := range []struct {
			name string
			c    *apptest.Client
		}{{"anonymous", e.Client()}, {"signed in", e.Browser(f.Admin.Email)}} {
			for _, path := range []string{"/m", "/m/", "/m/unknown", "/m/leads", "/m/a/b/c?x=1"} {
				r := c.c.Get(path)
				if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/m/leads-mobile" {
					t.Errorf("%s GET %s = %d → %q, want 303 → /m/leads-mobile", c.name, path, r.Status, r.Header.Get("Location"))
				}
			}
		}
	})
}

func TestMobileScreensNeedSignIn(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		c := e.Client()
		for _, path := range mobileScreens {
			r := c.Get(path)
			want := "/m/login?next=" + url.QueryEscape(path)
			if r.Status != http.StatusSeeOther || r.Header.Get("Location") != want {
				t.Errorf("GET %s = %d → %q, want 303 → %q", path, r.Status, r.Header.Get("Location"), want)
			}
		}
		// The JSON calls the islands make answer 401 in the envelope, never a redirect.
		r := c.Get("/v1/api/auth/me", "Accept", "application/json")
		if r.Status != http.StatusUnauthorized || r.Env().Status != http.StatusUnauthorized {
			t.Errorf("anonymous /auth/me = %d %s", r.Status, r.Body)
		}
	})
}

func TestMobileLogin(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.Client()

		page := c.Get("/m/login?next=%2Fm%2Fadd-lead")
		if page.Status != http.StatusOK {
			t.Fatalf("GET /m/login = %d", page.Status)
		}
		for _, want := range []string{`action="/m/login"`, `name="next" value="/m/add-lead"`, `name="viewport"`, `id="email"`, `id="password"`} {
			if !strings.Contains(page.Body, want) {
				t.Errorf("sign-in page lacks %s", want)
			}
		}
		assertStrictPage(t, page.Body)

		bad := c.Form("/m/login", url.Values{"email": {f.Admin.Email}, "password": {"wrong"}, "next": {"/m/add-lead"}})
		if bad.Status != http.StatusUnauthorized || !strings.Contains(bad.Body, `data-testid="login-error"`) ||
			!strings.Contains(bad.Body, `value="/m/add-lead"`) {
			t.Fatalf("wrong password: %d, want 401 with the error and next kept", bad.Status)
		}

		ok := c.Form("/m/login", url.Values{"email": {f.Admin.Email}, "password": {apptest.Password}, "next": {"/m/add-lead"}})
		if ok.Status != http.StatusSeeOther || ok.Header.Get("Location") != "/m/add-lead" {
			t.Fatalf("sign-in = %d → %q, want 303 → /m/add-lead", ok.Status, ok.Header.Get("Location"))
		}
		// A mobile sign-in lasts: the cookie outlives the admin session's 12 hours by far.
		var exp time.Time
		for _, ck := range (&http.Response{Header: ok.Header}).Cookies() {
			if ck.Name == "crm_session" {
				exp = ck.Expires
			}
		}
		if time.Until(exp) < 29*24*time.Hour {
			t.Errorf("mobile session cookie expires %v, want about 30 days", exp)
		}
		if r := c.Get("/m/add-lead"); r.Status != http.StatusOK {
			t.Errorf("after sign-in GET /m/add-lead = %d", r.Status)
		}
		// Signed in already: the sign-in page sends the user on.
		if r := c.Get("/m/login?next=%2Fm%2Fadd-lead-address"); r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/m/add-lead-address" {
			t.Errorf("signed-in GET /m/login = %d → %q", r.Status, r.Header.Get("Location"))
		}

		// next never leaves the site.
		c2 := e.Client()
		r := c2.Form("/m/login", url.Values{"email": {f.Admin.Email}, "password": {apptest.Password}, "next": {"//evil.example/x"}})
		if r.Header.Get("Location") != "/m/leads-mobile" {
			t.Errorf("next=//evil → %q, want /m/leads-mobile", r.Header.Get("Location"))
		}
	})
}

// assertStrictPage checks a page keeps to the CSP: every script external (a JSON data
// block is data, not a script), no inline styles.
func assertStrictPage(t *testing.T, body string) {
	t.Helper()
	for _, m := range regexp.MustCompile(`<script[^>]*>`).FindAllString(body, -1) {
		if !strings.Contains(m, ` src="/static/build/`) && !regexp.MustCompile(`^<script id="[a-z-]+" type="application/json">$`).MatchString(m) {
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
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.Browser(f.Admin.Email)
		propsRE := regexp.MustCompile(`data-island="mobile-app" data-props="([^"]*)"`)
		for _, path := range mobileScreens {
			r := c.Get(path)
			if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("GET %s = %d %s", path, r.Status, r.Header.Get("Content-Type"))
			}
			assertStrictPage(t, r.Body)
			if !strings.Contains(r.Header.Get("Content-Security-Policy"), "script-src 'self'") {
				t.Errorf("%s: no strict CSP", path)
			}
			m := propsRE.FindStringSubmatch(r.Body)
			if m == nil {
				t.Fatalf("%s: no mobile island mount point", path)
			}
			var p mobileProps
			apptest.MustJSON(t, html.UnescapeString(m[1]), &p)
			if p.Lang != "en" || p.Locale != "en-GB" || p.ConfigURL != "/v1/api/config.json" || p.SWURL != "/m/sw.js" || p.Scope != "/m/" ||
				!strings.HasPrefix(p.LocalesURL, "/locales/mobile/en.json?v=") {
				t.Errorf("%s props = %+v", path, p)
			}
			for _, want := range []string{`<html lang="en">`, `<div id="toasts"`, `href="/static/build/mobilecss-`,
				`<link rel="preload" as="script" href="/static/build/mobile-`, `src="/static/build/mobileboot-`, `data-bundle="/static/build/mobile-`} {
				if !strings.Contains(r.Body, want) {
					t.Errorf("%s lacks %s", path, want)
				}
			}
			if got := c.Get(p.LocalesURL); got.Status != http.StatusOK {
				t.Errorf("the page's message file %s = %d", p.LocalesURL, got.Status)
			}
		}
	})
}

func TestMobileLanguageFollowsTheUser(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		c := e.Browser(f.Admin.Email)
		if r := c.Form("/language", url.Values{"locale": {"de_DE"}, "back": {"/m/leads-mobile"}}); r.Status != http.StatusSeeOther {
			t.Fatalf("set language: %d", r.Status)
		}
		r := c.Get("/m/leads-mobile")
		if !strings.Contains(r.Body, `<html lang="de">`) || !strings.Contains(r.Body, "/locales/mobile/de.json?v=") {
			t.Errorf("German user gets another language: %.400s", r.Body)
		}
		// en_AU has no mobile file of its own: English.
		c.Form("/language", url.Values{"locale": {"en_AU"}, "back": {"/m/leads-mobile"}})
		if r := c.Get("/m/add-lead"); !strings.Contains(r.Body, "/locales/mobile/en.json?v=") {
			t.Error("en_AU user does not get the English file")
		}
	})
}

// Spec §9: the mobile app's default language is English. A new tenant's admin default is
// French (store.DefaultLocale), but its users' mobile app opens in English until they
// choose a language; then it follows their choice. Signed out, the language picked on
// the sign-in page counts as a choice.
func TestMobileDefaultsToEnglishNotTheTenantDefault(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		tn, admin, err := e.DB.CreateTenant(context.Background(), store.NewTenant{Name: "Lyon",
			AdminEmail: "lyon-admin@example.test", AdminPassword: apptest.Password})
		if err != nil {
			t.Fatal(err)
		}
		if tn.DefaultLocale != "fr_FR" || admin.Locale != "" {
			t.Fatalf("new tenant %q, admin %q: want fr_FR and no choice", tn.DefaultLocale, admin.Locale)
		}
		c := e.Browser(admin.Email)
		if r := c.Get("/home"); !strings.Contains(r.Body, `<html lang="fr-FR">`) {
			t.Fatalf("the admin pages follow the tenant (French): %.200s", r.Body)
		}
		r := c.Get("/m/leads-mobile")
		if !strings.Contains(r.Body, `<html lang="en">`) || !strings.Contains(r.Body, "/locales/mobile/en.json?v=") {
			t.Errorf("mobile app of a French tenant's user without a choice: %.400s", r.Body)
		}
		if cfg := c.Get("/v1/api/config.json").Env(); cfg.Data["User"].(map[string]any)["language"] != "en" {
			t.Errorf("config.json language = %v, want en", cfg.Data["User"])
		}
		c.Form("/language", url.Values{"locale": {"es_ES"}, "back": {"/m/leads-mobile"}})
		if r := c.Get("/m/add-lead"); !strings.Contains(r.Body, `<html lang="es">`) {
			t.Errorf("after choosing Spanish: %.300s", r.Body)
		}

		anon := e.Client()
		if r := anon.Get("/m/login", "Accept-Language", "fr-FR"); !strings.Contains(r.Body, `<html lang="en">`) {
			t.Errorf("sign-in page without a choice: %.300s", r.Body)
		}
		anon.Form("/language", url.Values{"locale": {"it_IT"}, "back": {"/m/login"}})
		if r := anon.Get("/m/login"); !strings.Contains(r.Body, `<html lang="it">`) {
			t.Errorf("sign-in page after choosing Italian: %.300s", r.Body)
		}
	})
}

// The mobile app is a lead manager: its screens need the leads view permission, like the
// lead calls it makes.
func TestMobileScreensNeedLeadsView(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.Tenant("Acme")
		e.User(f, "clients@example.test", map[auth.Feature]auth.Grant{auth.FeatureClients: {View: auth.ScopeAll, Export: auth.ScopeAll}})
		e.User(f, "leads@example.test", map[auth.Feature]auth.Grant{auth.FeatureLeads: {View: auth.ScopeOwn, Export: auth.ScopeOwn}})
		no, yes := e.Browser("clients@example.test"), e.Browser("leads@example.test")
		for _, path := range mobileScreens {
			if r := no.Get(path); r.Status != http.StatusForbidden {
				t.Errorf("GET %s without leads view = %d, want 403", path, r.Status)
			}
			if r := yes.Get(path); r.Status != http.StatusOK {
				t.Errorf("GET %s with leads view = %d", path, r.Status)
			}
		}
		if r := no.Get("/v1/api/lead/list-customer-lead?page=1&limit=20"); r.Status != http.StatusForbidden {
			t.Errorf("lead list without leads view = %d", r.Status)
		}
	})
}

func TestMobileServiceWorker(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		r := e.Client().Get("/m/sw.js")
		if r.Status != http.StatusOK {
			t.Fatalf("GET /m/sw.js = %d", r.Status)
		}
		for h, want := range map[string]string{"Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache",
			"Service-Worker-Allowed": "/m/"} {
			if got := r.Header.Get(h); got != want {
				t.Errorf("%s = %q, want %q", h, got, want)
			}
		}
		first, _, _ := strings.Cut(r.Body, "\n")
		list, ok := strings.CutPrefix(first, "self.CRM_PRECACHE=")
		if !ok {
			t.Fatalf("worker does not start with its precache list: %.200s", r.Body)
		}
		var urls []string
		apptest.MustJSON(t, strings.TrimSuffix(list, ";"), &urls)
		for _, want := range append(slices.Clone(mobileScreens), "/v1/api/config.json") {
			if !slices.Contains(urls, want) {
				t.Errorf("precache lacks %s: %v", want, urls)
			}
		}
		var js, boot, css, loc bool
		for _, u := range urls {
			js = js || strings.HasPrefix(u, "/static/build/mobile-") && strings.HasSuffix(u, ".js")
			boot = boot || strings.HasPrefix(u, "/static/build/mobileboot-")
			css = css || strings.HasPrefix(u, "/static/build/mobilecss-")
			loc = loc || strings.HasPrefix(u, "/locales/mobile/en.json?v=")
			if strings.HasPrefix(u, "/v1/api/lead/") {
				t.Errorf("lead calls must not be precached: %s", u)
			}
		}
		if !js || !boot || !css || !loc {
			t.Errorf("precache lacks the bundle, its starter, the stylesheet or the messages: %v", urls)
		}
		if !strings.Contains(r.Body, "addEventListener(\"fetch\"") && !strings.Contains(r.Body, "addEventListener('fetch'") {
			t.Error("worker has no fetch handler")
		}
		// Every precached file is really served.
		c := e.Browser(e.Tenant("Acme").Admin.Email)
		for _, u := range urls {
			if got := c.Get(u); got.Status != http.StatusOK {
				t.Errorf("precached %s = %d", u, got.Status)
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
	files, err := filepath.Glob("../../islands/mobile/*.ts*")
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
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		c := e.Client()
		var version string
		for _, lang := range mobileLangs {
			r := c.Get("/locales/mobile/" + lang + ".json")
			if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
				t.Fatalf("%s.json = %d %s", lang, r.Status, r.Header.Get("Content-Type"))
			}
			var m map[string]string
			apptest.MustJSON(t, r.Body, &m)
			if len(m) == 0 {
				t.Errorf("%s.json is empty", lang)
			}
			if r.Header.Get("Cache-Control") != "no-cache" {
				t.Errorf("%s.json without v: Cache-Control %q, want no-cache", lang, r.Header.Get("Cache-Control"))
			}
			version = strings.Trim(r.Header.Get("ETag"), `"`)
		}
		// With the current version the file may be kept for good.
		r := c.Get("/locales/mobile/fr.json?v=" + version)
		if r.Status != http.StatusOK || !strings.Contains(r.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("versioned file: %d %q", r.Status, r.Header.Get("Cache-Control"))
		}
		if r := c.Get("/locales/mobile/fr.json", "If-None-Match", `"`+version+`"`); r.Status != http.StatusNotModified {
			t.Errorf("revalidation = %d, want 304", r.Status)
		}
		for _, bad := range []string{"xx.json", "en_US.json", "en.toml", "EN.json", "en", "..%2Fen_US.toml"} {
			if r := c.Get("/locales/mobile/" + bad); r.Status != http.StatusNotFound {
				t.Errorf("%s = %d, want 404", bad, r.Status)
			}
		}
	})
}

func TestMobileConfig(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		var cfg struct {
			Data map[string]json.RawMessage `json:"data"`
		}
		r := e.Client().Get("/v1/api/config.json")
		if r.Status != http.StatusOK || r.Env().Status != http.StatusOK {
			t.Fatalf("anonymous config = %d %s", r.Status, r.Body)
		}
		if cc := r.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "private") {
			t.Errorf("config Cache-Control = %q, want private (it names the caller's tenant)", cc)
		}
		apptest.MustJSON(t, r.Body, &cfg)
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
		apptest.MustJSON(t, string(raw), &v)
		if v.CentralSystemServer.BaseURL != e.Srv.URL || v.CentralSystemServer.APIPrefix != "/v1/api" {
			t.Errorf("server section = %+v, want base %s", v.CentralSystemServer, e.Srv.URL)
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

		f := e.Tenant("Acme")
		r = e.Browser(f.Admin.Email).Get("/v1/api/config.json")
		apptest.MustJSON(t, r.Body, &cfg)
		raw, _ = json.Marshal(cfg.Data)
		apptest.MustJSON(t, string(raw), &v)
		if v.Tenant.ID != f.Tenant.ID || v.Tenant.Name != "Acme" {
			t.Errorf("signed-in tenant section = %+v", v.Tenant)
		}
	})
}
