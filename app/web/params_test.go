package web

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"crm/app/validate"
)

func TestParseIDs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   []string
		want []int64
		ok   bool
	}{
		{nil, nil, true},
		{[]string{"7"}, []int64{7}, true},
		{[]string{"[1,2,3]"}, []int64{1, 2, 3}, true},
		{[]string{"1, 2 ,3"}, []int64{1, 2, 3}, true},
		{[]string{"1", "2"}, []int64{1, 2}, true},
		{[]string{"[]"}, nil, true},
		{[]string{"1,,2"}, []int64{1, 2}, true},
		{[]string{"1,x"}, nil, false},
		{[]string{"0"}, nil, false},
		{[]string{"-4"}, nil, false},
		{[]string{"1", "2.5"}, nil, false},
		{[]string{"99999999999999999999"}, nil, false},
	} {
		got, ok := ParseIDs(tc.in)
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseIDs(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestPathID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw  string
		want int64
		ok   bool
	}{{"12", 12, true}, {"0", 0, false}, {"-1", 0, false}, {"abc", 0, false}, {"", 0, false}, {"1e3", 0, false}} {
		rc := chi.NewRouteContext()
		rc.URLParams.Add("id", tc.raw)
		r := httptest.NewRequest("GET", "/x", nil)
		r = r.WithContext(context.WithValue(r.Context(), chi.RouteCtxKey, rc))
		got, err := PathID(r, "id")
		if tc.ok && (err != nil || got != tc.want) || !tc.ok && !errors.Is(err, ErrNotFound) {
			t.Errorf("PathID(%q) = %d, %v", tc.raw, got, err)
		}
	}
}

func TestFormIDsRefusesABadID(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest("POST", "/x", strings.NewReader("ids=1&ids=oops"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if err := r.ParseForm(); err != nil {
		t.Fatal(err)
	}
	var he *Error
	if _, err := FormIDs(r, "ids"); !errors.As(err, &he) || he.Status != http.StatusBadRequest {
		t.Fatalf("FormIDs with a bad id: %v", err)
	}
}

func TestCreatedRange(t *testing.T) {
	t.Parallel()
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	for _, tc := range []struct {
		query    string
		from, to time.Time
		bad      map[string]string
	}{
		{"", time.Time{}, time.Time{}, map[string]string{}},
		{"from=2026-01-02&to=2026-01-05", day("2026-01-02"), day("2026-01-06"), map[string]string{}},
		{"from=yesterday&to=2026-01-05", time.Time{}, day("2026-01-06"), map[string]string{"from": validate.KeyInvalidDate}},
		{"to=2026-02-30", time.Time{}, time.Time{}, map[string]string{"to": validate.KeyInvalidDate}},
	} {
		in, _ := url.ParseQuery(tc.query)
		var from, to time.Time
		_, bad := CreatedRange(in, &from, &to)
		if !from.Equal(tc.from) || !to.Equal(tc.to) || !reflect.DeepEqual(bad, tc.bad) {
			t.Errorf("CreatedRange(%q) = %v, %v, %v", tc.query, from, to, bad)
		}
	}
}

func TestReadListParams(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		query string
		want  ListParams
		norm  string
		errs  validate.Errors
	}{
		{"", ListParams{}, "", validate.Errors{}},
		{"search=+acme+&order=DESC&limit=50", ListParams{Search: "acme", Order: "desc", Limit: 50}, "limit=50&order=desc&search=acme", validate.Errors{}},
		{"order=sideways&limit=ten", ListParams{}, "", validate.Errors{"order": validate.KeyInvalid, "limit": validate.KeyInvalid}},
	} {
		in, _ := url.ParseQuery(tc.query)
		norm, errs := url.Values{}, validate.Errors{}
		got := ReadListParams(in, norm, errs)
		if got != tc.want || norm.Encode() != tc.norm || !reflect.DeepEqual(errs, tc.errs) {
			t.Errorf("ReadListParams(%q) = %+v, %q, %v", tc.query, got, norm.Encode(), errs)
		}
	}
}

func TestSafeNext(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"": "/home", "/leads?x=1": "/leads?x=1", "//evil.test": "/home", "/\\evil.test": "/home",
		"https://evil.test/": "/home", "leads": "/home",
	} {
		if got := SafeNext(in, "/home"); got != want {
			t.Errorf("SafeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReadJSON(t *testing.T) {
	t.Parallel()
	type payload struct {
		Name string `json:"name"`
	}
	for _, tc := range []struct {
		body, msgID string
		status      int
	}{
		{`{"name":"a"}`, "", 0},
		{``, "error.json.empty", 400},
		{`{"name":`, "error.json.syntax", 400},
		{`{"name":1}`, "error.json.type", 400},
		{`{"nope":1}`, "error.json.unknownField", 400},
		{`{"name":"a"}{"name":"b"}`, "error.json.trailing", 400},
		{`{"name":"` + strings.Repeat("x", 100) + `"}`, "", http.StatusRequestEntityTooLarge},
	} {
		r := httptest.NewRequest("POST", "/x", strings.NewReader(tc.body))
		var p payload
		_, err := ReadJSON(httptest.NewRecorder(), r, &p, 64)
		status, msgID, _, _ := Classify(err)
		switch {
		case tc.status == 0 && err != nil:
			t.Errorf("ReadJSON(%q): %v", tc.body, err)
		case tc.status != 0 && (status != tc.status || tc.msgID != "" && msgID != tc.msgID):
			t.Errorf("ReadJSON(%q) = %d %s, want %d %s", tc.body, status, msgID, tc.status, tc.msgID)
		}
	}
}
