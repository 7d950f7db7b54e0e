package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"crm/app/validate"
)

// fuzzPayload has the shapes the API's payloads have: text (one multi-line), numbers,
// optional ids, lists, a nested object and a free value.
type fuzzPayload struct {
	Name    string                 `json:"name"`
	Notes   string                 `json:"notes"`
	ID      int64                  `json:"id"`
	OwnerID *int64                 `json:"owner_id"`
	IDs     []int64                `json:"ids"`
	Tags    []string               `json:"tags"`
	Address *struct{ City string } `json:"billing_address"`
	Free    json.RawMessage        `json:"tenant_id"`
	Done    bool                   `json:"done"`
}

// FuzzReadJSON: any body is decoded or refused with a client error, and what is accepted
// holds no text the databases cannot store.
func FuzzReadJSON(f *testing.F) {
	for _, s := range []string{`{"name":"Ann","notes":"a\nb\tc"}`, `{"name":"a\u0000b"}`, `{"notes":"\u0007"}`,
		`{"ids":[1,2],"owner_id":null}`, `{"billing_address":{"City":"x\u0085"}}`, `{"tenant_id":{"x":"\u0000"}}`,
		`{"tags":["a","\u001b"]}`, `{"name":"ab`, `[]`, `null`, ``, `{"a":1}`, `{"name":1}`, `{} {}`, "\xff", `{"name":"\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var p fuzzPayload
		r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		_, err := ReadJSON(httptest.NewRecorder(), r, &p, MaxJSONBody)
		if err != nil {
			if status, _, _, _ := Classify(err); status >= 500 {
				t.Fatalf("%q: %d %v", body, status, err)
			}
			return
		}
		texts := append([]string{p.Name, p.Notes}, p.Tags...)
		if p.Address != nil {
			texts = append(texts, p.Address.City)
		}
		for i, s := range texts {
			if !validate.Text(s, i == 1) {
				t.Fatalf("%q accepted with text %q", body, s)
			}
		}
		if strings.ContainsRune(p.Name, '\n') || strings.ContainsRune(string(p.Free), 0) {
			t.Fatalf("%q accepted a line break in a one-line field or a NUL", body)
		}
	})
}

// FuzzReadForm: a posted form is read or refused with a client error, and an accepted
// one holds only clean text (tabs and line breaks only in the text areas, named by the last
// part of a dotted name as in a JSON path).
func FuzzReadForm(f *testing.F) {
	for _, s := range []string{"name=Ann&notes=a%0D%0Ab", "name=a%00b", "name=%FF", "a%00=1", "name=%", "notes=%09x", "=", "&&", "name=a%0Ab"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if err := ReadForm(httptest.NewRecorder(), r); err != nil {
			if status, _, _, _ := Classify(err); status >= 500 {
				t.Fatalf("%q: %d %v", body, status, err)
			}
			return
		}
		for name, vs := range r.PostForm {
			leaf := name[strings.LastIndexByte(name, '.')+1:] // "billing_address.notes" is a text area too
			for _, v := range vs {
				if !validate.Text(name, false) || !validate.Text(v, multilineFields[leaf]) {
					t.Fatalf("%q accepted %q=%q", body, name, v)
				}
			}
		}
	})
}

// FuzzListQuery: the list parameters every list reads, and the query-string check in
// front of every handler: nothing panics, a query that passes holds clean text, the kept
// values read back the same, and an error names only order or limit.
func FuzzListQuery(f *testing.F) {
	for _, s := range []string{"search=acme&order=desc&limit=50", "order=up", "limit=x", "limit=99999999999999999999",
		"search=%00", "search=%FF", "search=++a++", "order=ASC&order=desc", "%", "a=%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		in, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		if _, bad := badQuery(in); !bad {
			for name, vs := range in {
				for _, v := range vs {
					if !utf8.ValidString(name) || !validate.Text(v, false) {
						t.Fatalf("%q passed with %q=%q", raw, name, v)
					}
				}
			}
		}
		norm, errs := url.Values{}, validate.Errors{}
		p := ReadListParams(in, norm, errs)
		for field := range errs {
			if field != "order" && field != "limit" {
				t.Fatalf("%q: error on %s", raw, field)
			}
		}
		norm2, errs2 := url.Values{}, validate.Errors{}
		if p2 := ReadListParams(norm, norm2, errs2); p2 != p || len(errs2) != 0 || norm2.Encode() != norm.Encode() {
			t.Fatalf("%q: %+v, read back %+v (%v)", raw, p, p2, errs2)
		}
	})
}
