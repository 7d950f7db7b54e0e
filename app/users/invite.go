package users

import (
	"errors"
	"net/http"

	"github.com/go-chi/chi/v5"

	"crm/app/i18n"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	usersview "crm/views/users"
)

// InvitePage is the public page of an invitation link: the invitee sets a password, the
// link is spent, and they go to sign in. An unknown, used or expired link says so (a page
// that explains, answered 200 like the other public pages).
func (h *Handler) InvitePage(w http.ResponseWriter, r *http.Request) {
	token := chi.URLParam(r, "token")
	u, err := h.db.UserLinkOwner(r.Context(), token, store.LinkInvite)
	if errors.Is(err, store.ErrNotFound) {
		h.web.Bare(w, r, http.StatusOK, "", usersview.InviteGone())
		return
	} else if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	form := usersview.InviteForm{Token: token, Email: u.Email}
	if r.Method == http.MethodGet {
		h.web.Bare(w, r, http.StatusOK, "", usersview.Invite(form))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		h.web.Fail(w, r, web.BadRequest("error.form", err))
		return
	}
	_, err = h.db.UseUserLink(r.Context(), token, store.LinkInvite, r.PostForm.Get("password"))
	var verrs validate.Errors
	switch {
	case errors.As(err, &verrs):
		form.Error = i18n.T(r.Context(), "validation."+verrs["password"])
		h.web.Bare(w, r, http.StatusUnprocessableEntity, "", usersview.Invite(form))
	case errors.Is(err, store.ErrNotFound):
		h.web.Bare(w, r, http.StatusOK, "", usersview.InviteGone())
	case err != nil:
		h.web.Fail(w, r, err)
	default:
		h.web.Flash(r, "users.passwordSet")
		http.Redirect(w, r, "/login", http.StatusSeeOther)
	}
}
