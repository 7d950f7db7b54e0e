package profile

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"crm/app/i18n"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	"crm/views/components"
	profileview "crm/views/profile"
)

// page is the profile page's view model for the caller, with what edit changes (a form
// shown again with its errors, a token's secret shown once).
func (h *Handler) page(r *http.Request, edit func(*profileview.Page)) (*profileview.Page, error) {
	ctx := r.Context()
	p := web.Caller(r)
	s := p.Scope()
	u, err := s.UserView(ctx, p.User.ID)
	if err != nil {
		return nil, err
	}
	loc := location(u.TimeZone)
	m := &profileview.Page{Email: u.Email, RoleName: u.RoleName,
		Details: profileview.Details{Name: u.Name, Phone: u.Phone, Locale: u.Locale, TimeZone: u.TimeZone}}
	m.Tokens.Days = "90"
	toks, err := s.APITokens(ctx)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	for _, t := range toks {
		m.Tokens.Rows = append(m.Tokens.Rows, profileview.Token{ID: t.ID, Name: t.Name, Created: profileview.When(&t.CreatedAt, loc),
			LastUsed: profileview.When(t.LastUsedAt, loc), Expires: profileview.When(t.ExpiresAt, loc),
			Expired: t.ExpiresAt != nil && t.ExpiresAt.Before(now)})
	}
	sessions, err := s.Sessions(ctx, h.web.Keep(r))
	if err != nil {
		return nil, err
	}
	for _, ss := range sessions {
		m.Sessions = append(m.Sessions, profileview.Session{API: ss.Kind == "api", Created: profileview.When(&ss.CreatedAt, loc),
			LastUsed: profileview.When(ss.LastSeen, loc), Device: device(r, ss.UserAgent), IP: ss.IP, Current: ss.Current})
	}
	m.TwoFactor = profileview.TwoFactor{Enabled: u.TwoFactor(), Since: profileview.When(u.TOTPEnabledAt, loc),
		Required: p.User.RoleRequires2FA}
	if u.TwoFactor() {
		if m.TwoFactor.CodesLeft, err = s.RecoveryCodesLeft(ctx); err != nil {
			return nil, err
		}
	}
	if edit != nil {
		edit(m)
	}
	h.options(r, m)
	return m, nil
}

// options fills the page's choices, marking the ones the forms hold.
func (h *Handler) options(r *http.Request, m *profileview.Page) {
	for _, l := range i18n.Locales {
		m.Details.Locales = append(m.Details.Locales, components.Option{Value: l, Label: web.T(r, "language."+l), Selected: l == m.Details.Locale})
	}
	zones := TimeZones
	if m.Details.TimeZone != "" && !contains(zones, m.Details.TimeZone) {
		zones = append([]string{m.Details.TimeZone}, zones...) // a zone set through the API stays
	}
	for _, z := range zones {
		m.Details.TimeZones = append(m.Details.TimeZones, components.Option{Value: z, Label: strings.ReplaceAll(z, "_", " "), Selected: z == m.Details.TimeZone})
	}
	for _, d := range store.TokenLifetimes {
		label := web.T(r, "profile.days", "Count", d)
		if d == 0 {
			label = web.T(r, "profile.noExpiry")
		}
		v := strconv.Itoa(d)
		m.Tokens.Lifetimes = append(m.Tokens.Lifetimes, components.Option{Value: v, Label: label, Selected: v == m.Tokens.Days})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// device names a browser session's browser and system from its user agent.
func device(r *http.Request, ua string) string {
	browser := ""
	for _, b := range []struct{ token, name string }{{"Edg/", "Edge"}, {"OPR/", "Opera"}, {"Firefox/", "Firefox"},
		{"Chrome/", "Chrome"}, {"Safari/", "Safari"}} {
		if strings.Contains(ua, b.token) {
			browser = b.name
			break
		}
	}
	system := ""
	for _, o := range []struct{ token, name string }{{"Android", "Android"}, {"iPhone", "iOS"}, {"iPad", "iPadOS"},
		{"Windows", "Windows"}, {"Mac OS X", "macOS"}, {"CrOS", "ChromeOS"}, {"Linux", "Linux"}} {
		if strings.Contains(ua, o.token) {
			system = o.name
			break
		}
	}
	switch {
	case browser != "" && system != "":
		return web.T(r, "profile.browserOn", "Browser", browser, "System", system)
	case browser != "":
		return browser
	case system != "":
		return system
	}
	return web.T(r, "profile.unknownDevice")
}

// render shows the profile page (status: 200, or 422 for a form shown again).
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, edit func(*profileview.Page)) {
	m, err := h.page(r, edit)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Page(w, r, status, web.T(r, "profile.title"), profileview.ProfilePage(*m))
}

// ProfilePage is GET /profile.
func (h *Handler) ProfilePage(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, nil)
}

// fieldErrors are a validation failure's field keys, or nil for another error.
func fieldErrors(err error) map[string]string {
	var verrs validate.Errors
	if errors.As(err, &verrs) {
		return verrs
	}
	return nil
}

// ProfileSubmit is POST /profile: the user's name, phone, language and time zone.
func (h *Handler) ProfileSubmit(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	in := store.ProfileInput{Name: r.PostFormValue("name"), Phone: r.PostFormValue("phone"),
		Locale: r.PostFormValue("locale"), TimeZone: r.PostFormValue("time_zone")}
	_, err := web.Scope(r).UpdateProfile(r.Context(), in)
	if errs := fieldErrors(err); errs != nil {
		h.render(w, r, http.StatusUnprocessableEntity, func(m *profileview.Page) {
			m.Details.Name, m.Details.Phone, m.Details.Locale, m.Details.TimeZone = in.Name, in.Phone, in.Locale, in.TimeZone
			m.Details.Errors = errs
		})
		return
	} else if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	// The new language applies from this answer on.
	loc := h.web.I18n.Pick(r.Header.Get("Accept-Language"), in.Locale, web.Caller(r).Tenant.DefaultLocale)
	r = r.WithContext(i18n.With(r.Context(), h.web.I18n.Localizer(loc)))
	h.web.Flash(r, "profile.saved")
	http.Redirect(w, r, "/profile", http.StatusSeeOther)
}

// PasswordSubmit is POST /profile/password: the current password and a new one; the
// user's other sessions are signed out.
func (h *Handler) PasswordSubmit(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	n, err := web.Scope(r).ChangePassword(r.Context(), r.PostFormValue("current_password"), r.PostFormValue("password"), h.web.Keep(r))
	if errs := fieldErrors(err); errs != nil {
		h.render(w, r, http.StatusUnprocessableEntity, func(m *profileview.Page) { m.Password.Errors = errs })
		return
	} else if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "profile.passwordChanged", "Count", n)
	http.Redirect(w, r, "/profile", http.StatusSeeOther)
}

// TokenCreate is POST /profile/tokens: a named API token, its secret shown this once.
func (h *Handler) TokenCreate(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	name, days := r.PostFormValue("name"), r.PostFormValue("expires_in_days")
	n, convErr := strconv.Atoi(days)
	if convErr != nil {
		n = -1
	}
	t, err := web.Scope(r).CreateAPIToken(r.Context(), store.NewAPIToken{Name: name, Days: n})
	if errs := fieldErrors(err); errs != nil {
		h.render(w, r, http.StatusUnprocessableEntity, func(m *profileview.Page) {
			m.Tokens.Name, m.Tokens.Days, m.Tokens.Errors = name, days, errs
		})
		return
	} else if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusCreated, func(m *profileview.Page) { m.Tokens.NewName, m.Tokens.NewSecret = t.Name, t.Token })
}

// TokenRevokePage is GET /profile/tokens/{id}/revoke (the confirmation) and POST (the
// revocation): one of the user's named tokens; anyone else's is not found.
func (h *Handler) TokenRevokePage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	s := web.Scope(r)
	if r.Method == http.MethodPost {
		if err := s.RevokeAPIToken(r.Context(), id); err != nil {
			h.web.Fail(w, r, err)
			return
		}
		h.web.Flash(r, "profile.tokenRevoked")
		http.Redirect(w, r, "/profile", http.StatusSeeOther)
		return
	}
	t, err := s.APIToken(r.Context(), id)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	title := web.T(r, "profile.revokeTitle")
	h.web.Page(w, r, http.StatusOK, title, components.Confirm(components.ConfirmModel{Title: title,
		Message: web.T(r, "profile.revokeMessage", "Name", t.Name), Action: "/profile/tokens/" + strconv.FormatInt(id, 10) + "/revoke",
		Confirm: web.T(r, "profile.revoke"), CancelHref: "/profile", Cancel: web.T(r, "profile.cancel"), Danger: true}))
}

// SignOutEverywhere is POST /profile/sessions/sign-out: every other session of the user ends.
func (h *Handler) SignOutEverywhere(w http.ResponseWriter, r *http.Request) {
	n, err := web.Scope(r).SignOutEverywhere(r.Context(), h.web.Keep(r))
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "profile.signedOut", "Count", n)
	http.Redirect(w, r, "/profile", http.StatusSeeOther)
}
