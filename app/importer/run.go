package importer

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"sync"
	"time"

	"crm/app/auth"
	"crm/app/store"
)

// Batch sizes: rows applied, and changes undone, per transaction (a new runner's
// BatchSize and UndoBatchSize). A batch also moves the
// progress bar and is the most an interrupted import repeats when it resumes. 2,000 rather
// than 500: each commit writes every page the batch changed (with rows in no particular
// order, a page of each index per row or so) and, on SQLite, a new segment of the search
// index to merge later; four times fewer commits took a third off the import of 100,000
// rows (docs/PERFORMANCE.md, "Import of 100,000 realistic rows"). A batch holds SQLite's
// write lock for about half a second.
var (
	BatchSize     = 2000
	UndoBatchSize = 2000
)

// DefaultTidyAfter is a new runner's TidyAfter.
const DefaultTidyAfter = 10000

// Failure message ids kept on an import that stopped.
const (
	errInternal  = "imports.error.internal"
	errForbidden = "imports.error.forbidden"
	errFile      = "imports.error.file"
)

// Runner carries imports out against one database. Build it once with NewRunner and
// share it: the imports it starts and its sweep stop when Close is called.
type Runner struct {
	DB  *store.DB
	Log *slog.Logger
	// Pause is a rest between two batches, so that a large import leaves the database to
	// the people using it (and, in tests, so its progress can be watched on any machine).
	Pause time.Duration
	// AfterBatch, when set, is called after each committed batch of an import or an undo,
	// with the import as it stands (NextRow, Undone): for a measurement's per-batch rate.
	AfterBatch func(im *store.Import)
	// BatchSize and UndoBatchSize are the rows applied, and the changes undone, per
	// transaction: BatchSize and UndoBatchSize unless changed before the runner starts.
	BatchSize, UndoBatchSize int
	// TidyAfter is how many records an import or an undo must have written for the runner
	// to tidy after it (Tidy): a large write leaves SQLite's search index in many segments
	// that every later search reads, and PostgreSQL's statistics behind the table. Smaller
	// writes leave that to FTS5's own merges and to autovacuum. 0: never.
	TidyAfter int

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewRunner is a runner whose background work lasts until Close.
func NewRunner(db *store.DB, log *slog.Logger, pause time.Duration) *Runner {
	ctx, cancel := context.WithCancel(context.Background())
	return &Runner{DB: db, Log: log, Pause: pause, BatchSize: BatchSize, UndoBatchSize: UndoBatchSize,
		TidyAfter: DefaultTidyAfter, ctx: ctx, cancel: cancel}
}

// Close stops the runner's background work and waits for it: an import cut short stays
// running in the database, and the next process's Work resumes it from its last batch.
func (r *Runner) Close() {
	r.cancel()
	r.wg.Wait()
}

// Start runs an import (or its undo) in a goroutine of its own that outlives the request
// which asked for it; Work picks it up again if the process stops first.
func (r *Runner) Start(ref store.ImportRef) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		if err := r.Run(r.ctx, ref); err != nil && r.ctx.Err() == nil {
			r.Log.Error("import", "tenant", ref.TenantID, "import", ref.ID, "err", err)
		}
	}()
}

// Work runs, in the background, queued imports and undos, and resumes those whose runner stopped (a restart,
// a crash), every interval until Close. Several processes may share a database: an
// import has one runner at a time, and one that went quiet for store.ImportStaleAfter is
// taken over from its last committed batch.
func (r *Runner) Work(every time.Duration) {
	r.wg.Add(1) // before the goroutine starts, so a Close right after waits for it
	go func() {
		defer r.wg.Done()
		r.sweep(every)
	}()
}

// sweep is Work's loop.
func (r *Runner) sweep(every time.Duration) {
	ctx, db, log := r.ctx, r.DB, r.Log
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		refs, err := db.ImportsToRun(ctx, time.Now().Add(-store.ImportStaleAfter), 20)
		if err != nil && ctx.Err() == nil {
			log.Warn("import sweep failed", "err", err)
		}
		for _, ref := range refs {
			if err := r.Run(ctx, ref); err != nil && ctx.Err() == nil {
				log.Error("import", "tenant", ref.TenantID, "import", ref.ID, "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func newClaim() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Run claims an import and carries it (or its undo) to the end, batch by batch. Another
// runner's import is left alone. The import's user acts, with their permissions as they
// are now; a user who lost them, or any other failure, ends it as failed — every batch
// before stays applied and recorded, so the import can still be undone. When ctx ends,
// the import is left running, for Work to resume.
func (r *Runner) Run(ctx context.Context, ref store.ImportRef) error {
	return r.Resume(ctx, ref, time.Now().Add(-store.ImportStaleAfter))
}

// Resume is Run that also takes over an import whose runner has committed nothing since
// quietSince, carrying it on from its last committed batch.
func (r *Runner) Resume(ctx context.Context, ref store.ImportRef, quietSince time.Time) error {
	db := r.DB
	im, err := db.ClaimImport(ctx, ref, newClaim(), quietSince)
	if err != nil || im == nil {
		return err
	}
	s := db.System(im.TenantID, im.UserID)
	finish := func(status, msgID string, cause error) error {
		if ctx.Err() != nil || errors.Is(cause, store.ErrImportClaimLost) {
			return cause
		}
		if err := s.FinishImport(context.WithoutCancel(ctx), im, status, msgID); err != nil {
			return errors.Join(cause, err)
		}
		return cause
	}
	u, err := s.User(ctx, im.UserID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return finish(store.ImportFailed, errInternal, err)
	}
	var perms auth.Permissions
	if err == nil && u.Active {
		if perms, err = s.Permissions(ctx, u.RoleID); err != nil {
			return finish(store.ImportFailed, errInternal, err)
		}
	}
	s = s.WithPermissions(perms)
	undo := im.Status == store.ImportUndoing
	if !s.MayImport(im.Entity, im.Mode, undo) {
		status := store.ImportFailed
		if undo {
			status = store.ImportDone // the import stays as it was; the undo did not happen
		}
		return finish(status, errForbidden, nil)
	}
	started := time.Now()
	if undo { // an undo deletes and restores what the delete scope reaches; a run what the import scope does
		err = r.runUndo(ctx, s.For(auth.Delete), im)
	} else {
		err = r.runImport(ctx, s.For(auth.Import), im)
	}
	defer r.tidy(ctx, im, undo)
	switch {
	case err == nil:
		status := store.ImportDone
		if undo {
			status = store.ImportUndone
		}
		r.Log.Info("import finished", "tenant", im.TenantID, "import", im.ID, "undo", undo, "rows", im.NextRow,
			"created", im.Created, "updated", im.Updated, "skipped", im.Skipped, "failed", im.Failed,
			"took", time.Since(started).Round(time.Millisecond))
		return finish(status, "", nil)
	case errors.Is(err, errUnreadable):
		return finish(store.ImportFailed, errFile, err)
	case undo:
		return finish(store.ImportDone, errInternal, err) // what was undone so far stays undone
	default:
		return finish(store.ImportFailed, errInternal, err)
	}
}

var errUnreadable = errors.New("importer: stored file unreadable")

// tidy tidies after a run that wrote r.TidyAfter records or more (Tidy), once the import's
// outcome is recorded: the user sees the import finished while it runs.
func (r *Runner) tidy(ctx context.Context, im *store.Import, undo bool) {
	written := im.Created + im.Updated
	if undo {
		written = im.Undone
	}
	e := store.EntityNamed(im.Entity)
	if r.TidyAfter <= 0 || written < r.TidyAfter || e == nil || ctx.Err() != nil {
		return
	}
	started := time.Now()
	steps, err := r.Tidy(ctx, e)
	if err != nil {
		if ctx.Err() == nil {
			r.Log.Warn("tidy after import", "table", e.Table, "err", err)
		}
		return
	}
	r.Log.Info("tidied after import", "table", e.Table, "search index steps", steps, "took", time.Since(started).Round(time.Millisecond))
}

// Tidy is what a large import or undo of e's records leaves to do: on SQLite the search
// index merged, a short transaction at a time (store.DB.TidySearchIndex); on PostgreSQL the
// planner's statistics of the table gathered again (store.DB.RefreshStatistics), so the
// next import's statements probe their records instead of reading the tenant. It returns
// the search index's merge steps.
func (r *Runner) Tidy(ctx context.Context, e *store.Entity) (int, error) {
	steps, err := r.DB.TidySearchIndex(ctx, e, 0)
	if err != nil {
		return steps, err
	}
	return steps, r.DB.RefreshStatistics(ctx, e)
}

// rest waits r.Pause between batches, or less if ctx ends.
func (r *Runner) rest(ctx context.Context) error {
	if r.Pause <= 0 {
		return nil
	}
	t := time.NewTimer(r.Pause)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (r *Runner) runImport(ctx context.Context, s store.Scope, im *store.Import) error {
	content, err := s.ImportContent(ctx, im.ID)
	if err != nil {
		return err
	}
	rows, err := Open(content, Format{Delimiter: ParseDelimiter(im.Delimiter), Encoding: im.Encoding})
	if err != nil {
		return errors.Join(errUnreadable, err)
	}
	b, err := NewBuilder(ctx, s, im)
	if err != nil {
		return err
	}
	n := 0
	for n < im.NextRow { // resume after the last committed batch
		if _, ok := rows.Next(); !ok {
			break
		}
		n++
	}
	ctx, cancel := context.WithCancel(ctx)
	batches := readBatches(ctx, rows, b, n, r.BatchSize)
	defer func() {
		cancel()
		for range batches { // until the reader has stopped
		}
	}()
	if r.Pause <= 0 && s.CanOverlapBatches() {
		return r.applyOverlapped(ctx, s, im, batches)
	}
	first := true
	for bt := range batches {
		if !first {
			if err := r.rest(ctx); err != nil {
				return err
			}
		}
		first = false
		if _, err := s.ApplyImportBatch(ctx, im, bt.items, bt.next); err != nil {
			return err
		}
		if r.AfterBatch != nil {
			r.AfterBatch(im)
		}
	}
	return ctx.Err()
}

// inFlight is a batch being applied (or undone) while the importer reads and starts the next.
type inFlight struct {
	keys map[string]bool // an import batch's keys
	done chan struct{}   // closed once the batch has committed or failed
	err  error

	// An undo window's records, known once it has read its rows (named closed then).
	ids   map[int64]bool
	named chan struct{}
}

func newInFlight() *inFlight {
	return &inFlight{done: make(chan struct{}), named: make(chan struct{})}
}

// wait waits for the batch to end and gives its error.
func (f *inFlight) wait() error {
	<-f.done
	return f.err
}

// turn is a batch's turn to commit: once the batch before it (when there is one) has
// committed, or errBatchBefore if that one failed.
func turn(before *inFlight) func() error {
	return func() error {
		if before != nil && before.wait() != nil {
			return errBatchBefore
		}
		return nil
	}
}

// errBatchBefore fails a batch whose predecessor failed: it must not commit after a gap.
var errBatchBefore = errors.New("importer: the batch before failed")

// overlap runs the batches start gives, two at a time: start(before, cur) begins batch cur,
// which must not commit before batch before (turn), and returns false when there is no
// batch left. It returns the first error of a batch, once no batch is in flight.
func overlap(start func(before, cur *inFlight) bool) error {
	var prev *inFlight
	for {
		cur := newInFlight()
		if !start(prev, cur) {
			break
		}
		if prev != nil { // two in flight at most: the next is read while cur runs
			if err := prev.wait(); err != nil {
				_ = cur.wait()
				return err
			}
		}
		prev = cur
	}
	if prev != nil {
		return prev.wait()
	}
	return nil
}

// applyOverlapped applies the batches two at a time, each in its own transaction on its own
// database connection (store.Scope.CanOverlapBatches): while one batch's statements run in
// one backend, the next batch's run in another, on the machine's other core, and each
// commits only after the batch before it (store.Scope.ApplyImportBatchInTurn), so the
// import's position only moves forward and a resumed import repeats at most the batches
// that were in flight. A batch that shares a key with the one before waits for its commit
// before it starts, so that it finds the records that batch created or changed.
func (r *Runner) applyOverlapped(ctx context.Context, s store.Scope, im *store.Import, batches <-chan batch) error {
	var failed error // a batch that shared a key waited for one that failed
	err := overlap(func(before, cur *inFlight) bool {
		bt, ok := <-batches
		if !ok {
			return false
		}
		if before != nil && sharesKey(before.keys, bt.items) {
			if failed = before.wait(); failed != nil {
				return false
			}
		}
		cur.keys = keysOf(bt.items)
		go func() {
			defer close(cur.done)
			_, cur.err = s.ApplyImportBatchInTurn(ctx, im, bt.items, bt.next, turn(before))
			if cur.err == nil && r.AfterBatch != nil {
				r.AfterBatch(im)
			}
		}()
		return true
	})
	return cmp.Or(failed, err, ctx.Err())
}

// undoOverlapped undoes the import window by window, two at a time, as applyOverlapped
// applies it (store.Scope.UndoImportWindowInTurn): a window whose changes name a record
// that the window above names too waits for that window's commit before it reads it.
func (r *Runner) undoOverlapped(ctx context.Context, s store.Scope, im *store.Import) error {
	hi, err := s.ImportUndoTop(ctx, im)
	if err != nil {
		return err
	}
	size := min(max(r.UndoBatchSize, 1), store.MaxImportBatch)
	err = overlap(func(before, cur *inFlight) bool {
		if hi <= 0 {
			return false
		}
		lo := max(hi-size, 0)
		go func(lo, hi int) {
			defer close(cur.done)
			named := false
			ready := func(ids []int64) error {
				cur.ids, named = make(map[int64]bool, len(ids)), true
				for _, id := range ids {
					cur.ids[id] = true
				}
				close(cur.named)
				if before == nil {
					return nil
				}
				<-before.named // closed by the time the window above ends, at the latest
				for _, id := range ids {
					if before.ids[id] {
						return turn(before)()
					}
				}
				return nil
			}
			cur.err = s.UndoImportWindowInTurn(ctx, im, lo, hi, ready, turn(before))
			if !named {
				close(cur.named)
			}
			if cur.err == nil && r.AfterBatch != nil {
				r.AfterBatch(im)
			}
		}(lo, hi)
		hi = lo
		return true
	})
	return cmp.Or(err, ctx.Err())
}

// keysOf is the set of the items' keys.
func keysOf(items []store.ImportItem) map[string]bool {
	keys := make(map[string]bool, len(items))
	for _, it := range items {
		if it.Key != "" {
			keys[it.Key] = true
		}
	}
	return keys
}

// sharesKey says whether an item has one of keys.
func sharesKey(keys map[string]bool, items []store.ImportItem) bool {
	for _, it := range items {
		if it.Key != "" && keys[it.Key] {
			return true
		}
	}
	return false
}

// batch is a batch of an import's rows, built, and the row number after its last.
type batch struct {
	items []store.ImportItem
	next  int
}

// readBatches reads the rows after the first n and builds them into batches of size
// in a goroutine of its own, one batch ahead of the batch being applied: reading and
// checking rows (the CSV, the cleaning of cells, the masters by name) runs while the
// database writes the batch before, on a machine's second core. The channel closes after
// the last batch, or when ctx ends.
func readBatches(ctx context.Context, rows *Rows, b *Builder, n, size int) <-chan batch {
	out := make(chan batch) // unbuffered: the reader builds the next batch, no more, while one is applied
	go func() {
		defer close(out)
		items := make([]store.ImportItem, 0, size)
		send := func() bool {
			select {
			case out <- batch{items, n}:
				items = make([]store.ImportItem, 0, size)
				return true
			case <-ctx.Done():
				return false
			}
		}
		for {
			row, ok := rows.Next()
			if !ok {
				break
			}
			n++
			items = append(items, b.Item(row))
			if len(items) == size && !send() {
				return
			}
		}
		if len(items) > 0 {
			send()
		}
	}()
	return out
}

func (r *Runner) runUndo(ctx context.Context, s store.Scope, im *store.Import) error {
	if r.Pause <= 0 && s.CanOverlapBatches() {
		return r.undoOverlapped(ctx, s, im)
	}
	for {
		more, err := s.UndoImportBatch(ctx, im, r.UndoBatchSize)
		if err == nil && r.AfterBatch != nil {
			r.AfterBatch(im)
		}
		if err != nil || !more {
			return err
		}
		if err := r.rest(ctx); err != nil {
			return err
		}
	}
}
