package importer

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"math"
	"slices"
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

// Window is how many rows of a file a new runner reads and orders together (its Window):
// rows are applied, and undone, a window at a time in the order of the records they change,
// not in file order (store.ImportPlaces), so each batch changes neighbouring records. A
// file in no particular order otherwise has every batch rewrite pages all over the table and
// its indexes: the update of 100,000 shuffled rows took 26–29 s on SQLite a batch at a time,
// 19–22 s in windows of 20,000, and its undo 26–29 s against 18–19 s (docs/PERFORMANCE.md,
// "Twentieth round"). A larger window puts a batch's records closer together but holds more
// rows in memory: 20,000 built rows take about 30 MB, and the runner holds two windows (the
// one applied, the next read).
var Window = 20000

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
	// with the import as it stands (Processed, Undone): for a measurement's per-batch rate.
	AfterBatch func(im *store.Import)
	// BatchSize and UndoBatchSize are the rows applied, and the changes undone, per
	// transaction: BatchSize and UndoBatchSize unless changed before the runner starts.
	BatchSize, UndoBatchSize int
	// Window is how many rows are read and ordered together: Window unless changed before the
	// runner starts.
	Window int
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
		Window: Window, TidyAfter: DefaultTidyAfter, ctx: ctx, cancel: cancel}
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
		r.Log.Info("import finished", "tenant", im.TenantID, "import", im.ID, "undo", undo, "rows", im.Processed(),
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
	steps, err := r.Tidy(ctx, im.TenantID, e)
	if err != nil {
		if ctx.Err() == nil {
			r.Log.Warn("tidy after import", "table", e.Table, "err", err)
		}
		return
	}
	r.Log.Info("tidied after import", "table", e.Table, "search index steps", steps, "took", time.Since(started).Round(time.Millisecond))
}

// Tidy is what a large import or undo of e's records in a tenant leaves to do: on SQLite
// the search index merged, a short transaction at a time (store.DB.TidySearchIndex); on
// PostgreSQL the planner's statistics of the table gathered again
// (store.DB.RefreshStatistics), so the next import's statements probe their records
// instead of reading the tenant; on both the tenant's counters that count nothing dropped
// (store.DB.DropEmptyCounters). It returns the search index's merge steps.
func (r *Runner) Tidy(ctx context.Context, tenantID int64, e *store.Entity) (int, error) {
	steps, err := r.DB.TidySearchIndex(ctx, e, 0)
	if err != nil {
		return steps, err
	}
	if err := r.DB.RefreshStatistics(ctx, e); err != nil {
		return steps, err
	}
	_, err = r.DB.DropEmptyCounters(ctx, tenantID)
	return steps, err
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
	for n < im.NextRow { // resume after the last committed window
		if _, ok := rows.Next(); !ok {
			break
		}
		n++
	}
	// The rows of the window in progress that a committed batch did (row numbers count the
	// header as row 1).
	done, err := s.ImportedRows(ctx, im, n+2)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	batches := readBatches(ctx, rows, b, reading{n: n, size: r.BatchSize, window: r.Window, done: done,
		order: func(ctx context.Context, items []store.ImportItem) error { return orderWindow(ctx, s, im, items) }})
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
		if bt.err != nil {
			return bt.err
		}
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
	keys  map[string]bool // an import batch's keys
	began chan struct{}   // closed once the batch's transaction holds its connection
	done  chan struct{}   // closed once the batch has committed or failed
	err   error
	once  sync.Once

	// An undo window's records, known once it has read its rows (named closed then).
	ids   map[int64]bool
	named chan struct{}
}

func newInFlight() *inFlight {
	return &inFlight{began: make(chan struct{}), done: make(chan struct{}), named: make(chan struct{})}
}

// afterBegun waits until the batch before (when there is one) holds its connection, or has
// ended: a batch asks for a connection only then (store.Turn.Began).
func afterBegun(before *inFlight) {
	if before != nil {
		select {
		case <-before.began:
		case <-before.done:
		}
	}
}

// wait waits for the batch to end and gives its error.
func (f *inFlight) wait() error {
	<-f.done
	return f.err
}

// turn is batch cur's place after the batch before it: it tells when cur's transaction has
// begun, and cur's turn to commit comes once the batch before (when there is one) has
// committed, or with errBatchBefore if that one failed.
func turn(before, cur *inFlight) *store.Turn {
	return &store.Turn{
		Began: func() { cur.once.Do(func() { close(cur.began) }) },
		Wait:  waitFor(before),
	}
}

// waitFor returns once the batch before (when there is one) has committed, or
// errBatchBefore if that one failed.
func waitFor(before *inFlight) func() error {
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
	var failed error // the reader's, or that of a batch a batch sharing a key waited for
	err := overlap(func(before, cur *inFlight) bool {
		bt, ok := <-batches
		if !ok {
			return false
		}
		if bt.err != nil {
			failed = bt.err
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
			afterBegun(before)
			_, cur.err = s.ApplyImportBatchInTurn(ctx, im, bt.items, bt.next, turn(before, cur))
			if cur.err == nil && r.AfterBatch != nil {
				r.AfterBatch(im)
			}
		}()
		return true
	})
	return cmp.Or(failed, err, ctx.Err())
}

// undoOverlapped undoes the import group by group (undoGroups), two at a time, as
// applyOverlapped applies it (store.Scope.UndoImportRowsInTurn): a group whose changes name a
// record that the group before names too waits for that group's commit before it reads it.
func (r *Runner) undoOverlapped(ctx context.Context, s store.Scope, im *store.Import, groups *undoGroups) error {
	var failed error // reading the next window's groups
	err := overlap(func(before, cur *inFlight) bool {
		g, ok, err := groups.next(ctx)
		if err != nil || !ok {
			failed = err
			return false
		}
		go func() {
			defer close(cur.done)
			afterBegun(before)
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
				<-before.named // closed by the time the group before ends, at the latest
				for _, id := range ids {
					if before.ids[id] {
						return waitFor(before)()
					}
				}
				return nil
			}
			cur.err = s.UndoImportRowsInTurn(ctx, im, g, ready, turn(before, cur))
			if !named {
				close(cur.named)
			}
			if cur.err == nil && r.AfterBatch != nil {
				r.AfterBatch(im)
			}
		}()
		return true
	})
	return cmp.Or(failed, err, ctx.Err())
}

// undoGroups gives an undo's groups of changes (store.Scope.ImportUndoGroups), latest window
// of rows first, each window's groups in the order of the records they change. Every change
// of a record within a window is in one group, and a record changed in two windows is
// reverted in the later window first: its changes are undone latest first.
type undoGroups struct {
	s            store.Scope
	im           *store.Import
	hi           int // the top of the next window; 0 when there is none
	window, size int
	groups       []store.UndoGroup
}

func (u *undoGroups) next(ctx context.Context) (store.UndoGroup, bool, error) {
	for len(u.groups) == 0 {
		if u.hi <= 0 {
			return store.UndoGroup{}, false, nil
		}
		lo := max(u.hi-u.window, 0)
		var err error
		if u.groups, err = u.s.ImportUndoGroups(ctx, u.im, lo, u.hi, u.size); err != nil {
			return store.UndoGroup{}, false, err
		}
		u.hi = lo
	}
	g := u.groups[0]
	u.groups = u.groups[1:]
	return g, true, nil
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

// batch is a batch of an import's rows, built, and the import's position once it has
// committed: the row number after its window's last when it is the window's last batch,
// else the window's start (the rows of a window are done in another order than the file's).
// err is the reader's, which ends the import.
type batch struct {
	items []store.ImportItem
	next  int
	err   error
}

// reading is what readBatches reads: the rows after the first n (the import's position),
// passing over the rows in done (done by a batch of the window in progress when the import
// stopped), window rows at a time, each window put in order and sent in batches of size.
type reading struct {
	n, size, window int
	done            map[int]bool
	order           func(ctx context.Context, items []store.ImportItem) error
}

// readBatches reads and builds the rows (the CSV, the cleaning of cells, the masters by
// name) in a goroutine of its own, a window ahead of the one being applied, and orders each
// window in another, so both run while the database writes, on a machine's second core.
// The channel closes after the last batch, after an error, or when ctx ends.
func readBatches(ctx context.Context, rows *Rows, b *Builder, rd reading) <-chan batch {
	type window struct {
		items      []store.ImportItem
		start, end int
	}
	windows := make(chan window) // unbuffered: two windows in memory at most, the one applied and the next
	go func() {
		defer close(windows)
		n := rd.n
		for {
			w := window{start: n, items: make([]store.ImportItem, 0, min(rd.window, 4*rd.size))}
			for n-w.start < max(rd.window, rd.size) {
				row, ok := rows.Next()
				if !ok {
					break
				}
				n++
				if !rd.done[row.No] {
					w.items = append(w.items, b.Item(row))
				}
			}
			if n == w.start {
				return
			}
			w.end = n
			select {
			case windows <- w:
			case <-ctx.Done():
				return
			}
		}
	}()
	out := make(chan batch) // unbuffered: the next batch is ready, no more, while one is applied
	go func() {
		defer close(out)
		send := func(bt batch) bool {
			select {
			case out <- bt:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for w := range windows {
			if err := rd.order(ctx, w.items); err != nil {
				send(batch{err: err})
				return
			}
			// a window whose rows were all done still moves the position, with no rows
			for i := 0; i == 0 || i < len(w.items); i += rd.size {
				j := min(i+rd.size, len(w.items))
				next := w.start
				if j == len(w.items) {
					next = w.end
				}
				if !send(batch{items: w.items[i:j:j], next: next}) {
					return
				}
			}
		}
	}()
	return out
}

// orderWindow puts a window's items in the order of the records their keys reach now
// (store.ImportPlaces), the rows that reach none after them. The sort is stable, and rows
// with the same key reach the same record, so they keep their file order: a row still
// sees what the rows above it with its key did, whatever batch each lands in.
func orderWindow(ctx context.Context, s store.Scope, im *store.Import, items []store.ImportItem) error {
	seen := make(map[string]bool, len(items))
	var keys []string
	for _, it := range items {
		if it.Key != "" && !seen[it.Key] {
			seen[it.Key] = true
			keys = append(keys, it.Key)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	places, err := s.ImportPlaces(ctx, im, keys)
	if err != nil || len(places) == 0 {
		return err
	}
	place := make([]int64, len(items))
	order := make([]int, len(items))
	for i, it := range items {
		place[i], order[i] = math.MaxInt64, i
		if id, ok := places[it.Key]; ok { // no key is "": it never reaches a record
			place[i] = id
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(place[a], place[b]) })
	sorted := make([]store.ImportItem, len(items))
	for i, j := range order {
		sorted[i] = items[j]
	}
	copy(items, sorted)
	return nil
}

func (r *Runner) runUndo(ctx context.Context, s store.Scope, im *store.Import) error {
	hi, err := s.ImportUndoTop(ctx, im)
	if err != nil {
		return err
	}
	size := min(max(r.UndoBatchSize, 1), store.MaxImportBatch)
	groups := &undoGroups{s: s, im: im, hi: hi, window: max(r.Window, size), size: size}
	if r.Pause <= 0 && s.CanOverlapBatches() {
		return r.undoOverlapped(ctx, s, im, groups)
	}
	for first := true; ; first = false {
		g, ok, err := groups.next(ctx)
		if err != nil || !ok {
			return err
		}
		if !first {
			if err := r.rest(ctx); err != nil {
				return err
			}
		}
		if err := s.UndoImportRowsInTurn(ctx, im, g, nil, nil); err != nil {
			return err
		}
		if r.AfterBatch != nil {
			r.AfterBatch(im)
		}
	}
}
