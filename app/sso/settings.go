package sso

import (
	"errors"
	"net/http"
	"strconv"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	ssoview "crm/views/sso"
)

// model is the settings page as stored.
func (h *Handler) model(r *http.Request) (*ssoview.Settings, error) {
	p := web.Caller(r)
	m := &ssoview.Settings{NoKey: h.sealer == nil, CanUpdate: p.Allows(auth.FeatureSettings, auth.Update), Errors: map[string]string{}}
	c, err := p.Scope().SSO(r.Context())
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return nil, err
	default:
		m.Provider, m.Issuer, m.ClientID, m.HasSecret, m.OnlySSO = c.ProviderName, c.Issuer, c.ClientID, c.ClientSecret != "", c.OnlySSO
		m.Link = "/auth/google?tenant=" + strconv.FormatInt(p.Tenant.ID, 10)
	}
	return m, nil
}

// SettingsPage is GET /settings/sso.
func (h *Handler) SettingsPage(w http.ResponseWriter, r *http.Request) {
	m, err := h.model(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Page(w, r, http.StatusOK, web.T(r, "sso.title"), ssoview.SettingsPage(*m))
}

// SettingsSubmit is POST /settings/sso: the secret is sealed before it reaches the store;
// left blank it stays as it was. Without the server's key the page says SSO needs it (409).
func (h *Handler) SettingsSubmit(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	m, err := h.model(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if m.NoKey {
		h.web.Page(w, r, http.StatusConflict, web.T(r, "sso.title"), ssoview.SettingsPage(*m))
		return
	}
	sealed, _ := h.seal(r.PostFormValue("client_secret"))
	c := store.TenantSSO{ProviderName: r.PostFormValue("provider_name"), Issuer: r.PostFormValue("issuer"),
		ClientID: r.PostFormValue("client_id"), ClientSecret: sealed, OnlySSO: r.PostFormValue("only_sso") == "on"}
	err = web.Scope(r).SaveSSO(r.Context(), c)
	var ve validate.Errors
	if errors.As(err, &ve) {
		m.Provider, m.Issuer, m.ClientID, m.OnlySSO = c.ProviderName, c.Issuer, c.ClientID, c.OnlySSO
		for f, key := range ve {
			m.Errors[f] = key
		}
		h.web.Page(w, r, http.StatusUnprocessableEntity, web.T(r, "sso.title"), ssoview.SettingsPage(*m))
		return
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "sso.saved")
	http.Redirect(w, r, "/settings/sso", http.StatusSeeOther)
}
