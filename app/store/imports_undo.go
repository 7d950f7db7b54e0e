package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/uptrace/bun"
)

// UndoImportBatch reverts up to limit of the changes of a claimed import that is being
// undone, latest row first, in one transaction: a record the import created is deleted, a
// record it updated gets its before-values back, each with the journey entries DeleteLead,
// DeleteClient and the edits record (the delete or update, and an "import_undo" entry
// naming the import). A record deleted since is passed over. It reports whether changes
// remain.
//
// The batch is worked out in memory, row by row as the edits would do it, then written set
// by set: the restored records with updateByID (only the columns that change), the
// created ones with one DELETE per batch, the journey entries with one INSERT.
//
// A batch takes the rows of a window of limit row numbers, the one below the rows undone
// already (found once per runner), so that each batch reads its own rows only, whatever
// the planner believes of an import too new for its statistics; a window may hold fewer
// changes than limit, or none.
func (s Scope) UndoImportBatch(ctx context.Context, im *Import, limit int) (bool, error) {
	limit = min(max(limit, 1), MaxImportBatch)
	hi := im.undoBelow
	if hi == 0 {
		var err error
		if hi, err = s.ImportUndoTop(ctx, im); err != nil || hi == 0 {
			return false, err // nothing left to undo
		}
	}
	lo := max(hi-limit, 0)
	window := UndoGroup{Rows: make([]int, 0, hi-lo)}
	for n := lo; n < hi; n++ {
		window.Rows = append(window.Rows, n)
	}
	if err := s.UndoImportRowsInTurn(ctx, im, window, nil, nil); err != nil {
		return false, err
	}
	im.undoBelow = lo
	return lo > 0, nil
}

// ImportUndoTop is the row number after the import's last change not yet undone, the top
// of the first window of its undo; 0 when nothing is left to undo.
func (s Scope) ImportUndoTop(ctx context.Context, im *Import) (int, error) {
	var top sql.NullInt64
	if err := undoable(s.Select((*importRow)(nil)).ColumnExpr("MAX(ir.row_no)"), im).Scan(ctx, &top); err != nil || !top.Valid {
		return 0, err
	}
	return int(top.Int64) + 1, nil
}

// undoable narrows q to the import's changes not yet undone.
func undoable(q *bun.SelectQuery, im *Import) *bun.SelectQuery {
	return q.Where("ir.import_id = ? AND ir.outcome IN (?) AND NOT ir.undone", im.ID,
		bun.In([]string{OutcomeCreated, OutcomeUpdated}))
}

// UndoImportRowsInTurn reverts, in one transaction, the changes not yet undone of a group
// of rows (ImportUndoGroups, or a window of row numbers) of a claimed import that is being
// undone, and may run while the group before it is still in flight (CanOverlapBatches).
// When ready is not nil, it is told the records the group's changes name before they are
// read, and may wait (for the group before to commit, when it names one of them) or fail
// the group; when turn is not nil, the group does not hold the import from its start and
// waits for its turn before it records what it undid and commits (see
// ApplyImportBatchInTurn). A group with nothing left to undo writes nothing, once its turn
// has come.
func (s Scope) UndoImportRowsInTurn(ctx context.Context, im *Import, g UndoGroup, ready func(ids []int64) error, turn *Turn) error {
	kind, ok := importKinds[im.Entity]
	if !ok {
		return fmt.Errorf("store: %q is not importable", im.Entity)
	}
	undone := 0
	err := s.importTx(ctx, kind.table(), func(tx Scope) error {
		turn.began()
		undone = 0
		if turn == nil {
			if err := tx.holdImport(ctx, im, ImportUndoing); err != nil {
				return err
			}
		}
		var rows []importRow
		cond, args := rowNosIn(g.Rows)
		if err := undoable(tx.Select(&rows), im).Where(cond, args...).OrderExpr("ir.row_no DESC").Scan(ctx); err != nil {
			return err
		}
		if ready != nil {
			if err := ready(entityIDs(rows)); err != nil {
				return err
			}
		}
		if len(rows) == 0 { // nothing to write, but still not done before the group before
			return turn.wait()
		}
		if err := kind.undoRows(ctx, tx, im, rows); err != nil {
			return err
		}
		rowNos := make([]int, 0, len(rows))
		for _, r := range rows {
			rowNos = append(rowNos, r.RowNo)
		}
		cond, args = rowNosIn(rowNos)
		if _, err := tx.Update((*importRow)(nil)).Set("undone = ?", true).Where("ir.import_id = ?", im.ID).
			Where(cond, args...).Exec(ctx); err != nil {
			return err
		}
		if err := turn.wait(); err != nil {
			return err
		}
		res, err := tx.Update((*Import)(nil)).Set("undone_count = undone_count + ?", len(rows)).
			Set("heartbeat_at = ?", s.now()).Set("updated_at = ?", s.now()).
			Where("id = ? AND claim = ? AND status = ?", im.ID, im.Claim, ImportUndoing).Exec(ctx)
		if err := oneRow(res, err, ErrImportClaimLost); err != nil {
			return err
		}
		undone = len(rows)
		return nil
	})
	if err == nil && undone > 0 { // after turn: in the windows' order
		im.Undone += undone
	}
	return err
}

// entityIDs are the records the rows name, each once.
func entityIDs(rows []importRow) []int64 {
	ids := make([]int64, 0, len(rows))
	seen := make(map[int64]bool, len(rows))
	for _, r := range rows {
		if r.EntityID != nil && !seen[*r.EntityID] {
			seen[*r.EntityID] = true
			ids = append(ids, *r.EntityID)
		}
	}
	return ids
}

// batchUndo reverts the rows of one undo batch of an import of R inside its transaction.
type batchUndo[R any] struct {
	ad   *importAdapter[R]
	tx   Scope
	im   *Import
	refs *refSet
	// reaches is reach's rule in memory for the records read.
	reaches reacher

	// The reachable records the batch's rows name, as the rows so far have left them, and,
	// for those restored, as they were before the batch, in the order first restored.
	records      map[int64]*R
	orig         map[int64]*R
	restoredIDs  []int64
	deletes      []importRow // created rows, latest first
	restores     []AuditEntry
	undoneRows   []AuditEntry // "import_undo" of each row reverted, latest first
	deleteRecord map[int64]bool
}

func (ad *importAdapter[R]) undoRows(ctx context.Context, tx Scope, im *Import, rows []importRow) error {
	u, err := newBatchUndo(ctx, tx, ad, im, rows)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if r.EntityID == nil {
			continue
		}
		if err := u.row(ctx, r); err != nil {
			return err
		}
	}
	return u.write(ctx)
}

// newBatchUndo reads what the batch's rows check and change: the tenant's masters and users,
// and the records the rows name that the scope may reach.
func newBatchUndo[R any](ctx context.Context, s Scope, ad *importAdapter[R], im *Import, rows []importRow) (*batchUndo[R], error) {
	refs, err := s.loadRefs(ctx)
	if err != nil {
		return nil, err
	}
	reaches, err := s.reacher(ctx, ad.entity)
	if err != nil {
		return nil, err
	}
	u := &batchUndo[R]{ad: ad, tx: s, im: im, refs: refs, records: map[int64]*R{}, orig: map[int64]*R{},
		deleteRecord: map[int64]bool{}, reaches: reaches}
	ids := entityIDs(rows)
	if len(ids) == 0 {
		return u, nil
	}
	var recs []R
	if err := s.reachBatch(ad.entity, &recs).Where(ad.entity.Alias+".id IN (?)", bun.In(ids)).Scan(ctx); err != nil {
		return nil, err
	}
	for i := range recs {
		u.records[*ad.record(&recs[i]).id] = &recs[i]
	}
	return u, nil
}

// reachable reports whether the scope may still reach a record as the batch has left it.
func (u *batchUndo[R]) reachable(r *R) bool {
	f := u.ad.record(r)
	return u.reaches(*f.owner, *f.creator)
}

// undone notes a row's "import_undo" journey entry.
func (u *batchUndo[R]) undone(r importRow) error {
	after, err := jsonOrNil(map[string]any{"import_id": u.im.ID, "row": r.RowNo, "outcome": r.Outcome})
	if err != nil {
		return err
	}
	u.undoneRows = append(u.undoneRows, AuditEntry{ActorUserID: u.tx.actor(), Entity: u.ad.entity.Name, EntityID: *r.EntityID,
		Action: "import_undo", After: after})
	return nil
}

// row reverts one row in memory: an update's record gets its before-values (as an edit of
// it would record them); a created record waits for the batch's delete, which comes after
// every restore, as a created record's updates come from later rows than its creation.
func (u *batchUndo[R]) row(ctx context.Context, r importRow) error {
	id := *r.EntityID
	if r.Outcome == OutcomeCreated {
		u.deletes = append(u.deletes, r)
		return nil
	}
	if r.Before == nil {
		return nil
	}
	var before R
	if err := json.Unmarshal([]byte(*r.Before), &before); err != nil {
		return err
	}
	cur := u.records[id]
	if cur == nil || !u.reachable(cur) {
		return nil // gone
	}
	next, entries, err := u.ad.restore(ctx, u.tx, u.refs, cur, &before)
	if err != nil {
		return err
	}
	if next != nil {
		u.restores = append(u.restores, entries...)
		if _, ok := u.orig[id]; !ok {
			u.orig[id] = cur
			u.restoredIDs = append(u.restoredIDs, id)
		}
		u.records[id] = next
	}
	return u.undone(r)
}

// write deletes the batch's created records the scope may still reach (as DeleteLead and
// DeleteClient do: documents with them, what refers to them unlinked), writes the
// restored ones that remain, and inserts the journey entries: the restores', the
// deletes', then each reverted row's "import_undo".
func (u *batchUndo[R]) write(ctx context.Context) error {
	tx, e := u.tx, u.ad.entity
	var deleted []int64
	var deletes []AuditEntry
	for _, r := range u.deletes {
		id := *r.EntityID
		rec := u.records[id]
		if rec == nil || u.deleteRecord[id] || !u.reachable(rec) {
			continue // gone
		}
		before, err := jsonOrNil(rec)
		if err != nil {
			return err
		}
		u.deleteRecord[id] = true
		deleted = append(deleted, id)
		deletes = append(deletes, AuditEntry{ActorUserID: tx.actor(), Entity: e.Name, EntityID: id, Action: "delete", Before: before})
		if err := u.undone(r); err != nil {
			return err
		}
	}
	var recs []changedColumns
	for _, id := range u.restoredIDs {
		if u.deleteRecord[id] {
			continue // restored, then deleted: only the delete is written
		}
		recs = append(recs, changedColumns{id, u.ad.columns(u.orig[id], u.records[id])})
	}
	if err := tx.updateByID(ctx, e, recs); err != nil {
		return err
	}
	if len(deleted) > 0 {
		slices.Sort(deleted)
		if u.ad.unlink != nil {
			if err := u.ad.unlink(ctx, tx, deleted); err != nil {
				return err
			}
		}
		if _, err := tx.Delete((*Document)(nil)).Where("entity = ? AND entity_id IN (?)", e.Name, bun.In(deleted)).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.batchDelete((*R)(nil)).Where(e.Alias+".id IN (?)", bun.In(deleted)).Exec(ctx); err != nil {
			return err
		}
	}
	entries := slices.Concat(u.restores, deletes, u.undoneRows)
	return tx.insertJourney(ctx, entries)
}

// restoreCommon gives dst the contact block of src.
func restoreCommon(dst, src recordFields) {
	typ, owner := dst.CompanyTypeID, dst.OwnerID
	*dst.Contact = src.clone()
	dst.CompanyTypeID, dst.OwnerID = typ, owner
}
