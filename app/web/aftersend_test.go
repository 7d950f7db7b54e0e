package web

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	dto "github.com/prometheus/client_model/go"
)

// heldLog is a log destination whose writes wait until the test lets them through (or
// ends), and which tells the test each line it took.
type heldLog struct {
	release, done chan struct{}
	lines         chan string
}

func (l *heldLog) Write(p []byte) (int, error) {
	select {
	case <-l.release:
		l.lines <- string(p)
	case <-l.done: // the test is over: let the server close
	}
	return len(p), nil
}

// next lets one write through and returns its line, or fails the test once ctx ends.
func (l *heldLog) next(ctx context.Context, t *testing.T) string {
	t.Helper()
	select {
	case l.release <- struct{}{}:
		return <-l.lines
	case <-ctx.Done():
		t.Fatal("the request was never logged")
		return ""
	}
}

// observedServer serves /a/{n} and /b through the access log and the metrics, on a real
// HTTP server set up by SendFirst.
func observedServer(t *testing.T, logTo io.Writer) (*httptest.Server, *Metrics, func(context.Context) error) {
	t.Helper()
	k := &Kit{Log: slog.New(slog.NewTextHandler(logTo, nil))}
	m := NewMetrics()
	r := chi.NewRouter()
	r.Use(m.Middleware, k.AccessLog)
	r.Get("/a/{n}", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "answer a") })
	r.Get("/b", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusTeapot) })
	srv := httptest.NewUnstartedServer(r)
	drained := SendFirst(srv.Config)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, m, drained
}

// getBody asks url and reads the whole answer, or fails once ctx ends.
func getBody(ctx context.Context, client *http.Client, url string, closeConn bool) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	req.Close = closeConn
	res, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, string(b), err
}

// waitFor checks cond until it holds, failing the test with what says when it still does
// not after a generous while.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal(what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestAnswersAreSentBeforeTheyAreLogged: the client has the whole answer while the access
// log's write is still held, on a kept connection and on one the request closes; the line
// then comes, once per request, with what the answer was.
func TestAnswersAreSentBeforeTheyAreLogged(t *testing.T) {
	t.Parallel()
	log := &heldLog{release: make(chan struct{}), done: make(chan struct{}), lines: make(chan string, 1)}
	srv, _, _ := observedServer(t, log)
	t.Cleanup(func() { close(log.done) }) // before the server's Close, which waits for its connections
	client := srv.Client()
	// Logged before sending, the answer would wait for the held write, and this would
	// end with the context's error instead.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, closeConn := range []bool{false, true} {
		code, body, err := getBody(ctx, client, srv.URL+"/a/1", closeConn)
		if err != nil || code != 200 || body != "answer a" {
			t.Fatalf("close %v: answer %d %q %v", closeConn, code, body, err)
		}
		line := log.next(ctx, t)
		for _, want := range []string{"msg=request", "method=GET", "path=/a/1", "status=200", "bytes=8", "duration="} {
			if !strings.Contains(line, want) {
				t.Errorf("close %v: log line %q lacks %q", closeConn, line, want)
			}
		}
	}
	select {
	case line := <-log.lines:
		t.Fatalf("a line more than the requests: %q", line)
	default:
	}
}

// TestObservedAfterSendUnderConcurrentRequests: many connections at once, each request
// logged and counted exactly once under its own route (the route is read before the
// router hands its routing context on). Run with -race too.
func TestObservedAfterSendUnderConcurrentRequests(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var logged strings.Builder
	srv, m, _ := observedServer(t, writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logged.Write(p)
	}))
	const clients, each = 8, 25
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: &http.Transport{}} // a connection of its own
			defer client.CloseIdleConnections()
			for i := range each {
				path := fmt.Sprintf("/a/%d", c*each+i)
				if i%2 == 1 {
					path = "/b"
				}
				code, _, err := getBody(context.Background(), client, srv.URL+path, i == each-1)
				if want := map[bool]int{true: 200, false: http.StatusTeapot}[path != "/b"]; err != nil || code != want {
					t.Errorf("%s: %d %v", path, code, err)
				}
			}
		}()
	}
	wg.Wait()
	total := clients * each
	wantB := clients * (each / 2)
	// The last observations run just after their answers: wait for them.
	count := func(route, status string) int {
		var d dto.Metric
		if err := m.requests.WithLabelValues(route, "GET", status).Write(&d); err != nil {
			t.Fatal(err)
		}
		return int(d.GetCounter().GetValue())
	}
	counted := func() (a, b int) { return count("/a/{n}", "200"), count("/b", "418") }
	waitFor(t, "not every request counted", func() bool { a, b := counted(); return a+b >= total })
	if a, b := counted(); a != total-wantB || b != wantB {
		t.Fatalf("counted /a/{n} %d and /b %d, want %d and %d", a, b, total-wantB, wantB)
	}
	text := func() string {
		mu.Lock()
		defer mu.Unlock()
		return logged.String()
	}
	waitFor(t, "not every request logged", func() bool { return strings.Count(text(), "msg=request") >= total })
	if n, b := strings.Count(text(), "msg=request"), strings.Count(text(), "path=/b "); n != total || b != wantB {
		t.Fatalf("%d lines (%d for /b) for %d requests (%d to /b)", n, b, total, wantB)
	}
}

// TestShutdownWaitsForTheLastLogLine: a shutdown closes an idle connection at once, even
// while the connection still writes its last request's line; drained waits for that line.
func TestShutdownWaitsForTheLastLogLine(t *testing.T) {
	t.Parallel()
	log := &heldLog{release: make(chan struct{}), done: make(chan struct{}), lines: make(chan string, 1)}
	srv, _, drained := observedServer(t, log)
	t.Cleanup(func() { close(log.done) })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if code, _, err := getBody(ctx, srv.Client(), srv.URL+"/a/7", false); err != nil || code != 200 {
		t.Fatalf("answer: %d %v", code, err)
	}
	if err := srv.Config.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	ended, end := context.WithCancel(context.Background())
	end()
	if err := drained(ended); err != context.Canceled {
		t.Fatalf("drained with the line still held: %v, want to be still waiting", err)
	}
	if line := log.next(ctx, t); !strings.Contains(line, "path=/a/7") {
		t.Fatalf("line %q", line)
	}
	if err := drained(ctx); err != nil {
		t.Fatalf("drained after the line: %v", err)
	}
}

// TestAfterSendRunsAtOnceWithoutSendFirst: with no server set up (a recorder, as the
// handler tests use), the work runs before AfterSend returns.
func TestAfterSendRunsAtOnceWithoutSendFirst(t *testing.T) {
	t.Parallel()
	ran := false
	AfterSend(httptest.NewRequest(http.MethodGet, "/", nil), func() { ran = true })
	if !ran {
		t.Fatal("AfterSend put the work aside with no server to run it")
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
