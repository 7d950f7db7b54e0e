package web

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5/middleware"
	json "github.com/goccy/go-json"

	"crm/app/i18n"
	"crm/app/store"
	"crm/app/validate"
	"crm/views/errorpage"
	"crm/views/layout"
)

// Envelope is the one JSON shape every API answer has.
type Envelope struct {
	Status  int             `json:"status"`
	Message string          `json:"message"`
	Data    any             `json:"data,omitempty"`
	Errors  validate.Errors `json:"errors,omitempty"`
}

// List is the data of every list answer.
type List[T any] struct {
	Result []T   `json:"result"`
	Total  int64 `json:"total"`
	Page   int   `json:"page"`
	Limit  int   `json:"limit"`
}

// WantsJSON reports whether the caller gets the JSON envelope rather than HTML.
func WantsJSON(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/v1/api") ||
		strings.Contains(r.Header.Get("Accept"), "application/json") && !strings.Contains(r.Header.Get("Accept"), "text/html")
}

// IsFragment reports whether htmx asked for the page's main content only.
func IsFragment(r *http.Request) bool {
	return r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-Target") == "main"
}

// JSON writes the envelope with status.
func (k *Kit) JSON(w http.ResponseWriter, status int, env Envelope) {
	env.Status = status
	b, err := encodeJSON(env)
	if err != nil {
		k.Log.Error("encode json", "err", err)
		status, b = http.StatusInternalServerError, []byte(`{"status":500,"message":"Internal Server Error"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	jsonSecurityHeaders(h)
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// encodeJSON writes every /v1/api answer. It is goccy/go-json's Marshal, which compiles an
// encoder per type once instead of walking each value by reflection as encoding/json does:
// less than half the CPU on a list of 20 leads (issue 13, docs/PERFORMANCE.md). Its output
// is encoding/json's byte for byte (HTML escaped, the same field order, omitempty, embedded
// structs, MarshalJSON methods); TestEncodeJSONMatchesEncodingJSON holds it to that.
func encodeJSON(v any) ([]byte, error) { return json.Marshal(v) }

// OK answers a JSON call with a message id (translated) and data.
func (k *Kit) OK(w http.ResponseWriter, r *http.Request, status int, msgID string, data any) {
	k.JSON(w, status, Envelope{Message: T(r, msgID), Data: data})
}

// Page renders a view inside the admin shell: the whole page, or only the main content
// when htmx asks for it. The body is rendered into a buffer first, so a template error
// becomes a clean error page instead of half a page.
func (k *Kit) Page(w http.ResponseWriter, r *http.Request, status int, title string, body templ.Component) {
	var c templ.Component
	if IsFragment(r) {
		c = layout.Fragment(title, body)
	} else {
		c = layout.Page(k.Shell(r, title), body)
	}
	k.Render(w, r, status, c)
}

// PageWithScript renders a page that needs a page script (board.js). htmx navigation
// swaps only #main and runs no scripts, so such a page is loaded in full instead.
func (k *Kit) PageWithScript(w http.ResponseWriter, r *http.Request, status int, title string, body templ.Component, script string) {
	if IsFragment(r) {
		w.Header().Set("HX-Redirect", r.URL.RequestURI())
		w.WriteHeader(http.StatusOK)
		return
	}
	sh := k.Shell(r, title)
	if src := k.Assets.URL(script); src != "" {
		sh.Scripts = append(sh.Scripts, src)
	}
	k.Render(w, r, status, layout.Page(sh, body))
}

// Bare renders a view in the minimal layout used before sign-in.
func (k *Kit) Bare(w http.ResponseWriter, r *http.Request, status int, title string, body templ.Component) {
	k.Render(w, r, status, layout.Bare(k.BareShell(r, title), body))
}

// ErrorMessageHeader carries, on an htmx request's error answer, the message the admin
// script shows in its error toast (percent-encoded UTF-8: header values are ASCII).
// htmx does not swap an error answer, so without it the user would see nothing.
const ErrorMessageHeader = "X-Error-Message"

// setErrorMessage names the message of an error answer to an htmx request (Fail's own,
// else the one of its status); the first one set wins.
func setErrorMessage(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if status < 400 || r.Header.Get("HX-Request") != "true" || w.Header().Get(ErrorMessageHeader) != "" {
		return
	}
	if msg == "" {
		msg = T(r, statusMessageID(status))
	}
	w.Header().Set(ErrorMessageHeader, url.PathEscape(msg))
}

// statusMessageID is the message of an error status when the handler named none (a
// form re-rendered with its field errors, a failed render).
func statusMessageID(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "error.unauthorized"
	case http.StatusForbidden:
		return "error.forbidden"
	case http.StatusNotFound:
		return "error.notFound"
	case http.StatusConflict:
		return "error.conflict"
	case http.StatusRequestEntityTooLarge:
		return "error.tooLarge"
	case http.StatusUnprocessableEntity:
		return "error.validation"
	}
	return "error.internal"
}

// Render writes a component as HTML with status, through a buffer.
func (k *Kit) Render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		k.Logger(r).Error("render", "err", err, "path", r.URL.Path)
		setErrorMessage(w, r, http.StatusInternalServerError, "")
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	setErrorMessage(w, r, status, "")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.Copy(w, &buf)
}

// Fail renders any error: the JSON envelope for API callers, the error page otherwise.
// Internal details go to the log with the request id, never to the client.
func (k *Kit) Fail(w http.ResponseWriter, r *http.Request, err error) {
	status, msgID, args, fields := Classify(err)
	if status >= 500 {
		k.Logger(r).Error("request failed", "err", err, "method", r.Method, "path", r.URL.Path)
	}
	if status == http.StatusUnauthorized && !WantsJSON(r) {
		k.RedirectToLogin(w, r)
		return
	}
	msg := T(r, msgID, args...)
	setErrorMessage(w, r, status, msg)
	if WantsJSON(r) {
		k.JSON(w, status, Envelope{Message: msg, Errors: fields})
		return
	}
	view := errorpage.Error(status, msg)
	if Caller(r) != nil {
		k.Page(w, r, status, msg, view)
	} else {
		k.Bare(w, r, status, msg, view)
	}
}

// Message translates an Error for the request.
func Message(r *http.Request, e *Error) string { return T(r, e.MsgID, e.Args...) }

// RedirectToLogin sends a browser to the sign-in page, remembering where it was going.
func (k *Kit) RedirectToLogin(w http.ResponseWriter, r *http.Request) {
	target := "/login"
	if strings.HasPrefix(r.URL.Path, "/m/") {
		target = "/m/login"
	}
	if next := loginNext(r); next != "" && next != "/" {
		target += "?next=" + url.QueryEscape(next)
	}
	if r.Header.Get("HX-Request") == "true" {
		w.Header().Set("HX-Redirect", target)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// loginNext is the page to come back to after signing in: the one asked for, or for
// a change htmx sent (a quick change, a bulk action) the page it was made on, so the
// user finds their work again; "" for a plain form post.
func loginNext(r *http.Request) string {
	if r.Method == http.MethodGet {
		return r.URL.RequestURI()
	}
	if r.Header.Get("HX-Request") != "true" {
		return ""
	}
	u, err := url.Parse(r.Header.Get("HX-Current-URL"))
	if err != nil || u.Host != r.Host {
		return ""
	}
	return SafeNext(u.RequestURI(), "")
}

// Logger is the request-scoped logger with the request id.
func (k *Kit) Logger(r *http.Request) *slog.Logger {
	return k.Log.With("request_id", middleware.GetReqID(r.Context()))
}

// T translates a message id for the request.
func T(r *http.Request, id string, args ...any) string { return i18n.T(r.Context(), id, args...) }

// Locale is the request's language.
func Locale(r *http.Request) string { return i18n.Locale(r.Context()) }

// Count is the data of an answer that reports how many records a bulk action changed.
type Count struct {
	Count int `json:"count"`
}

// Counted answers a bulk action with how many records it changed: the message msgID
// (given Count) and the count as data.
func (k *Kit) Counted(w http.ResponseWriter, r *http.Request, msgID string, n int) {
	k.JSON(w, http.StatusOK, Envelope{Message: T(r, msgID, "Count", n), Data: Count{Count: n}})
}

// DropdownItem is the spec's dropdown shape: a label and the id it stands for.
type DropdownItem struct {
	Label string `json:"label"`
	Value int64  `json:"value"`
}

// ServeByID answers an API call on the record the path's {id} names: fn gets the caller's
// tenant-scoped store and the id, and its result is the envelope's data (with status and
// msgID); a malformed id is 404, and any error is rendered by Fail.
func (k *Kit) ServeByID(w http.ResponseWriter, r *http.Request, status int, msgID string,
	fn func(ctx context.Context, s store.Scope, id int64) (any, error)) {
	id, err := PathID(r, "id")
	if err == nil {
		var data any
		if data, err = fn(r.Context(), Scope(r), id); err == nil {
			k.OK(w, r, status, msgID, data)
			return
		}
	}
	k.Fail(w, r, err)
}

// ServeJSON answers an API call that sends a JSON payload: fn gets the caller's
// tenant-scoped store and the decoded payload, and its result is the envelope's data.
func ServeJSON[P any](k *Kit, w http.ResponseWriter, r *http.Request, status int, msgID string,
	fn func(ctx context.Context, s store.Scope, p P) (any, error)) {
	var p P
	err := DecodeJSON(w, r, &p)
	if err == nil {
		var data any
		if data, err = fn(r.Context(), Scope(r), p); err == nil {
			k.OK(w, r, status, msgID, data)
			return
		}
	}
	k.Fail(w, r, err)
}

// ServeJSONByID is ServeJSON on the record the path's {id} names (an update).
func ServeJSONByID[P any](k *Kit, w http.ResponseWriter, r *http.Request, status int, msgID string,
	fn func(ctx context.Context, s store.Scope, id int64, p P) (any, error)) {
	k.ServeByID(w, r, status, msgID, func(ctx context.Context, s store.Scope, id int64) (any, error) {
		var p P
		if err := DecodeJSON(w, r, &p); err != nil {
			return nil, err
		}
		return fn(ctx, s, id, p)
	})
}
