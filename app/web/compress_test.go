package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func serveCompressed(t *testing.T, ctype string, body string, acceptGzip bool) *http.Response {
	t.Helper()
	h := Compress("text/html", "application/json")(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(http.StatusCreated)
		for _, part := range []string{body[:len(body)/2], body[len(body)/2:]} {
			_, _ = io.WriteString(w, part)
		}
	}))
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	if acceptGzip {
		req.Header.Set("Accept-Encoding", "br, gzip;q=0.8")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func readBody(t *testing.T, res *http.Response) string {
	t.Helper()
	var rd io.Reader = res.Body
	if res.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		rd = gz
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCompressSkipsSmallBodies: a body under CompressMin goes out as it is, a larger one of
// a listed type gzipped (JSON at jsonLevel, HTML at pageLevel), other types and clients that
// do not accept gzip never; the status and the body are the handler's either way.
func TestCompressSkipsSmallBodies(t *testing.T) {
	big := strings.Repeat(`{"customer_name":"Olivia Dvořák","company":"Juniper Solar"},`, 60)
	for _, c := range []struct {
		name, ctype, body string
		accept            bool
		gzipped           bool
	}{
		{"small json", "application/json", `{"status":200}`, true, false},
		{"just under", "application/json", strings.Repeat("x", CompressMin-1), true, false},
		{"at the bound", "application/json", strings.Repeat("x", CompressMin), true, true},
		{"large json", "application/json; charset=utf-8", big, true, true},
		{"large html", "text/html; charset=utf-8", big, true, true},
		{"large other type", "image/png", big, true, false},
		{"no gzip accepted", "application/json", big, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := serveCompressed(t, c.ctype, c.body, c.accept)
			if got := res.Header.Get("Content-Encoding") == "gzip"; got != c.gzipped {
				t.Errorf("gzipped %v, want %v", got, c.gzipped)
			}
			if res.StatusCode != http.StatusCreated {
				t.Errorf("status %d", res.StatusCode)
			}
			if got := readBody(t, res); got != c.body {
				t.Errorf("body %.60q…, want %.60q…", got, c.body)
			}
		})
	}
	// JSON costs less CPU at jsonLevel than pages at pageLevel, and is a little larger.
	j := serveCompressed(t, "application/json", big+strings.Repeat("y", 3000), true)
	h := serveCompressed(t, "text/html", big+strings.Repeat("y", 3000), true)
	var jb, hb bytes.Buffer
	_, _ = io.Copy(&jb, j.Body)
	_, _ = io.Copy(&hb, h.Body)
	if jb.Len() < hb.Len() {
		t.Errorf("JSON at level %d is %d bytes, HTML at level %d %d", jsonLevel, jb.Len(), pageLevel, hb.Len())
	}
}
