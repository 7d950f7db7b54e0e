package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"crm/app/i18n"
	"crm/app/validate"
)

// Input is cleaned here, once, for every handler: the JSON decoder (ReadJSON), the form
// readers (ReadForm, ReadMultipartForm, FormText) and the query-string middleware
// (CleanQuery) refuse text holding NUL or another control character, or bytes that are not
// UTF-8 (validate.Text) — PostgreSQL cannot store them and SQLite would keep them silently.
// Handlers and the store never see such text.

// multilineFields are the text areas of the product's forms and payloads: the only fields
// whose text may hold tabs and line breaks (an email template's body and its language
// variants' bodies, "body_fr_FR", among them).
var multilineFields = func() map[string]bool {
	m := map[string]bool{"notes": true, "note": true, "body": true}
	for _, l := range i18n.Locales {
		m["body_"+l] = true
	}
	return m
}()

// textOK reports whether the value of field (a form name or a dotted JSON path) is clean.
func textOK(field, value string) bool {
	leaf := field[strings.LastIndexByte(field, '.')+1:]
	return validate.Text(value, multilineFields[leaf])
}

// FormText checks one field read by hand (a streamed multipart part): a field error when
// its text is not clean.
func FormText(field, value string) error {
	if !textOK(field, value) {
		return validate.Errors{field: validate.KeyInvalidCharacters}
	}
	return nil
}

// cleanValues checks every name and value of a form: the field errors of those that are
// not clean, or nil.
func cleanValues(vals url.Values) error {
	errs := validate.Errors{}
	for name, vs := range vals {
		if !validate.Text(name, false) {
			errs.Add("form", validate.KeyInvalidCharacters)
			continue
		}
		for _, v := range vs {
			if !textOK(name, v) {
				errs.Add(name, validate.KeyInvalidCharacters)
			}
		}
	}
	return errs.Err()
}

// badQuery finds the first query parameter (by name) whose name or value is not clean;
// the name is printable for the message (a parameter may well have an empty name).
func badQuery(q url.Values) (name string, bad bool) {
	names := make([]string, 0, len(q))
	for name := range q {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !validate.Text(name, false) {
			return strings.ToValidUTF8(strings.Map(func(r rune) rune {
				if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
					return '?'
				}
				return r
			}, name), "?"), true
		}
		for _, v := range q[name] {
			if !validate.Text(v, false) {
				return name, true
			}
		}
	}
	return "", false
}

// CleanQuery refuses (400, in the caller's language) a request whose query string holds a
// parameter with characters no search, filter or id has; a query that does not parse at
// all is refused the same way.
func (k *Kit) CleanQuery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RawQuery != "" {
			q, err := url.ParseQuery(r.URL.RawQuery)
			if err != nil {
				k.Fail(w, r, BadRequest("inputs.badQuery", err))
				return
			}
			if name, bad := badQuery(q); bad {
				k.Fail(w, r, BadRequest("inputs.queryCharacters", nil, "Field", name))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// badJSONText walks a decoded-once JSON document and returns the field (dotted object
// keys) of the first key or string that is not clean.
func badJSONText(body []byte) (field string, bad bool) {
	type frame struct {
		object, wantKey bool
		key             string
	}
	var stack []*frame
	path := func() string {
		keys := make([]string, 0, len(stack))
		for _, f := range stack {
			if f.object && f.key != "" {
				keys = append(keys, f.key)
			}
		}
		return strings.Join(keys, ".")
	}
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, &frame{object: true, wantKey: true})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
				stack[n-1].key, stack[n-1].wantKey = t, false
				if !validate.Text(t, false) {
					stack[n-1].key = ""
					if p := path(); p != "" {
						return p, true
					}
					return "body", true
				}
				continue
			}
			if p := path(); !textOK(p, t) {
				if p == "" {
					p = "body"
				}
				return p, true
			}
			valueDone()
		default:
			valueDone()
		}
	}
}
