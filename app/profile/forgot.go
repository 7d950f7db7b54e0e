package profile

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	profileview "crm/views/profile"
)

// ForgotPage is GET /forgot-password: the email of a forgotten password.
func (h *Handler) ForgotPage(w http.ResponseWriter, r *http.Request) {
	h.web.Bare(w, r, http.StatusOK, web.T(r, "forgot.title"), profileview.ForgotPage(profileview.Forgot{}))
}

// ForgotSubmit is POST /forgot-password. The answer is the same whether or not the email
// has an account, and comes at once: the lookup, the link and the mail are made after it,
// so neither its words nor its timing tell.
func (h *Handler) ForgotSubmit(w http.ResponseWriter, r *http.Request) {
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	email := strings.TrimSpace(r.PostFormValue("email"))
	if !validate.Email(email) {
		h.web.Bare(w, r, http.StatusUnprocessableEntity, web.T(r, "forgot.title"),
			profileview.ForgotPage(profileview.Forgot{Email: email, Error: web.T(r, "validation.invalidEmail")}))
		return
	}
	base := h.web.LinkBase(r)
	log := h.web.Logger(r)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), time.Minute)
	go func() {
		defer cancel()
		token, u, err := h.db.RequestPasswordReset(ctx, email)
		if err == nil && token != "" {
			err = h.mailer.SendLink(ctx, h.db.System(u.TenantID, u.ID), u.Email, store.LinkReset, base+"/reset-password/"+token)
		}
		if err != nil {
			log.Error("password reset link", "err", err)
		}
	}()
	h.web.Bare(w, r, http.StatusOK, web.T(r, "forgot.title"), profileview.ForgotPage(profileview.Forgot{Sent: true}))
}

// ResetPage is GET and POST /reset-password/{token}: a live link sets a new password
// (the spec's rule), is spent, and signs the user out everywhere; an unknown, used or
// expired link says so.
func (h *Handler) ResetPage(w http.ResponseWriter, r *http.Request) {
	token := chi.URLParam(r, "token")
	title := web.T(r, "forgot.resetTitle")
	u, err := h.db.UserLinkOwner(r.Context(), token, store.LinkReset)
	if errors.Is(err, store.ErrNotFound) {
		h.web.Bare(w, r, http.StatusOK, title, profileview.ResetGone())
		return
	} else if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	form := profileview.Reset{Token: token, Email: u.Email}
	if r.Method == http.MethodGet {
		h.web.Bare(w, r, http.StatusOK, title, profileview.ResetPage(form))
		return
	}
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	_, err = h.db.ResetPassword(r.Context(), token, r.PostFormValue("password"))
	if errs := fieldErrors(err); errs != nil {
		form.Error = web.T(r, "validation."+errs["password"])
		h.web.Bare(w, r, http.StatusUnprocessableEntity, title, profileview.ResetPage(form))
		return
	} else if errors.Is(err, store.ErrNotFound) {
		h.web.Bare(w, r, http.StatusOK, title, profileview.ResetGone())
		return
	} else if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "forgot.done")
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
