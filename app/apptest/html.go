package apptest

import (
	"html"
	"net/http"
	"regexp"
	"strings"
)

// WantStatus fails unless the response has the status.
func (r *Response) WantStatus(want int) *Response {
	r.T.Helper()
	if r.Status != want {
		r.T.Fatalf("status %d, want %d: %.600s", r.Status, want, r.Body)
	}
	return r
}

// Has fails unless the body holds every text (HTML-escaped as the page writes it).
func (r *Response) Has(texts ...string) *Response {
	r.T.Helper()
	for _, s := range texts {
		if !strings.Contains(r.Body, s) {
			r.T.Fatalf("%d: body lacks %q:\n%.3000s", r.Status, s, r.Body)
		}
	}
	return r
}

// Lacks fails if the body holds any of the texts.
func (r *Response) Lacks(texts ...string) *Response {
	r.T.Helper()
	for _, s := range texts {
		if strings.Contains(r.Body, s) {
			r.T.Fatalf("%d: body holds %q", r.Status, s)
		}
	}
	return r
}

// WantInlineError checks that the field's message sits next to it and is tied to it.
func (r *Response) WantInlineError(fieldID, msg string) {
	r.T.Helper()
	errRE := regexp.MustCompile(`<p class="field-error" id="` + fieldID + `-error"[^>]*>` + regexp.QuoteMeta(html.EscapeString(msg)) + `</p>`)
	if !errRE.MatchString(r.Body) {
		r.T.Fatalf("no inline error %q for %s:\n%.4000s", msg, fieldID, r.Body)
	}
	ctlRE := regexp.MustCompile(`<(input|select|textarea)[^>]*id="` + fieldID + `"[^>]*>`)
	ctl := ctlRE.FindString(r.Body)
	if !strings.Contains(ctl, `aria-describedby="`) || !strings.Contains(ctl, fieldID+`-error`) || !strings.Contains(ctl, `aria-invalid="true"`) {
		r.T.Fatalf("control %s is not tied to its error: %s", fieldID, ctl)
	}
}

// Location is the path a 303 redirect goes to.
func (r *Response) Location() string {
	r.T.Helper()
	if r.Status != http.StatusSeeOther {
		r.T.Fatalf("status %d, want 303: %.600s", r.Status, r.Body)
	}
	return r.Header.Get("Location")
}
