package profile

import (
	"errors"
	"net/http"
	"regexp"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/web"
	profileview "crm/views/profile"
)

// sessEnrol keeps the secret being enrolled until its first code confirms it.
const sessEnrol = "totp_enrol"

// codeRE tells a code (six digits, or a recovery code) from a password, which the
// password rule keeps from looking like either (it needs an uppercase letter).
var codeRE = regexp.MustCompile(`^\s*([0-9]{3}\s?[0-9]{3}|[a-z0-9]{5}-?[a-z0-9]{5})\s*$`)

// codeOrPassword splits what the user typed into a code or a password.
func codeOrPassword(v string) (code, password string) {
	if codeRE.MatchString(v) {
		return v, ""
	}
	return "", v
}

// enrolModel is the enrolment page for the caller: the secret kept in the session (a new
// one the first time), its QR code and text.
func (h *Handler) enrolModel(r *http.Request) (*profileview.Enrol, error) {
	p := web.Caller(r)
	ctx := r.Context()
	url := h.web.Sessions.GetString(ctx, sessEnrol)
	if url == "" {
		k, err := auth.NewTOTPKey(p.Tenant.Name, p.User.Email)
		if err != nil {
			return nil, err
		}
		url = k.URL
		h.web.Sessions.Put(ctx, sessEnrol, url)
	}
	qr, err := auth.TOTPQRCode(url, 200)
	if err != nil {
		return nil, err
	}
	secret, err := auth.TOTPSecret(url)
	if err != nil {
		return nil, err
	}
	return &profileview.Enrol{QR: qr, Secret: secret, Required: p.User.MustEnrol()}, nil
}

// EnrolPage is GET /profile/two-factor: the QR code and secret to add to an
// authenticator app (a user already enrolled goes back to their profile).
func (h *Handler) EnrolPage(w http.ResponseWriter, r *http.Request) {
	if web.Caller(r).User.TwoFactor() {
		http.Redirect(w, r, "/profile", http.StatusSeeOther)
		return
	}
	m, err := h.enrolModel(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Page(w, r, http.StatusOK, web.T(r, "twoFactor.setUp"), profileview.EnrolPage(*m))
}

// EnrolSubmit is POST /profile/two-factor: the app's first code confirms the secret;
// the recovery codes are shown this once.
func (h *Handler) EnrolSubmit(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	ctx := r.Context()
	url := h.web.Sessions.GetString(ctx, sessEnrol)
	secret, err := auth.TOTPSecret(url)
	if url == "" || err != nil {
		http.Redirect(w, r, "/profile/two-factor", http.StatusSeeOther)
		return
	}
	codes, err := web.Scope(r).EnableTwoFactor(ctx, secret, r.PostFormValue("code"))
	if errors.Is(err, store.ErrWrongCode) {
		m, merr := h.enrolModel(r)
		if merr != nil {
			h.web.Fail(w, r, merr)
			return
		}
		m.Error = store.KeyWrongCode
		h.web.Page(w, r, http.StatusUnprocessableEntity, web.T(r, "twoFactor.setUp"), profileview.EnrolPage(*m))
		return
	} else if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Sessions.Remove(ctx, sessEnrol)
	title := web.T(r, "twoFactor.enabled")
	h.web.Page(w, r, http.StatusOK, title, profileview.EnrolPage(profileview.Enrol{Codes: codes, Title: title}))
}

// proofError is the profile's two-factor form error for a refused proof, or "".
func proofError(err error) string {
	if errors.Is(err, store.ErrWrongCode) {
		return store.KeyWrongCode
	}
	if errs := fieldErrors(err); errs != nil {
		return errs["password"]
	}
	return ""
}

// DisableSubmit is POST /profile/two-factor/disable: a code, a recovery code or the
// password turns two-factor sign-in off (not for a role that requires it).
func (h *Handler) DisableSubmit(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	code, password := codeOrPassword(r.PostFormValue("code"))
	err := web.Scope(r).DisableTwoFactor(r.Context(), code, password)
	if key := proofError(err); key != "" {
		h.render(w, r, http.StatusUnprocessableEntity, func(m *profileview.Page) { m.TwoFactor.Errors = map[string]string{"disable": key} })
		return
	} else if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "twoFactor.disabled")
	http.Redirect(w, r, "/profile", http.StatusSeeOther)
}

// RecoveryCodesSubmit is POST /profile/two-factor/recovery-codes: a code, a recovery code
// or the password replaces the recovery codes, shown this once.
func (h *Handler) RecoveryCodesSubmit(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	code, password := codeOrPassword(r.PostFormValue("code"))
	codes, err := web.Scope(r).NewRecoveryCodes(r.Context(), code, password)
	if key := proofError(err); key != "" {
		h.render(w, r, http.StatusUnprocessableEntity, func(m *profileview.Page) { m.TwoFactor.Errors = map[string]string{"codes": key} })
		return
	} else if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	title := web.T(r, "twoFactor.newCodes")
	h.web.Page(w, r, http.StatusOK, title, profileview.EnrolPage(profileview.Enrol{Codes: codes, Title: title}))
}
