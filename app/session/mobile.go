package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"

	"crm/app/i18n"
	"crm/app/leads"
	"crm/app/web"
	"crm/locales"
	authview "crm/views/auth"
	mobileview "crm/views/mobile"
)

// The mobile lead manager: a server-rendered shell for three client-side screens, its
// sign-in page, the service worker, the per-language message files and the static
// configuration the islands read at start.

// Mobile screens, each served the same shell; the island picks the screen from the path.
const (
	mobileHome           = "/m/leads-mobile"
	mobileAddLead        = "/m/add-lead"
	mobileAddLeadAddress = "/m/add-lead-address"
	mobileLogin          = "/m/login"
)

// MobileScreens are the paths of the mobile lead manager's screens.
var MobileScreens = []string{mobileHome, mobileAddLead, mobileAddLeadAddress}

// Mobile languages (spec section 9) and their defaults.
var mobileLanguages = []string{"en", "fr", "es", "de", "pt", "it", "cs"}

const (
	mobileDefaultLanguage = "en"
	mobileLocale          = "en-GB"
	mobilePageSize        = 20
	mobileToastMS         = 3000
	mobileMaxFiles        = 5
	mobileMaxFileKB       = 2048
	apiPrefix             = "/v1/api"
)

// mobileLanguage is the mobile app's language: the one the user chose (their saved
// choice, or before sign-in the one picked on the sign-in page), else English (spec §9:
// the mobile default is en). The tenant's default locale is the admin's, not the app's.
func mobileLanguage(r *http.Request) string {
	var choices []string
	if p := web.Caller(r); p != nil {
		choices = append(choices, p.User.Locale)
	}
	if c, err := r.Cookie(web.LocaleCookie); err == nil {
		choices = append(choices, c.Value)
	}
	for _, c := range choices {
		if !i18n.Supported(c) {
			continue
		}
		if lang, _, _ := strings.Cut(c, "_"); slices.Contains(mobileLanguages, lang) {
			return lang
		}
	}
	return mobileDefaultLanguage
}

// inMobileLanguage makes the server-rendered strings of a mobile page (title, sign-in
// form) speak the app's language rather than the admin's.
func (h *Handler) inMobileLanguage(r *http.Request, lang string) *http.Request {
	if cur, _, _ := strings.Cut(i18n.Locale(r.Context()), "_"); cur == lang {
		return r
	}
	for _, loc := range i18n.Locales {
		if strings.HasPrefix(loc, lang+"_") {
			return r.WithContext(i18n.With(r.Context(), h.web.I18n.Localizer(loc)))
		}
	}
	return r
}

// mobileLocalesVersion is a digest of every mobile message file: the `v` query that lets
// browsers keep a message file until it changes.
var mobileLocalesVersion = sync.OnceValue(func() string {
	h := sha256.New()
	for _, lang := range mobileLanguages {
		b, _ := fs.ReadFile(locales.FS, "mobile/"+lang+".json")
		h.Write([]byte(lang))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
})

func mobileLocaleURL(lang string) string {
	return "/locales/mobile/" + lang + ".json?v=" + mobileLocalesVersion()
}

// mobileOfflineCopy is the query (?offline=1) of the shell the service worker keeps for
// use without a network: the same page with no lead in it (see islands/mobile/sw.ts).
const mobileOfflineCopy = "offline"

// MobileScreen renders the shell of the lead list and of both add-lead steps. The list's
// shell carries the list screen itself, rendered here with the caller's first page, so the
// leads paint before the script has loaded; the offline copy and the add-lead steps are the
// bare shell the island fills in.
func (h *Handler) MobileScreen(w http.ResponseWriter, r *http.Request) {
	lang := mobileLanguage(r)
	r = h.inMobileLanguage(r, lang)
	page := h.mobileShell(r, lang)
	props := mobileview.Props{
		Lang:       lang,
		Locale:     mobileLocale,
		LocalesURL: mobileLocaleURL(lang),
		ConfigURL:  apiPrefix + "/config.json",
		SWURL:      "/m/sw.js",
		Scope:      "/m/",
	}
	// The calls the island makes first, fetched with the bundle rather than after it.
	page.Preload = []string{mobileLocaleURL(lang), apiPrefix + "/config.json"}
	if r.URL.Path == mobileHome && !r.URL.Query().Has(mobileOfflineCopy) {
		list, err := h.mobileList(r, lang)
		if err != nil {
			h.web.Fail(w, r, err)
			return
		}
		page.List = list
		props.FirstPage = mobileview.FirstPageID
		// The messages are in the page with the leads: only the configuration is fetched.
		page.Preload = []string{apiPrefix + "/config.json"}
	}
	b, err := json.Marshal(props)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	var buf bytes.Buffer
	if err := mobileview.Shell(page, string(b)).Render(r.Context(), &buf); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	if page.List != nil {
		// The caller's leads: never kept by a shared cache.
		hd.Set("Cache-Control", "private, no-cache")
	} else {
		// The bare shell changes only with a build or the language: the service worker's
		// refresh of its copy is usually a 304.
		sum := sha256.Sum256(buf.Bytes())
		etag := `W/"` + hex.EncodeToString(sum[:12]) + `"`
		hd.Set("Cache-Control", "no-cache")
		hd.Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	w.WriteHeader(http.StatusOK)
	_, _ = buf.WriteTo(w)
}

// firstPageData is the list's data block: the first page as the list call answers it and
// the messages of the app's language, so the island's first render shows the same screen.
type firstPageData struct {
	Messages json.RawMessage `json:"messages"`
	List     leads.ListData  `json:"list"`
}

// mobileList is the lead list screen's first render: the caller's first page of leads,
// read as the list call reads it (their scope, page 1, no search or filter, default sort),
// and the screen's strings in the app's language.
func (h *Handler) mobileList(r *http.Request, lang string) (*mobileview.List, error) {
	data, err := leads.FirstPage(r, mobilePageSize)
	if err != nil {
		return nil, err
	}
	msgs := mobileMessages()[lang]
	l := &mobileview.List{Msg: msgs.byKey, Won: data.Summary.Won, Lost: data.Summary.Lost,
		Cards: make([]mobileview.Card, 0, len(data.Result)),
		Data:  firstPageData{Messages: msgs.raw, List: data}}
	for _, v := range data.Result {
		c := mobileview.Card{ID: v.ID, Status: v.LeadStatusName, Company: v.CompanyName, Customer: v.CustomerName,
			Phone: strings.Join(slices.DeleteFunc([]string{v.CompanyDialCode, v.CompanyPhoneNumber}, func(s string) bool { return s == "" }), " "),
			Email: v.CompanyEmail,
			Stage: v.LeadStageName, Source: v.LeadSourceName, Creator: v.CreatedUserName}
		if v.ClientID != nil {
			c.ClientID = *v.ClientID
		}
		l.Cards = append(l.Cards, c)
	}
	return l, nil
}

// mobileFile is one mobile message file: its messages and its compact JSON.
type mobileFile struct {
	byKey mobileview.Messages
	raw   json.RawMessage
}

// mobileMessages are the mobile message files, read once: the server renders the list
// screen with the same strings the island shows.
var mobileMessages = sync.OnceValue(func() map[string]mobileFile {
	out := map[string]mobileFile{}
	for _, lang := range mobileLanguages {
		f := mobileFile{byKey: mobileview.Messages{}}
		if b, err := fs.ReadFile(locales.FS, "mobile/"+lang+".json"); err == nil && json.Unmarshal(b, &f.byKey) == nil {
			var c bytes.Buffer
			if json.Compact(&c, b) == nil {
				f.raw = c.Bytes()
			}
		}
		if f.raw == nil {
			f.raw = json.RawMessage("{}") // the island then shows keys, as it does without its file
		}
		out[lang] = f
	}
	return out
})

func (h *Handler) mobileShell(r *http.Request, lang string) mobileview.Page {
	return mobileview.Page{Lang: lang, Title: i18n.T(r.Context(), "mobile.title"),
		CSS: h.web.Assets.URL("mobilecss.css"), JS: h.web.Assets.URL("mobile.js"), Boot: h.web.Assets.URL("mobileboot.js")}
}

// MobileRedirect sends /m, /m/ and any unknown /m/… path to the lead list.
func (h *Handler) MobileRedirect(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, mobileHome, http.StatusSeeOther)
}

func (h *Handler) MobileLoginPage(w http.ResponseWriter, r *http.Request) {
	next := web.SafeNext(r.URL.Query().Get("next"), mobileHome)
	if web.Caller(r) != nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	h.mobileLoginForm(w, r, http.StatusOK, authview.LoginForm{Next: next, Action: mobileLogin})
}

func (h *Handler) mobileLoginForm(w http.ResponseWriter, r *http.Request, status int, f authview.LoginForm) {
	lang := mobileLanguage(r)
	r = h.inMobileLanguage(r, lang)
	h.web.Render(w, r, status, mobileview.Login(h.mobileShell(r, lang), authview.Login(f)))
}

// MobileLoginSubmit signs in with a long-lived session and goes back to `next`.
func (h *Handler) MobileLoginSubmit(w http.ResponseWriter, r *http.Request) {
	h.formSignIn(w, r, authview.LoginForm{Action: mobileLogin, Next: mobileHome}, true, func(status int, f authview.LoginForm) {
		h.mobileLoginForm(w, r, status, f)
	})
}

// MobileServiceWorker serves the bundled service worker at its scope, preceded by
// the list of files it keeps for offline use. The list names the content-hashed bundles,
// so every new build changes the worker and the browser installs the new one.
func (h *Handler) MobileServiceWorker(w http.ResponseWriter, r *http.Request) {
	body, err := h.web.Assets.Open("sw.js")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	precache := append(slices.Clone(MobileScreens), h.web.Assets.URL("mobile.js"), h.web.Assets.URL("mobileboot.js"), h.web.Assets.URL("mobilecss.css"),
		apiPrefix+"/config.json", mobileLocaleURL(mobileLanguage(r)))
	list, err := json.Marshal(precache)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/javascript; charset=utf-8")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("Service-Worker-Allowed", "/m/")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte("self.CRM_PRECACHE=" + string(list) + ";\n"))
	_, _ = w.Write(body)
}

// MobileLocale serves locales/mobile/{lang}.json. With the current `v` it may be
// kept for a year; otherwise the browser revalidates.
func (h *Handler) MobileLocale(w http.ResponseWriter, r *http.Request) {
	lang, ok := strings.CutSuffix(chi.URLParam(r, "file"), ".json")
	if !ok || !slices.Contains(mobileLanguages, lang) {
		h.web.Fail(w, r, web.ErrNotFound)
		return
	}
	b, err := fs.ReadFile(locales.FS, "mobile/"+lang+".json")
	if err != nil {
		h.web.Fail(w, r, web.ErrNotFound)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/json; charset=utf-8")
	if r.URL.Query().Get("v") == mobileLocalesVersion() {
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		hd.Set("Cache-Control", "no-cache")
	}
	hd.Set("ETag", `"`+mobileLocalesVersion()+`"`)
	if r.Header.Get("If-None-Match") == hd.Get("ETag") {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	_, _ = w.Write(b)
}

// mobileConfig is the static configuration file of the spec (section 3), with this
// server's values.
type mobileConfig struct {
	CentralSystemServer configServer `json:"CentralSystemServer"`
	Authorization       configAuth   `json:"Authorization"`
	Advanced            configAdv    `json:"Advanced"`
	User                configUser   `json:"User"`
	Company             configComp   `json:"Company"`
	Tenant              configTenant `json:"Tenant"`
	Asset               configAsset  `json:"Asset"`
	Site                configSite   `json:"Site"`
	SiteArea            configArea   `json:"SiteArea"`
}

type configServer struct {
	Protocol  string `json:"protocol"`
	Host      string `json:"host"`
	Port      int    `json:"port"`
	BaseURL   string `json:"baseURL"`
	APIPrefix string `json:"apiPrefix"`
	APIURL    string `json:"apiURL"`
}

type configAuth struct {
	Header        string `json:"header"`
	Scheme        string `json:"scheme"`
	SkipHeader    string `json:"skipHeader"`
	IdempotencyHd string `json:"idempotencyHeader"`
	LoginURL      string `json:"loginURL"`
	MobileLogin   string `json:"mobileLoginURL"`
	SessionCookie string `json:"sessionCookie"`
}

type configAdv struct {
	PageSize          int    `json:"pageSize"`
	FirstPage         int    `json:"firstPage"`
	ToastTimeoutMS    int    `json:"toastTimeoutMs"`
	ToastPosition     string `json:"toastPosition"`
	PreventDuplicates bool   `json:"preventDuplicateToasts"`
}

type configUser struct {
	Languages       []string `json:"languages"`
	DefaultLanguage string   `json:"defaultLanguage"`
	Language        string   `json:"language"`
	Locale          string   `json:"locale"`
	PhoneDigits     int      `json:"phoneDigits"`
	SignedIn        bool     `json:"signedIn"`
}

type configComp struct {
	Name string `json:"name"`
}

type configTenant struct {
	ID   int64  `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

type configAsset struct {
	MaxFiles     int      `json:"maxFiles"`
	MaxFileKB    int      `json:"maxFileSizeKB"`
	ImageTypes   []string `json:"imageTypes"`
	StaticPrefix string   `json:"staticPrefix"`
}

type configSite struct {
	Name       string `json:"name"`
	Locale     string `json:"locale"`
	DateFormat string `json:"dateFormat"`
}

type configArea struct {
	Base           string `json:"base"`
	LeadList       string `json:"leadList"`
	AddLead        string `json:"addLead"`
	AddLeadAddress string `json:"addLeadAddress"`
	Login          string `json:"login"`
	LocalesURL     string `json:"localesURL"`
	LocalesVersion string `json:"localesVersion"`
	ServiceWorker  string `json:"serviceWorker"`
}

// MobileConfig answers GET /v1/api/config.json. It needs no sign-in; the tenant
// section is filled in for a signed-in caller.
func (h *Handler) MobileConfig(w http.ResponseWriter, r *http.Request) {
	proto := "http"
	if r.TLS != nil {
		proto = "https"
	} else if h.trustProxy && r.Header.Get("X-Forwarded-Proto") == "https" {
		proto = "https"
	}
	host := r.Host
	port := 80
	if proto == "https" {
		port = 443
	}
	if i := strings.LastIndex(host, ":"); i >= 0 && !strings.HasSuffix(host, "]") {
		if p, err := strconv.Atoi(host[i+1:]); err == nil {
			port = p
		}
	}
	base := proto + "://" + host
	ctx := r.Context()
	cfg := mobileConfig{
		CentralSystemServer: configServer{Protocol: proto, Host: r.Host, Port: port, BaseURL: base,
			APIPrefix: apiPrefix, APIURL: base + apiPrefix},
		Authorization: configAuth{Header: "Authorization", Scheme: "Bearer", SkipHeader: "skip",
			IdempotencyHd: "Idempotency-Key", LoginURL: apiPrefix + "/auth/login", MobileLogin: mobileLogin,
			SessionCookie: "crm_session"},
		Advanced: configAdv{PageSize: mobilePageSize, FirstPage: 1, ToastTimeoutMS: mobileToastMS,
			ToastPosition: "top-right", PreventDuplicates: true},
		User: configUser{Languages: mobileLanguages, DefaultLanguage: mobileDefaultLanguage,
			Language: mobileLanguage(r), Locale: mobileLocale, PhoneDigits: 10},
		Company: configComp{Name: i18n.T(ctx, "app.name")},
		Asset: configAsset{MaxFiles: mobileMaxFiles, MaxFileKB: mobileMaxFileKB,
			ImageTypes: []string{"image/png", "image/jpeg", "image/gif", "image/webp"}, StaticPrefix: "/static/build/"},
		Site: configSite{Name: i18n.T(ctx, "app.name"), Locale: mobileLocale, DateFormat: "dd/MM/yyyy"},
		SiteArea: configArea{Base: "/m/", LeadList: mobileHome, AddLead: mobileAddLead,
			AddLeadAddress: mobileAddLeadAddress, Login: mobileLogin, LocalesURL: "/locales/mobile/",
			LocalesVersion: mobileLocalesVersion(), ServiceWorker: "/m/sw.js"},
	}
	if p := web.CallerFrom(ctx); p != nil {
		cfg.User.SignedIn = true
		cfg.Tenant = configTenant{ID: p.Tenant.ID, Name: p.Tenant.Name}
		cfg.Company.Name = p.Tenant.Name
	}
	// Static for minutes at a time: the browser (and the service worker through it) may reuse it.
	w.Header().Set("Cache-Control", "private, max-age=300")
	h.web.OK(w, r, http.StatusOK, "ok", cfg)
}
