package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5/middleware"

	"crm/app/i18n"
	"crm/app/validate"
	"crm/views/errorpage"
	"crm/views/layout"
)

// envelope is the one JSON shape every API answer has.
type envelope struct {
	Status  int             `json:"status"`
	Message string          `json:"message"`
	Data    any             `json:"data,omitempty"`
	Errors  validate.Errors `json:"errors,omitempty"`
}

// listData is the data of every list answer.
type listData[T any] struct {
	Result []T   `json:"result"`
	Total  int64 `json:"total"`
	Page   int   `json:"page"`
	Limit  int   `json:"limit"`
}

// wantsJSON reports whether the caller gets the JSON envelope rather than HTML.
func wantsJSON(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/v1/api") ||
		strings.Contains(r.Header.Get("Accept"), "application/json") && !strings.Contains(r.Header.Get("Accept"), "text/html")
}

// isFragment reports whether htmx asked for the page's main content only.
func isFragment(r *http.Request) bool {
	return r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-Target") == "main"
}

// writeJSON writes the envelope with status.
func (s *server) writeJSON(w http.ResponseWriter, status int, env envelope) {
	env.Status = status
	b, err := json.Marshal(env)
	if err != nil {
		s.log.Error("encode json", "err", err)
		status, b = http.StatusInternalServerError, []byte(`{"status":500,"message":"Internal Server Error"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// ok answers a JSON call with a message id (translated) and data.
func (s *server) ok(w http.ResponseWriter, r *http.Request, status int, msgID string, data any) {
	s.writeJSON(w, status, envelope{Message: i18n.T(r.Context(), msgID), Data: data})
}

// page renders a view inside the admin shell: the whole page, or only the main content
// when htmx asks for it. The body is rendered into a buffer first, so a template error
// becomes a clean error page instead of half a page.
func (s *server) page(w http.ResponseWriter, r *http.Request, status int, title string, body templ.Component) {
	var c templ.Component
	if isFragment(r) {
		c = layout.Fragment(title, body)
	} else {
		c = layout.Page(s.shell(r, title), body)
	}
	s.render(w, r, status, c)
}

// bare renders a view in the minimal layout used before sign-in.
func (s *server) bare(w http.ResponseWriter, r *http.Request, status int, title string, body templ.Component) {
	s.render(w, r, status, layout.Bare(s.bareShell(r, title), body))
}

func (s *server) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		s.log.Error("render", "err", err, "path", r.URL.Path, "request_id", middleware.GetReqID(r.Context()))
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.Copy(w, &buf)
}

// fail renders any error: the JSON envelope for API callers, the error page otherwise.
// Internal details go to the log with the request id, never to the client.
func (s *server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, msgID, args, fields := classify(err)
	if status >= 500 {
		s.log.Error("request failed", "err", err, "method", r.Method, "path", r.URL.Path,
			"request_id", middleware.GetReqID(r.Context()))
	}
	if status == http.StatusUnauthorized && !wantsJSON(r) {
		s.redirectToLogin(w, r)
		return
	}
	msg := i18n.T(r.Context(), msgID, args...)
	if wantsJSON(r) {
		s.writeJSON(w, status, envelope{Message: msg, Errors: fields})
		return
	}
	view := errorpage.Error(status, msg)
	if principalFrom(r.Context()) != nil {
		s.page(w, r, status, msg, view)
	} else {
		s.bare(w, r, status, msg, view)
	}
}

// redirectToLogin sends a browser to the sign-in page, remembering where it was going.
func (s *server) redirectToLogin(w http.ResponseWriter, r *http.Request) {
	target := "/login"
	if strings.HasPrefix(r.URL.Path, "/m/") {
		target = "/m/login"
	}
	next := r.URL.RequestURI()
	if r.Method == http.MethodGet && next != "/" {
		target += "?next=" + urlQueryEscape(next)
	}
	if r.Header.Get("HX-Request") == "true" {
		w.Header().Set("HX-Redirect", target)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// maxJSONBody caps a JSON request body.
const maxJSONBody = 1 << 20

// decodeJSON reads one JSON object of at most maxJSONBody bytes into dst.
func decodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	_, err := readJSON(w, r, dst, maxJSONBody)
	return err
}

// readJSON reads one JSON object into dst and returns the raw body: capped in size,
// unknown fields refused, and every failure a 400 (or 413) with a message a client
// developer can act on.
func readJSON(w http.ResponseWriter, r *http.Request, dst any, limit int64) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	err = dec.Decode(dst)
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		return nil, badRequest("error.json.empty", err)
	case errors.As(err, &syntaxErr):
		return nil, badRequest("error.json.syntax", err, "Offset", syntaxErr.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, badRequest("error.json.syntax", err, "Offset", "end")
	case errors.As(err, &typeErr):
		return nil, badRequest("error.json.type", err, "Field", typeErr.Field)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return nil, badRequest("error.json.unknownField", err, "Field", strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`))
	default:
		return nil, badRequest("error.json.syntax", err, "Offset", "?")
	}
	if dec.More() {
		return nil, badRequest("error.json.trailing", nil)
	}
	return body, nil
}

// logger is the request-scoped logger with the request id.
func (s *server) logger(r *http.Request) *slog.Logger {
	return s.log.With("request_id", middleware.GetReqID(r.Context()))
}

// tr translates a message id for the request.
func tr(r *http.Request, id string, args ...any) string { return i18n.T(r.Context(), id, args...) }
