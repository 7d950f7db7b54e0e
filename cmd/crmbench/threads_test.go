package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeTask writes one thread's schedstat and status under a fake /proc folder.
func writeTask(t *testing.T, dir, tid, schedstat, status string) {
	t.Helper()
	td := filepath.Join(dir, "task", tid)
	if err := os.MkdirAll(td, 0o755); err != nil {
		t.Fatal(err)
	}
	if schedstat != "" {
		if err := os.WriteFile(filepath.Join(td, "schedstat"), []byte(schedstat), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if status != "" {
		if err := os.WriteFile(filepath.Join(td, "status"), []byte(status), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Every thread's CPU and both kinds of switches are summed; a thread that ended while the
// folder was read is left out, and a file that cannot be read as Linux writes it fails.
func TestReadThreadCostSumsEveryThread(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTask(t, dir, "100", "1500000 200 7\n", "Name:\tcrm\nvoluntary_ctxt_switches:\t10\nnonvoluntary_ctxt_switches:\t3\n")
	writeTask(t, dir, "101", "2500000 0 1\n", "Name:\tcrm\nvoluntary_ctxt_switches:\t5\nnonvoluntary_ctxt_switches:\t2\n")
	writeTask(t, dir, "102", "", "") // ended: its folder is left, its files gone
	c, err := readThreadCost(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.cpu != 4*time.Millisecond || c.switches != 20 {
		t.Errorf("got %v and %d switches, want 4ms and 20", c.cpu, c.switches)
	}

	bad := t.TempDir()
	writeTask(t, bad, "100", "lots 0 1\n", "voluntary_ctxt_switches:\t1\n")
	if _, err := readThreadCost(bad); err == nil {
		t.Error("a schedstat without a number was read")
	}
	bad = t.TempDir()
	writeTask(t, bad, "100", "1 0 1\n", "voluntary_ctxt_switches:\tmany\n")
	if _, err := readThreadCost(bad); err == nil {
		t.Error("a status without a number was read")
	}
	if _, err := readThreadCost(filepath.Join(t.TempDir(), "gone")); err == nil {
		t.Error("a process that is gone was read")
	}
}

// Watching this very process: the CPU it burns and the times its thread sleeps in the
// kernel show in the watch's share a request.
func TestThreadWatchSeesTheProcessWork(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads Linux's /proc")
	}
	t.Parallel()
	w := watchThreads(os.Getpid())
	if !w.ok {
		t.Fatalf("could not read /proc/%d", os.Getpid())
	}
	// Sleeping in the kernel switches the thread out each time.
	runtime.LockOSThread()
	for range 5 {
		_ = syscall.Nanosleep(&syscall.Timespec{Nsec: 100_000}, nil) // long enough that the thread is switched out, not the timer done first
	}
	runtime.UnlockOSThread()
	// Burn CPU until /proc shows 20 ms more of it (however fast or busy the machine).
	deadline := time.Now().Add(time.Minute)
	for x := 0; ; x++ {
		if x%100000 == 0 {
			c, _ := readOK(w.dir)
			if c.cpu-w.before.cpu >= 20*time.Millisecond {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no CPU counted after a minute of work")
			}
		}
	}
	got := w.perRequest(2)
	var us int
	var switches float64
	rest, ok := strings.CutPrefix(got, "the server's threads: ")
	if ok {
		f := strings.Fields(rest) // "N µs of CPU and S switches a request"
		us, _ = strconv.Atoi(f[0])
		switches, _ = strconv.ParseFloat(f[5], 64)
	}
	if !ok || us < 10000 || switches < 2.5 {
		t.Errorf("%q: want at least 10000 µs and 2.5 switches a request (20 ms and 5 sleeps over 2)", got)
	}
	if (&threadWatch{}).perRequest(1) != "" || watchThreads(0).perRequest(1) != "" {
		t.Error("a watch of no process reported a cost")
	}
}
