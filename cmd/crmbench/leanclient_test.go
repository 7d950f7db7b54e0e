package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// The lean client keeps one connection across requests, reads each answer whole (a large
// one included, or the next request would read its tail), sends the session's headers and
// asks for gzip, refuses anything but 200, and dials again after the server closes.
func TestLeanClientKeepsOneConnectionAndReadsWholeAnswers(t *testing.T) {
	t.Parallel()
	var conns atomic.Int32
	big := strings.Repeat("x", 200_000)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t" || r.Header.Get("Accept-Encoding") != "gzip" {
			http.Error(w, "headers", http.StatusBadRequest)
			return
		}
		switch r.URL.RequestURI() {
		case "/big?x=1":
			_, _ = w.Write([]byte(big))
		case "/close":
			w.Header().Set("Connection", "close")
		case "/small":
		default:
			http.NotFound(w, r)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	c, err := newLeanClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	s := session{header: http.Header{"Authorization": {"Bearer t"}}}
	for _, p := range []string{"/big?x=1", "/small", "/big?x=1", "/small"} {
		if err := c.get(p, s); err != nil {
			t.Fatalf("GET %s: %v", p, err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for four requests, want 1", n)
	}
	if err := c.get("/missing", s); err == nil || err.Error() != "404" {
		t.Errorf("GET /missing: %v, want 404", err)
	}
	if err := c.get("/small", session{header: http.Header{}}); err == nil || err.Error() != "400" {
		t.Errorf("without the session's header: %v, want 400", err)
	}
	if err := c.get("/close", s); err != nil {
		t.Fatal(err)
	}
	if err := c.get("/small", s); err != nil {
		t.Fatalf("after the server closed: %v", err)
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections, want 2 (a new one after the close)", n)
	}
	if _, err := newLeanClient("https://example.test"); err == nil {
		t.Error("an https base was taken")
	}
}
