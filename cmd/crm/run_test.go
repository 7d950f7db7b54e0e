package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"crm/app/race"
	"crm/app/store"
	"crm/app/store/storetest"
)

// crm runs the program with args against dbURL and returns stdout and the error.
func crm(t *testing.T, dbURL string, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	env := func(k string) string {
		if k == "DATABASE_URL" {
			return dbURL
		}
		return ""
	}
	err := run(context.Background(), append([]string{"crm"}, args...), env, &out, &errb)
	return out.String(), err
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func TestCommands(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			url := storetest.URL(t, d)

			out, err := crm(t, url, "migrate")
			if err != nil || !strings.Contains(out, "applied") {
				t.Fatalf("first migrate: %q %v", out, err)
			}
			if out, err := crm(t, url, "migrate"); err != nil || !strings.Contains(out, "up to date") {
				t.Fatalf("second migrate must be a no-op: %q %v", out, err)
			}

			out, err = crm(t, url, "create-tenant", "--name", "Acme", "--admin-email", "boss@acme.test", "--admin-password", "Secret1!x")
			if err != nil {
				t.Fatal(err)
			}
			id, err := strconv.ParseInt(lastLine(out), 10, 64)
			if err != nil || id <= 0 {
				t.Fatalf("last line is not the tenant id: %q", out)
			}

			if _, err := crm(t, url, "create-user", "--tenant", lastLine(out), "--email", "ana@acme.test", "--password", "Secret1!x", "--role", "Sales"); err != nil {
				t.Fatal(err)
			}

			failures := []struct {
				args []string
				want string
			}{
				{[]string{"create-tenant", "--name", "Weak", "--admin-email", "w@w.test", "--admin-password", "password"}, "password: invalidPassword"},
				{[]string{"create-tenant", "--name", "Dup", "--admin-email", "boss@acme.test", "--admin-password", "Secret1!x"}, "email: taken"},
				{[]string{"create-user", "--tenant", lastLine(out), "--email", "ana@acme.test", "--password", "Secret1!x", "--role", "Sales"}, "email: taken"},
				{[]string{"create-user", "--tenant", "999", "--email", "x@acme.test", "--password", "Secret1!x", "--role", "Sales"}, "tenant 999"},
				{[]string{"create-user", "--tenant", lastLine(out), "--email", "x@acme.test", "--password", "Secret1!x", "--role", "Pilot"}, "role: invalid"},
				{[]string{"create-tenant", "--bogus"}, "flag provided but not defined: -bogus"},
				{[]string{"frobnicate"}, "unknown command"},
			}
			for _, f := range failures {
				_, err := crm(t, url, f.args...)
				if err == nil || !strings.Contains(err.Error(), f.want) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%v: got %v, want one line containing %q", f.args, err, f.want)
				}
			}
			// Nothing half-written: the refused tenants do not exist.
			db, err := store.Open(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, name := range []string{"Weak", "Dup"} {
				if _, err := db.TenantByName(context.Background(), name); err != store.ErrNotFound {
					t.Errorf("tenant %s was written: %v", name, err)
				}
			}

			out1, err := crm(t, url, "seed", "--demo")
			if err != nil || !strings.Contains(out1, "created demo tenant") {
				t.Fatalf("seed: %q %v", out1, err)
			}
			out2, err := crm(t, url, "seed", "--demo")
			if err != nil || !strings.Contains(out2, "already exists") {
				t.Fatalf("seed twice: %q %v", out2, err)
			}
		})
	}
}

// TestSeedLeads adds generated leads to a tenant from the command line: progress, then the
// leads spread over the tenant's masters and users; refusals name what is wrong.
func TestSeedLeads(t *testing.T) {
	t.Parallel()
	if race.Enabled {
		t.Skip("seeding runs on one goroutine: nothing for the race detector, and 20 s under it; the run without it has this test")
	}
	for _, d := range storetest.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			url := storetest.URL(t, d)
			out, err := crm(t, url, "create-tenant", "--name", "Big", "--admin-email", "boss@big.test", "--admin-password", "Secret1!x")
			if err != nil {
				t.Fatal(err)
			}
			id := lastLine(out)
			if _, err := crm(t, url, "create-user", "--tenant", id, "--email", "rep@big.test", "--password", "Secret1!x", "--role", "Sales"); err != nil {
				t.Fatal(err)
			}
			out, err = crm(t, url, "seed", "--tenant", id, "--leads", "2500")
			if err != nil || !strings.Contains(out, "seeded 2500/2500 leads") || !strings.Contains(lastLine(out), "added 2500 leads to tenant "+id) {
				t.Fatalf("seed: %q %v", out, err)
			}
			db, err := store.Open(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			tid, _ := strconv.ParseInt(id, 10, 64)
			s := db.System(tid, 0)
			ctx := context.Background()
			page, err := s.ListLeads(ctx, store.LeadQuery{})
			if err != nil || page.Total != 2500 || page.Won == 0 || page.Lost == 0 {
				t.Fatalf("after seeding: %+v %v", page, err)
			}
			users, _ := s.Users(ctx)
			for _, u := range users {
				if p, _ := s.ListLeads(ctx, store.LeadQuery{OwnerIDs: []int64{u.ID}}); p == nil || p.Total < 500 {
					t.Errorf("user %s owns %v leads", u.Email, p)
				}
			}
			for _, k := range []store.MasterKind{store.KindStage, store.KindStatus, store.KindSource, store.KindType} {
				ms, _ := s.Masters(ctx, k)
				for _, m := range ms {
					q := store.LeadQuery{}
					switch k {
					case store.KindStage:
						q.StageIDs = []int64{m.ID}
					case store.KindStatus:
						q.StatusIDs = []int64{m.ID}
					case store.KindSource:
						q.SourceIDs = []int64{m.ID}
					case store.KindType:
						q.TypeIDs = []int64{m.ID}
					}
					if p, _ := s.ListLeads(ctx, q); p == nil || p.Total < 100 {
						t.Errorf("%s %s has %v leads", k, m.Name, p)
					}
				}
			}
			oldest, _ := s.ListLeads(ctx, store.LeadQuery{Sort: store.SortCreated, Limit: 1})
			newest, _ := s.ListLeads(ctx, store.LeadQuery{Sort: store.SortCreated, Order: "desc", Limit: 1})
			if span := newest.Rows[0].CreatedAt.Sub(oldest.Rows[0].CreatedAt); span < 300*24*time.Hour {
				t.Errorf("creation dates span only %s", span)
			}
			for _, f := range []struct {
				args []string
				want string
			}{
				{[]string{"seed"}, "nothing to do"},
				{[]string{"seed", "--leads", "10"}, "--tenant and --leads go together"},
				{[]string{"seed", "--tenant", id, "--leads", "-5"}, "--tenant and --leads go together"},
				{[]string{"seed", "--tenant", "999", "--leads", "10"}, "tenant 999"},
			} {
				if _, err := crm(t, url, f.args...); err == nil || !strings.Contains(err.Error(), f.want) {
					t.Errorf("%v: got %v, want %q", f.args, err, f.want)
				}
			}
		})
	}
}

func TestUnreachableDatabase(t *testing.T) {
	t.Parallel()
	_, err := crm(t, "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=2", "migrate")
	if err == nil || !strings.Contains(err.Error(), "database unreachable") {
		t.Fatalf("got %v", err)
	}
}

// TestServeShutsDownGracefully starts the real server, makes a request, then cancels:
// serve returns cleanly.
func TestServeShutsDownGracefully(t *testing.T) {
	t.Parallel()
	url := storetest.URL(t, store.SQLite)
	stderr := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		env := func(k string) string {
			if k == "DATABASE_URL" {
				return url
			}
			return ""
		}
		done <- run(ctx, []string{"crm", "serve", "--addr", "127.0.0.1:0", "--demo"}, env, pw, stderr)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var base string
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "CRM is running at ") {
			base = strings.Fields(strings.TrimPrefix(line, "CRM is running at "))[0]
		}
		if strings.HasPrefix(line, "Demo sign-in: admin@demo.test / Admin@12345") {
			break
		}
	}
	if base == "" {
		t.Fatal("no URL printed")
	}
	go io.Copy(io.Discard, pr) //nolint:errcheck
	res, err := http.Get(base + "/readyz")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("readyz: %v %v", res, err)
	}
	res.Body.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(time.Minute): // a bound on a failure, not a wait for success
		t.Fatal("serve did not stop")
	}
	// The last request's access log line is written by the time serve returns, though it
	// comes after the answer (web.SendFirst).
	if !strings.Contains(stderr.String(), "path=/readyz status=200") {
		t.Fatalf("no log line of the last request: %.500s", stderr.String())
	}
}

// lockedBuffer is a buffer the server's goroutines may write to at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestHelpListsFlags: -h and --help print a command's flags on stdout and succeed, without
// touching the database.
func TestHelpListsFlags(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ args, want []string }{
		{[]string{"serve", "--help"}, []string{"usage: crm serve", "-import-pause", "-database-url", "-files-dir", "-metrics-addr", "-session-idle", "-session-lifetime"}},
		{[]string{"seed", "-h"}, []string{"usage: crm seed", "-leads", "-tenant"}},
		{[]string{"create-user", "--help"}, []string{"-email", "-role"}},
	} {
		out, err := crm(t, "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=1", c.args...)
		if err != nil {
			t.Errorf("%v: %v", c.args, err)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", c.args, w, out)
			}
		}
	}
}

// TestServeNeedsARoleBoundByRowLevelSecurity: on PostgreSQL serve refuses the schema owner's
// connection (a superuser here) and a schema with migrations pending, and serves as a role
// that owns nothing when given the owner's URL to migrate with.
func TestServeNeedsARoleBoundByRowLevelSecurity(t *testing.T) {
	t.Parallel()
	owner := storetest.URL(t, store.Postgres)
	storetest.EnsureAppRole(t, owner)
	app := storetest.AsRole(t, owner, storetest.AppRole)
	serve := func(ctx context.Context, env map[string]string, stdout io.Writer) error {
		return run(ctx, []string{"crm", "serve", "--addr", "127.0.0.1:0", "--demo"}, func(k string) string { return env[k] }, stdout, io.Discard)
	}
	if err := serve(context.Background(), map[string]string{"DATABASE_URL": owner}, io.Discard); !errors.Is(err, store.ErrOwnerConnection) {
		t.Fatalf("serve as the owner: %v, want a refusal", err)
	}
	if err := serve(context.Background(), map[string]string{"DATABASE_URL": app}, io.Discard); err == nil || !strings.Contains(err.Error(), "pending") {
		t.Fatalf("serve with migrations pending: %v, want a refusal", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, map[string]string{"DATABASE_URL": app, "MIGRATE_DATABASE_URL": owner}, pw)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var base string
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "CRM is running at ") {
			base = strings.Fields(strings.TrimPrefix(line, "CRM is running at "))[0]
		}
		if strings.HasPrefix(line, "Demo sign-in: ") { // the demo tenant was seeded as the server's role
			break
		}
	}
	go io.Copy(io.Discard, pr) //nolint:errcheck
	if base == "" {
		cancel()
		t.Fatalf("serve did not start: %v", <-done)
	}
	res, err := http.Post(base+"/v1/api/auth/login", "application/json",
		strings.NewReader(`{"email":"`+store.DemoAdminEmail+`","password":"`+store.DemoAdminPassword+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("sign-in as the demo administrator: %d", res.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(time.Minute): // a bound on a failure, not a wait for success
		t.Fatal("serve did not stop")
	}
}

// TestServeMetricsOnTheirOwnAddress: --metrics-addr serves /metrics on a listener of its
// own; the public address does not serve them (no METRICS_TOKEN), and neither serves Go's
// profiles without --pprof.
func TestServeMetricsOnTheirOwnAddress(t *testing.T) {
	t.Parallel()
	base, metrics := startServe(t, "--metrics-addr", "127.0.0.1:0")
	if code, _ := get(t, base+"/readyz"); code != 200 {
		t.Fatalf("readyz: %d", code)
	}
	// A request is counted once its answer has been sent (web.SendFirst): just after it.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		code, body := get(t, metrics)
		if code == 200 && strings.Contains(body, `crm_http_requests_total{method="GET",route="/readyz",status="200"}`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics address: %d %.300s", code, body)
		}
	}
	if code, body := get(t, base+"/metrics"); code != http.StatusNotFound || strings.Contains(body, "crm_http") {
		t.Fatalf("public /metrics: %d", code)
	}
	profiles := strings.TrimSuffix(metrics, "/metrics") + "/debug/pprof/"
	if code, _ := get(t, profiles); code != http.StatusNotFound {
		t.Fatalf("profiles without --pprof: %d", code)
	}
}

// TestServeProfilesOnlyOnTheMetricsAddress: --pprof adds Go's profiles to the metrics
// listener, never to the public address, and is refused without --metrics-addr.
func TestServeProfilesOnlyOnTheMetricsAddress(t *testing.T) {
	t.Parallel()
	env := sqliteEnv(t)
	// Were it not refused, serve would run until this context ends and answer nil.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := run(ctx, []string{"crm", "serve", "--addr", "127.0.0.1:0", "--pprof"}, env, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--metrics-addr") {
		t.Fatalf("--pprof alone: %v", err)
	}
	base, metrics := startServe(t, "--metrics-addr", "127.0.0.1:0", "--pprof")
	root := strings.TrimSuffix(metrics, "/metrics")
	if code, body := get(t, root+"/debug/pprof/"); code != 200 || !strings.Contains(body, "goroutine") {
		t.Fatalf("profiles on the metrics address: %d %.200s", code, body)
	}
	if code, body := get(t, root+"/debug/pprof/profile?seconds=1"); code != 200 || len(body) == 0 {
		t.Fatalf("CPU profile: %d, %d bytes", code, len(body))
	}
	if code, body := get(t, base+"/debug/pprof/"); code == 200 || strings.Contains(body, "goroutine") {
		t.Fatalf("public /debug/pprof/: %d", code)
	}
}

// startServe runs `crm serve` on a new SQLite database with the given flags until the test
// ends, and returns its public address and its /metrics URL ("" without --metrics-addr).
func startServe(t *testing.T, flags ...string) (base, metrics string) {
	t.Helper()
	env := sqliteEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"crm", "serve", "--addr", "127.0.0.1:0"}, flags...), env, pw, io.Discard)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		line := sc.Text()
		if m, ok := strings.CutPrefix(line, "Metrics at "); ok {
			metrics = m
		}
		if m, ok := strings.CutPrefix(line, "CRM is running at "); ok {
			base = strings.Fields(m)[0]
			break
		}
	}
	go io.Copy(io.Discard, pr) //nolint:errcheck
	t.Cleanup(func() {
		cancel()
		<-done
	})
	if base == "" {
		t.Fatalf("address not printed (%v)", flags)
	}
	return base, metrics
}

// sqliteEnv is an environment whose DATABASE_URL is a new SQLite database, and nothing else.
func sqliteEnv(t *testing.T) func(string) string {
	url := storetest.URL(t, store.SQLite)
	return func(k string) string {
		if k == "DATABASE_URL" {
			return url
		}
		return ""
	}
}

// get answers a GET's status and body.
func get(t *testing.T, u string) (int, string) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}
