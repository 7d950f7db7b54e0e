package session

import (
	"net/http"
	"strings"
	"time"

	"crm/app/i18n"
	"crm/app/web"
)

// Language saves a language choice: on the user when signed in, in a cookie before.
func (h *Handler) Language(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := r.ParseForm(); err != nil {
		h.web.Fail(w, r, web.BadRequest("error.form", err))
		return
	}
	loc := r.PostForm.Get("locale")
	if !i18n.Supported(loc) {
		h.web.Fail(w, r, web.BadRequest("error.locale", nil))
		return
	}
	if p := web.Caller(r); p != nil {
		if err := p.Scope().SetUserLocale(r.Context(), p.User.ID, loc); err != nil {
			h.web.Fail(w, r, err)
			return
		}
	}
	http.SetCookie(w, &http.Cookie{Name: web.LocaleCookie, Value: loc, Path: "/", MaxAge: int((365 * 24 * time.Hour).Seconds()),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: h.web.Config.SecureCookies})
	back := web.SafeNext(r.PostForm.Get("back"), "/")
	if strings.HasPrefix(back, "/language") {
		back = "/"
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}
