package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/uptrace/bun"
)

// The order an import writes its rows in. A file in no particular order, applied in file
// order, changes records all over the table in every batch: each batch of 2,000 rows of an
// update rewrote a large share of the tenant's table and index pages, and each page changed
// costs its copy in SQLite's statement journal and WAL (docs/PERFORMANCE.md, "Twentieth
// round"). The importer therefore reads a window of rows, asks where each row's record is
// (ImportPlaces), and applies the window in the records' id order, a batch at a time; an
// undo reverts a window of rows record by record (ImportUndoGroups). Rows of one key keep
// their file order, so a row still sees what the rows above it did.

// placeChunk is how many keys one statement of ImportPlaces asks for.
const placeChunk = 2000

// ImportPlaces gives, for each key, the id of the record of the import's entity that has it
// and the scope reaches (the lowest, when several do); a key no record has is left out.
func (s Scope) ImportPlaces(ctx context.Context, im *Import, keys []string) (map[string]int64, error) {
	kind, ok := importKinds[im.Entity]
	if !ok {
		return nil, fmt.Errorf("store: %q is not importable", im.Entity)
	}
	places := make(map[string]int64, len(keys))
	for chunk := range slices.Chunk(keys, placeChunk) {
		if err := kind.places(ctx, s, im, chunk, places); err != nil {
			return nil, err
		}
	}
	return places, nil
}

// places adds to places the id of the reachable record with each of keys.
func (ad *importAdapter[R]) places(ctx context.Context, s Scope, im *Import, keys []string, places map[string]int64) error {
	e := ad.entity
	col := e.Alias + "." + ad.keyField(im.MatchKey)
	var ids []int64
	var found []string
	if err := keysQuery(s, e, (*R)(nil), col, keys).Column("id").ColumnExpr(col).Scan(ctx, &ids, &found); err != nil {
		return err
	}
	for i, k := range found {
		if id, ok := places[k]; !ok || ids[i] < id {
			places[k] = ids[i]
		}
	}
	return nil
}

// ImportedRows are the numbers of the rows from row from on that the import has recorded an
// outcome for: on a resume, the rows of the window in progress that a batch already did.
func (s Scope) ImportedRows(ctx context.Context, im *Import, from int) (map[int]bool, error) {
	var nos []int
	if err := s.Select((*importRow)(nil)).Column("row_no").Where("ir.import_id = ? AND ir.row_no >= ?", im.ID, from).
		Scan(ctx, &nos); err != nil {
		return nil, err
	}
	done := make(map[int]bool, len(nos))
	for _, n := range nos {
		done[n] = true
	}
	return done, nil
}

// Processed is how many rows the import has done: each has one outcome.
func (im *Import) Processed() int { return im.Created + im.Updated + im.Skipped + im.Failed }

// UndoGroup is a set of an import's changed rows to revert in one transaction: every change
// left of the records they name within their window (UndoImportRowsInTurn).
type UndoGroup struct{ Rows []int }

// ImportUndoGroups splits the changes not yet undone of rows lo to hi-1 into groups of at most
// size rows (more when one record has more changes than that), in the order of the records
// they change, every change of a record in one group: so each group rewrites a few
// neighbouring pages of the table rather than pages all over it.
func (s Scope) ImportUndoGroups(ctx context.Context, im *Import, lo, hi, size int) ([]UndoGroup, error) {
	var rows []importRow
	if err := undoable(s.Select(&rows).Column("row_no", "entity_id"), im).
		Where("ir.row_no >= ? AND ir.row_no < ?", lo, hi).Scan(ctx); err != nil {
		return nil, err
	}
	entity := func(r importRow) int64 {
		if r.EntityID == nil {
			return 0
		}
		return *r.EntityID
	}
	slices.SortFunc(rows, func(a, b importRow) int {
		return cmp.Or(cmp.Compare(entity(a), entity(b)), cmp.Compare(b.RowNo, a.RowNo)) // latest first
	})
	var groups []UndoGroup
	var cur []int
	for i, r := range rows {
		if len(cur) >= size && (entity(r) == 0 || entity(r) != entity(rows[i-1])) {
			groups = append(groups, UndoGroup{cur})
			cur = nil
		}
		cur = append(cur, r.RowNo)
	}
	if len(cur) > 0 {
		groups = append(groups, UndoGroup{cur})
	}
	return groups, nil
}

// rowNosIn is the condition on import_rows (alias ir) that picks the rows numbered rows:
// by list, and by the range they span too. PostgreSQL, whose statistics of import_rows lag
// behind the import that wrote them, read every row of the import for each group of an
// undo with the list alone (a bitmap scan of the key's first two columns, 230 ms a group of
// 2,000 among 200,000 rows), and the window's range only with it (20 ms).
func rowNosIn(rows []int) (string, []any) {
	if len(rows) == 0 {
		return "FALSE", nil
	}
	return "ir.row_no >= ? AND ir.row_no <= ? AND ir.row_no IN (?)", []any{slices.Min(rows), slices.Max(rows), bun.In(rows)}
}
