package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// What the server's threads spent: its CPU and how often its threads were switched in,
// read from Linux's /proc around a comparison. Outside its SQL, a request over HTTP on a VM
// costs mostly thread wake-ups (docs/PERFORMANCE.md, "Thirty-third round": about 13 thread
// switches a lead view on PostgreSQL), and this shows them in every run.

// threadCost is a process's CPU time and thread switches so far, summed over its threads.
type threadCost struct {
	cpu      time.Duration
	switches int64
}

// readThreadCost sums the threads of the process whose /proc folder is dir (e.g.
// "/proc/1234"): the CPU of each from its schedstat (nanoseconds, exact where stat counts
// in ticks of 10 ms) and its switches, voluntary and not, from its status. A thread that
// ended between two readings takes its counts with it, so the difference of two readings
// can only be too low; the server's threads live as long as it does.
func readThreadCost(dir string) (threadCost, error) {
	tasks, err := os.ReadDir(filepath.Join(dir, "task"))
	if err != nil {
		return threadCost{}, err
	}
	var c threadCost
	for _, t := range tasks {
		td := filepath.Join(dir, "task", t.Name())
		sched, err := os.ReadFile(filepath.Join(td, "schedstat"))
		if err != nil {
			if os.IsNotExist(err) {
				continue // the thread ended while we read
			}
			return threadCost{}, err
		}
		f := strings.Fields(string(sched))
		if len(f) < 1 {
			return threadCost{}, fmt.Errorf("%s/schedstat: %q", td, sched)
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return threadCost{}, fmt.Errorf("%s/schedstat: %w", td, err)
		}
		c.cpu += time.Duration(ns)
		status, err := os.ReadFile(filepath.Join(td, "status"))
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return threadCost{}, err
		}
		for line := range strings.Lines(string(status)) {
			name, value, ok := strings.Cut(line, ":")
			if !ok || (name != "voluntary_ctxt_switches" && name != "nonvoluntary_ctxt_switches") {
				continue
			}
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil {
				return threadCost{}, fmt.Errorf("%s/status: %s: %w", td, name, err)
			}
			c.switches += n
		}
	}
	return c, nil
}

// threadWatch reads a process's threadCost before and after some requests.
type threadWatch struct {
	dir    string // the process's /proc folder, "" when it is not watched
	before threadCost
	ok     bool
}

// watchThreads starts a watch of the process pid; on a system without /proc (or a pid of
// 0) the watch reports nothing rather than failing the bench.
func watchThreads(pid int) *threadWatch {
	w := &threadWatch{}
	if pid <= 0 {
		return w
	}
	w.dir = filepath.Join("/proc", strconv.Itoa(pid))
	w.before, w.ok = readOK(w.dir)
	return w
}

func readOK(dir string) (threadCost, bool) {
	c, err := readThreadCost(dir)
	return c, err == nil
}

// perRequest is the watched process's CPU and switches since the watch began, divided
// among n requests, as a phrase for a figure's row ("" when not measured).
func (w *threadWatch) perRequest(n int) string {
	if !w.ok || n <= 0 {
		return ""
	}
	after, ok := readOK(w.dir)
	if !ok {
		return ""
	}
	return costPhrase(after.cpu-w.before.cpu, after.switches-w.before.switches, n)
}

// costPhrase is a process's CPU and thread switches over n requests, each request's share.
func costPhrase(cpu time.Duration, switches int64, n int) string {
	return fmt.Sprintf("the server's threads: %d µs of CPU and %.1f switches a request",
		(cpu / time.Duration(n)).Microseconds(), float64(switches)/float64(n))
}
