package logbuf_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"crm/app/logbuf"
)

// sink records each write it is given, for the writer's goroutines and the test at once.
type sink struct {
	mu     sync.Mutex
	writes []string
	fail   error
}

func (s *sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return 0, s.fail
	}
	s.writes = append(s.writes, string(p))
	return len(p), nil
}

func (s *sink) got() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.writes...)
}

func TestLinesAreHeldUntilFlush(t *testing.T) {
	t.Parallel()
	out := &sink{}
	w := logbuf.New(out, 1<<10, time.Hour)
	fmt.Fprintln(w, "one")
	fmt.Fprintln(w, "two")
	if got := out.got(); len(got) != 0 {
		t.Fatalf("written before the interval or a flush: %q", got)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := out.got(); len(got) != 1 || got[0] != "one\ntwo\n" {
		t.Fatalf("after Flush: %q, want the two lines in one write", got)
	}
	if err := w.Flush(); err != nil || len(out.got()) != 1 {
		t.Fatalf("a Flush with nothing held wrote %q (%v)", out.got(), err)
	}
}

func TestLinesAreWrittenAfterTheInterval(t *testing.T) {
	t.Parallel()
	out := &sink{}
	w := logbuf.New(out, 1<<10, 5*time.Millisecond)
	fmt.Fprintln(w, "one")
	deadline := time.Now().Add(30 * time.Second) // a bound on a failure, not a wait for success
	for len(out.got()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the line was never written without a Flush")
		}
		time.Sleep(time.Millisecond)
	}
	fmt.Fprintln(w, "two") // the timer is armed again by the next line
	for len(out.got()) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the second line was never written: %q", out.got())
		}
		time.Sleep(time.Millisecond)
	}
	if got := out.got(); got[0] != "one\n" || got[1] != "two\n" {
		t.Fatalf("writes %q", got)
	}
}

func TestAFullBufferIsWrittenFirst(t *testing.T) {
	t.Parallel()
	out := &sink{}
	w := logbuf.New(out, 16, time.Hour)
	fmt.Fprint(w, "0123456789")
	fmt.Fprint(w, "abcdefghij") // would make 20 bytes: the first ten go out first
	if got := out.got(); len(got) != 1 || got[0] != "0123456789" {
		t.Fatalf("writes %q, want the first line once the second would overflow", got)
	}
	long := strings.Repeat("x", 40) // longer than the buffer: what is held, then it, straight through
	fmt.Fprint(w, long)
	if got := out.got(); len(got) != 3 || got[1] != "abcdefghij" || got[2] != long {
		t.Fatalf("writes %q", got)
	}
}

func TestWarningsAndErrorsAreWrittenAtOnce(t *testing.T) {
	t.Parallel()
	out := &sink{}
	w := logbuf.New(out, 1<<10, time.Hour)
	log := slog.New(logbuf.Handler(slog.NewTextHandler(w, nil), w)).With("app", "crm").WithGroup("g")
	log.Info("request", "path", "/a")
	if got := out.got(); len(got) != 0 {
		t.Fatalf("an info line written at once: %q", got)
	}
	log.Warn("slow", "path", "/b")
	got := out.got()
	if len(got) != 1 || !strings.Contains(got[0], "msg=request") || !strings.Contains(got[0], "msg=slow") ||
		strings.Index(got[0], "msg=request") > strings.Index(got[0], "msg=slow") || !strings.Contains(got[0], "app=crm g.path=/b") {
		t.Fatalf("after a warning: %q, want the info line then the warning, in one write", got)
	}
	log.Error("failed")
	if got := out.got(); len(got) != 2 || !strings.Contains(got[1], "level=ERROR") {
		t.Fatalf("after an error: %q", got)
	}
}

func TestCloseWritesWhatIsHeldAndThenWritesThrough(t *testing.T) {
	t.Parallel()
	out := &sink{}
	w := logbuf.New(out, 1<<10, time.Hour)
	fmt.Fprintln(w, "held")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(w, "late")
	if got := out.got(); len(got) != 2 || got[0] != "held\n" || got[1] != "late\n" {
		t.Fatalf("writes %q", got)
	}
}

func TestAWriteErrorIsReturnedByFlush(t *testing.T) {
	t.Parallel()
	out := &sink{fail: errors.New("disk full")}
	w := logbuf.New(out, 1<<10, time.Hour)
	if _, err := fmt.Fprintln(w, "line"); err != nil {
		t.Fatalf("a held write failed: %v", err)
	}
	if err := w.Flush(); err == nil || err.Error() != "disk full" {
		t.Fatalf("Flush: %v, want the writer's error", err)
	}
}

// Lines written at once from many goroutines come out whole and all of them.
func TestConcurrentLinesAreWrittenWhole(t *testing.T) {
	t.Parallel()
	out := &sink{}
	w := logbuf.New(out, 100, time.Millisecond)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				fmt.Fprintf(w, "g%d line %03d\n", g, i)
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var all bytes.Buffer
	for _, s := range out.got() {
		all.WriteString(s)
	}
	lines := strings.Split(strings.TrimSuffix(all.String(), "\n"), "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		var g, i int
		if n, err := fmt.Sscanf(l, "g%d line %03d", &g, &i); n != 2 || err != nil {
			t.Fatalf("a broken line %q", l)
		}
		seen[l] = true
	}
	if len(lines) != 1600 || len(seen) != 1600 {
		t.Fatalf("%d lines, %d distinct; want 1,600", len(lines), len(seen))
	}
}
