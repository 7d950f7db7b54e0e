package main

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// With --server-profile, the mixed load's profile is taken from the server's Go profiles (as
// `crm serve --pprof` mounts them beside /metrics) for the load's length, and written to
// PREFIX-<engine>.pprof; without it, nothing is asked.
func TestServerProfileIsTakenOverTheLoad(t *testing.T) {
	t.Parallel()
	var asked []string
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/profile", func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Query().Get("seconds"))
		pprof.Profile(w, r)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	dir := t.TempDir()
	b := &bench{c: config{serverProf: filepath.Join(dir, "server")}, engine: "sqlite", metrics: srv.URL + "/metrics", out: io.Discard}

	wait := b.profileServer(context.Background(), 900*time.Millisecond)
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(asked, ",") != "1" {
		t.Errorf("asked for %q seconds, want 1 (the load's length, rounded up)", asked)
	}
	f, err := os.Open(filepath.Join(dir, "server-sqlite.pprof"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f) // a profile is gzipped protocol buffers
	if err != nil {
		t.Fatalf("not a profile: %v", err)
	}
	if n, err := io.Copy(io.Discard, zr); err != nil || n == 0 {
		t.Errorf("profile: %d bytes, %v", n, err)
	}

	b.c.serverProf = ""
	if err := b.profileServer(context.Background(), time.Second)(); err != nil || len(asked) != 1 {
		t.Errorf("without --server-profile: %v, %d requests", err, len(asked))
	}
	b.c.serverProf, b.metrics = filepath.Join(dir, "other"), ""
	if err := b.profileServer(context.Background(), time.Second)(); err == nil {
		t.Error("a server without a metrics address: no error")
	}
}
