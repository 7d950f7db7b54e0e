package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"crm/app/validate"
)

// BatchCounts are the outcomes of one batch.
type BatchCounts struct{ Created, Updated, Skipped, Failed int }

func (c *BatchCounts) add(outcome string) {
	switch outcome {
	case OutcomeCreated:
		c.Created++
	case OutcomeUpdated:
		c.Updated++
	case OutcomeSkipped:
		c.Skipped++
	case OutcomeFailed:
		c.Failed++
	}
}

// ApplyImportBatch applies a batch of rows of a claimed, running import in one
// transaction, all or nothing: each row validated by the store's rules (LeadInput and
// ClientInput validation, and the create rules of CreateLead and CreateClient, or
// UpdateLead and UpdateClient for a row that updates), with its journey entries; each
// row's outcome recorded; the import's counts and position moved to nextRow. Rows are
// applied in file order, so a row sees what earlier rows (of this batch or an earlier one)
// did.
//
// The batch is written set by set, which is what lets 100,000 rows import in well under a
// minute: new records in one multi-row INSERT (a row that matches a record still waiting
// in the batch has the batch's creates written first); updated records, once every row is
// applied, with one UPDATE per group of records that change the same columns, writing only
// the columns that change (see updateByID); the journey entries of either in one INSERT.
func (s Scope) ApplyImportBatch(ctx context.Context, im *Import, items []ImportItem, nextRow int) (BatchCounts, error) {
	return s.ApplyImportBatchInTurn(ctx, im, items, nextRow, nil)
}

// Turn is how a batch that may run while the batch before it is in flight keeps its place
// (ApplyImportBatchInTurn, UndoImportRowsInTurn).
type Turn struct {
	// Began, when not nil, is called once the batch's transaction holds its connection
	// (again if the transaction is tried again). The caller starts the next batch only then:
	// a batch that took a connection before the one before it had one would hold it while
	// waiting for a commit that waits for a connection, and with as many imports as the
	// pool has connections none would be left.
	Began func()
	// Wait returns when the batch may commit: once the batch before has committed, or with
	// that batch's error, which fails this one too.
	Wait func() error
}

// began tells t's caller that the batch's transaction has begun.
func (t *Turn) began() {
	if t != nil && t.Began != nil {
		t.Began()
	}
}

// wait is t.Wait, nil for a batch on its own.
func (t *Turn) wait() error {
	if t == nil || t.Wait == nil {
		return nil
	}
	return t.Wait()
}

// ApplyImportBatchInTurn is ApplyImportBatch for a batch that may start while the batch
// before it is still in flight, in a transaction of its own (CanOverlapBatches): it does
// not hold the import from its start, which would wait for that batch's commit, and it
// waits for its turn (Turn), when not nil, once its rows are applied and before it records
// its position, adds up its counters and commits. A batch in flight does not see the records
// the batch before creates: the caller starts it only when no row of the two shares a key.
func (s Scope) ApplyImportBatchInTurn(ctx context.Context, im *Import, items []ImportItem, nextRow int, turn *Turn) (BatchCounts, error) {
	kind, ok := importKinds[im.Entity]
	if !ok {
		return BatchCounts{}, fmt.Errorf("store: %q is not importable", im.Entity)
	}
	var counts BatchCounts
	err := s.importTx(ctx, kind.table(), func(tx Scope) error {
		turn.began()
		counts = BatchCounts{}
		if turn == nil {
			if err := tx.holdImport(ctx, im, ImportRunning); err != nil {
				return err
			}
		}
		rows, err := kind.applyRows(ctx, tx, im, items)
		if err != nil {
			return err
		}
		for _, r := range rows {
			counts.add(r.Outcome)
		}
		if err := tx.insertImportRows(ctx, rows); err != nil {
			return err
		}
		if err := turn.wait(); err != nil {
			return err
		}
		res, err := tx.Update((*Import)(nil)).Set("next_row = ?", nextRow).
			Set("created_count = created_count + ?", counts.Created).Set("updated_count = updated_count + ?", counts.Updated).
			Set("skipped_count = skipped_count + ?", counts.Skipped).Set("failed_count = failed_count + ?", counts.Failed).
			Set("heartbeat_at = ?", s.now()).Set("updated_at = ?", s.now()).
			Where("id = ? AND claim = ? AND status = ?", im.ID, im.Claim, ImportRunning).Exec(ctx)
		return oneRow(res, err, ErrImportClaimLost)
	})
	if err != nil {
		return BatchCounts{}, err
	}
	im.NextRow = nextRow
	im.Created += counts.Created
	im.Updated += counts.Updated
	im.Skipped += counts.Skipped
	im.Failed += counts.Failed
	return counts, nil
}

// CanOverlapBatches says whether two batches of an import may be in flight at once, each in
// a transaction of its own (ApplyImportBatchInTurn): on PostgreSQL, whose backend applies a
// batch on one core while the importer's other core would wait. SQLite has one writer.
func (s Scope) CanOverlapBatches() bool { return s.Dialect() == Postgres }

// batchApplier applies the rows of one batch of an import of R inside its transaction.
type batchApplier[R any] struct {
	ad      *importAdapter[R]
	tx      Scope
	im      *Import
	match   map[string][]int64 // key → ids of the reachable records that have it
	records map[int64]*R       // the matched (and created) records as they are now
	rows    []importRow
	refs    *refSet // the tenant's masters and users, read once per batch

	// Creates waiting for the batch's insert: the records, their rows' indexes in rows
	// and their keys.
	pending     []*R
	pendingRows []int
	pendingKeys map[string]bool

	// Updates waiting for the batch's end: each updated record as it was before the
	// batch's first change of it (its state now is in records), in the order first
	// changed, and the journey entries of the changes.
	updated    map[int64]*R
	updatedIDs []int64
	entries    []AuditEntry
}

func (ad *importAdapter[R]) applyRows(ctx context.Context, tx Scope, im *Import, items []ImportItem) ([]importRow, error) {
	a := &batchApplier[R]{ad: ad, tx: tx, im: im, match: map[string][]int64{}, records: map[int64]*R{},
		pendingKeys: map[string]bool{}, rows: make([]importRow, 0, len(items)), updated: map[int64]*R{}}
	if err := a.lookup(ctx, items); err != nil {
		return nil, err
	}
	var err error
	if a.refs, err = tx.loadRefs(ctx); err != nil {
		return nil, err
	}
	for i := range items {
		if k := items[i].Key; k != "" && a.pendingKeys[k] {
			if err := a.flush(ctx); err != nil {
				return nil, err
			}
		}
		r, err := a.apply(ctx, &items[i])
		if err != nil {
			return nil, err
		}
		a.rows = append(a.rows, r)
	}
	if err := a.flush(ctx); err != nil {
		return nil, err
	}
	if err := a.writeUpdates(ctx); err != nil {
		return nil, err
	}
	return a.rows, nil
}

// lookup loads the reachable records whose key a row of the batch has.
func (a *batchApplier[R]) lookup(ctx context.Context, items []ImportItem) error {
	seen := map[string]bool{}
	var keys []string
	for _, it := range items {
		if it.Reason == nil && it.Key != "" && !seen[it.Key] {
			seen[it.Key] = true
			keys = append(keys, it.Key)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	e := a.ad.entity
	var recs []R
	col := e.Alias + "." + a.ad.keyField(a.im.MatchKey)
	// One statement for the batch's keys. A lookup per key (LATERAL) was tried on PostgreSQL,
	// whose statistics of a tenant lag behind a large import (the application role, which
	// owns no table, never refreshes them): believing the tenant a row or two, the planner
	// then served each key from the smallest index led by tenant_id and filtered the
	// tenant's rows for it — a read of the whole tenant per key, minutes a batch. Asked all
	// at once, the worst such plan reads the tenant once a batch.
	if err := keysQuery(a.tx, e, &recs, col, keys).Scan(ctx); err != nil {
		// No ORDER BY: SQLite would walk the tenant's every row by id to avoid a sort,
		// instead of looking the keys up in their index.
		return err
	}
	slices.SortFunc(recs, func(x, y R) int { return cmp.Compare(*a.ad.record(&x).id, *a.ad.record(&y).id) })
	for i := range recs {
		r := &recs[i]
		id := *a.ad.record(r).id
		k := a.ad.key(r, a.im.MatchKey)
		a.match[k] = append(a.match[k], id)
		a.records[id] = r
	}
	return nil
}

// keysQuery selects into dst the records the scope reaches whose column col has one of keys.
func keysQuery(s Scope, e *Entity, dst any, col string, keys []string) *bun.SelectQuery {
	return s.reachBatch(e, dst).Where(col+" IN (?)", bun.In(keys))
}

// apply does one row and says what happened; an error other than the row's own refusal
// fails the batch.
func (a *batchApplier[R]) apply(ctx context.Context, it *ImportItem) (importRow, error) {
	row := importRow{ImportID: a.im.ID, RowNo: it.Row}
	if it.Reason != nil {
		row.Outcome, row.Reason = OutcomeFailed, it.Reason
		return row, nil
	}
	var ids []int64
	if it.Key != "" {
		ids = a.match[it.Key]
	}
	switch {
	case len(ids) > 1 && a.im.Mode != ModeCreate:
		row.Outcome, row.Reason = OutcomeFailed, &RowReason{Code: ReasonAmbiguous, Count: len(ids)}
		return row, nil
	case a.im.Mode == ModeCreate && len(ids) > 0:
		row.Outcome, row.Reason = OutcomeSkipped, &RowReason{Code: ReasonDuplicate, ID: ids[0]}
		return row, nil
	case a.im.Mode == ModeUpdate && it.Key == "":
		row.Outcome, row.Reason = OutcomeSkipped, &RowReason{Code: ReasonNoKey}
		return row, nil
	case a.im.Mode == ModeUpdate && len(ids) == 0:
		row.Outcome, row.Reason = OutcomeSkipped, &RowReason{Code: ReasonNotFound}
		return row, nil
	case len(ids) == 1:
		return a.update(ctx, it, ids[0], row)
	}
	return a.create(it, row)
}

// refused turns a validation error into the row's failure; other errors fail the batch.
func refused(row importRow, err error) (importRow, error) {
	var ve validate.Errors
	if errors.As(err, &ve) {
		row.Outcome, row.Reason = OutcomeFailed, &RowReason{Code: ReasonInvalid, Errors: ve}
		return row, nil
	}
	return row, err
}

// create checks a new record by the create rules and queues it for the batch's insert.
func (a *batchApplier[R]) create(it *ImportItem, row importRow) (importRow, error) {
	r, err := a.ad.create(a.tx, a.refs, it)
	if err != nil {
		return refused(row, err)
	}
	a.pending = append(a.pending, r)
	a.pendingRows = append(a.pendingRows, len(a.rows))
	if it.Key != "" {
		a.pendingKeys[it.Key] = true
	}
	row.Outcome = OutcomeCreated
	return row, nil
}

// insertReturn is what an insert gives back of each new record.
type insertReturn struct {
	ID        int64     `bun:"id"`
	CreatedAt time.Time `bun:"created_at"`
	UpdatedAt time.Time `bun:"updated_at"`
}

// flush inserts the waiting creates in one statement, and their journey entries in
// another, as CreateLead and CreateClient record them.
func (a *batchApplier[R]) flush(ctx context.Context) error {
	n := len(a.pendingRows)
	if n == 0 {
		return nil
	}
	var ret []insertReturn
	if err := insertApart(ctx, a.tx, a.pending, "id, created_at, updated_at", &ret); err != nil {
		return err
	}
	if len(ret) != n {
		return errors.New("store: import insert returned a different number of rows")
	}
	// Ids are given in insert order on both engines; the order of returned rows is not promised.
	slices.SortFunc(ret, func(x, y insertReturn) int { return cmp.Compare(x.ID, y.ID) })
	actor := a.tx.actor()
	entries := make([]AuditEntry, 0, n)
	for i, r := range a.pending {
		f := a.ad.record(r)
		*f.id = ret[i].ID
		if f.createdAt.IsZero() {
			*f.createdAt = ret[i].CreatedAt
		}
		*f.updatedAt = ret[i].UpdatedAt
		a.records[*f.id] = r
		js, err := jsonOrNil(r)
		if err != nil {
			return err
		}
		entries = append(entries, AuditEntry{ActorUserID: actor, Entity: a.ad.entity.Name, EntityID: *f.id, Action: "create", After: js})
	}
	if err := a.tx.insertJourney(ctx, entries); err != nil {
		return err
	}
	for i, at := range a.pendingRows {
		r := a.pending[i]
		id := *a.ad.record(r).id
		a.rows[at].EntityID = &id
		if k := a.ad.key(r, a.im.MatchKey); k != "" {
			a.match[k] = append(a.match[k], id)
		}
	}
	a.pending, a.pendingRows = a.pending[:0], a.pendingRows[:0]
	clear(a.pendingKeys)
	return nil
}
