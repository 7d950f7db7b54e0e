package store

import (
	"context"
	"database/sql"
	"sync"
)

// walBackfill copies a SQLite database's write-ahead log into the database file on a
// connection of its own, in the background, while the writer goes on (a PASSIVE
// checkpoint: it never waits for the writer or the readers, nor they for it). An import's
// batches ask for it after each commit (importTx), so the log is copied a batch at a time
// on the core the single writer leaves idle, instead of gigabytes at once inside whichever
// batch's commit crosses wal_autocheckpoint. Readers look up a page in the log only among
// the frames not yet copied, so a log copied as it grows stays as quick to read as a short
// one.
type walBackfill struct {
	db *sql.DB

	mu      sync.Mutex
	running bool // a goroutine is copying
	again   bool // asked again while it copied: it copies once more before it stops
	closed  bool
	done    sync.WaitGroup
}

// soon has the log copied once more, after the copy under way if there is one.
func (w *walBackfill) soon() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if w.running {
		w.again = true
		return
	}
	w.running = true
	w.done.Add(1)
	go w.run()
}

func (w *walBackfill) run() {
	defer w.done.Done()
	for {
		// An error (the file busy, the database closing) leaves the copy to the next
		// request or to SQLite's own automatic checkpoint.
		_, _ = w.db.ExecContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)")
		w.mu.Lock()
		if !w.again || w.closed {
			w.running = false
			w.mu.Unlock()
			return
		}
		w.again = false
		w.mu.Unlock()
	}
}

// close waits for the copy under way and refuses further requests.
func (w *walBackfill) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.done.Wait()
}
