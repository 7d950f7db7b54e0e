package emails

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"crm/app/auth"
	"crm/app/listpage"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	view "crm/views/emails"
)

// settingsModel is the settings page for the stored settings.
func (h *Handler) settingsModel(r *http.Request) (*view.Settings, error) {
	s, err := h.settings(r.Context(), web.Scope(r))
	if err != nil {
		return nil, err
	}
	return &view.Settings{Configured: s.Configured, ServerWide: s.ServerWide, CanSeal: s.CanSeal, Host: s.Host,
		Port: strconv.Itoa(s.Port), Security: s.Security, Username: s.Username, HasPassword: s.HasPassword,
		FromAddress: s.FromAddress, FromName: s.FromName, Errors: map[string]string{},
		CanUpdate: web.Caller(r).Perms.Allows(auth.FeatureSettings, auth.Update)}, nil
}

// SettingsPage is GET /settings/mail.
func (h *Handler) SettingsPage(w http.ResponseWriter, r *http.Request) {
	m, err := h.settingsModel(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Page(w, r, http.StatusOK, web.T(r, "mail.settingsTitle"), view.SettingsPage(*m))
}

// SettingsSubmit is POST /settings/mail; a blank password keeps the stored one.
func (h *Handler) SettingsSubmit(w http.ResponseWriter, r *http.Request) {
	// Text the form reader refuses (a control character, CR/LF) is shown at its field.
	formErr := web.ReadForm(w, r)
	var ve validate.Errors
	if formErr != nil && !errors.As(formErr, &ve) {
		h.web.Fail(w, r, formErr)
		return
	}
	m, err := h.settingsModel(r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	f := r.PostForm
	in := SettingsInput{Host: f.Get("host"), Security: f.Get("security"), Username: f.Get("username"), Password: f.Get("password"),
		FromAddress: f.Get("from_address"), FromName: f.Get("from_name")}
	in.Port, _ = strconv.Atoi(f.Get("port"))
	err = formErr
	if err == nil {
		err = h.save(r.Context(), web.Scope(r), in)
	}
	if errors.As(err, &ve) || errors.Is(err, errNoKey) {
		m.Host, m.Port, m.Security, m.Username, m.FromAddress, m.FromName = in.Host, f.Get("port"), in.Security, in.Username, in.FromAddress, in.FromName
		for k, v := range ve {
			m.Errors[k] = v
		}
		status := http.StatusUnprocessableEntity
		if errors.Is(err, errNoKey) {
			status = http.StatusConflict // the page says a password needs CRM_SECRET_KEY
		}
		h.web.Page(w, r, status, web.T(r, "mail.settingsTitle"), view.SettingsPage(*m))
		return
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "mail.saved")
	http.Redirect(w, r, "/settings/mail", http.StatusSeeOther)
}

// TestSubmit is POST /settings/mail/test: a test message to the caller, queued; off to its
// detail page, which shows whether it went.
func (h *Handler) TestSubmit(w http.ResponseWriter, r *http.Request) {
	id, err := h.sendTest(r.Context(), web.Scope(r), "")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "mail.testQueued")
	http.Redirect(w, r, view.Href(id), http.StatusSeeOther)
}

func (h *Handler) list() *listpage.List[*view.List] {
	return &listpage.List[*view.List]{Kit: h.web, Path: view.ListPath, Results: view.ResultsID, TitleID: "mail.history",
		Load:     h.load,
		Page:     func(m *view.List) templ.Component { return view.ListPage(*m) },
		Fragment: func(m *view.List) templ.Component { return view.ResultsFragment(*m) },
		SetError: func(*view.List, string) {}}
}

// load reads the history page for a query string; a value it cannot read is shown at its
// filter and left out.
func (h *Handler) load(r *http.Request, in url.Values) (*view.List, error) {
	q, norm, errs := Query(in)
	page, err := web.Scope(r).ListEmails(r.Context(), q)
	if err == nil && q.After+q.Before != 0 && len(page.Rows) == 0 { // a cursor past what is left
		q.After, q.Before = 0, 0
		norm.Del("after")
		norm.Del("before")
		page, err = web.Scope(r).ListEmails(r.Context(), q)
	}
	if err != nil {
		return nil, err
	}
	m := &view.List{ListState: view.State(norm, errs), Page: page,
		Filtered: q.Status != "" || q.Kind != "" || q.LeadID != 0 || q.ClientID != 0 || q.Search != "" || len(errs) > 0}
	var prev, next string
	if page.Prev != 0 {
		prev = strconv.FormatInt(page.Prev, 10)
	}
	if page.Next != 0 {
		next = strconv.FormatInt(page.Next, 10)
	}
	m.Pager = m.ListState.Pager(r.Context(), web.T(r, "mail.pages"), false, prev, next)
	return m, nil
}

// HistoryPage is GET /emails.
func (h *Handler) HistoryPage(w http.ResponseWriter, r *http.Request) { h.list().Serve(w, r) }

// DetailPage is GET /emails/{id}.
func (h *Handler) DetailPage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	e, err := web.Scope(r).Email(r.Context(), id)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Page(w, r, http.StatusOK, e.Subject, view.DetailPage(view.Detail{Email: e}))
}

// Unsubscribe is GET and POST /unsubscribe/{token}, public: GET asks to confirm, POST
// unsubscribes — also RFC 8058's one-click POST from a mail provider, which has no
// session, no CSRF token and no browser headers. The token alone (unguessable, bound to
// its tenant) authorises it.
func (h *Handler) Unsubscribe(w http.ResponseWriter, r *http.Request) {
	token := chi.URLParam(r, "token")
	var e *store.Email
	var err error
	done := r.Method == http.MethodPost
	if done {
		e, err = h.web.DB.Unsubscribe(r.Context(), token)
	} else {
		e, err = h.web.DB.EmailByUnsubscribeToken(r.Context(), token)
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	h.web.Bare(w, r, http.StatusOK, web.T(r, "mail.unsubscribeTitle"),
		view.UnsubscribePage(view.Unsubscribe{Address: e.ToAddress, Action: "/unsubscribe/" + url.PathEscape(token), Done: done}))
}
