package importer_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"crm/app/importer"
	"crm/app/store"
	"crm/app/store/storetest"
)

// windowFile is an upsert of the n leads importLeads(n, 0) made, in no particular order:
// every lead renamed "Renamed i", person7 also renamed "First 7" near the top of the file
// and "Second 7" at its end, and a new lead created ("New 1") and renamed further down
// ("New 1 again"). It has n+4 rows.
func windowFile(n int) []byte {
	var b bytes.Buffer
	b.WriteString("Customer name,Email\n")
	for k, i := range rand.New(rand.NewPCG(1, 2)).Perm(n) {
		switch k {
		case 3:
			b.WriteString("First 7,person7@example.test\n")
		case 5:
			b.WriteString("New 1,new1@example.test\n")
		case n / 2:
			b.WriteString("New 1 again,new1@example.test\n")
		}
		fmt.Fprintf(&b, "Renamed %d,person%d@example.test\n", i, i)
	}
	b.WriteString("Second 7,person7@example.test\n")
	return b.Bytes()
}

// leadIDs are the ids of the leads an import created, by person number (row k+2: person k).
func leadIDs(t *testing.T, s store.Scope, im *store.Import) []int64 {
	t.Helper()
	rows, err := s.ImportRows(context.Background(), im.ID, 0, im.TotalRows+1)
	if err != nil || len(rows) != im.TotalRows {
		t.Fatalf("rows of the first import: %d %v", len(rows), err)
	}
	ids := make([]int64, len(rows))
	for _, r := range rows {
		ids[r.RowNo-2] = *r.EntityID
	}
	return ids
}

// name is a lead's name now.
func name(t *testing.T, s store.Scope, id int64) string {
	t.Helper()
	v, err := s.LeadView(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return v.CustomerName
}

// windowImport makes a tenant of the n leads importLeads(n, 0) makes and queues windowFile(n)
// as an upsert by email; it gives the leads' ids by person number.
func windowImport(t *testing.T, db *store.DB, n int) (store.Scope, []int64, *store.Import) {
	t.Helper()
	s := acme(t, db)
	ids := leadIDs(t, s, importLeads(t, s, importer.NewRunner(db, slog.New(slog.NewTextHandler(io.Discard, nil)), 0), n, 0))
	if !slices.IsSorted(ids) {
		t.Fatalf("the leads' ids are not in file order: %v", ids)
	}
	im := upload(t, s, store.EntityLead, windowFile(n))
	if _, err := s.QueueImport(context.Background(), im.ID, im.Mapping, store.ModeUpsert, store.MatchEmail); err != nil {
		t.Fatal(err)
	}
	return s, ids, im
}

// namesGivenBack checks that every lead has its name from before windowFile's import.
func namesGivenBack(t *testing.T, s store.Scope, ids []int64) {
	t.Helper()
	for i, id := range ids {
		if got := name(t, s, id); got != fmt.Sprintf("Person %d", i) {
			t.Errorf("lead %d after the undo: %q", i, got)
		}
	}
}

// A file in no particular order is applied a window at a time in the order of the leads
// its rows change: each batch's leads all come after the batch before's, the rows that
// create after them. Rows with one key keep their file order, whatever batch they land in:
// person7, renamed three times, ends with the file's last name, and the lead created and
// renamed ends renamed. The undo, group by group in the leads' order, gives every lead its
// name back (person7 its first, through its three changes) and deletes the new one.
func TestWindowAppliesRowsInTheirRecordsOrder(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		const n, size = 300, 50
		s, ids, im := windowImport(t, db, n)
		r := importer.NewRunner(db, slog.New(slog.NewTextHandler(io.Discard, nil)), 0)
		// One batch at a time (a pause, on PostgreSQL too), so each batch's rows can be read
		// once it has committed.
		r.Pause, r.BatchSize, r.UndoBatchSize, r.Window = time.Nanosecond, size, size, n+4
		var batches [][]store.ImportRow
		seen := map[int]bool{}
		r.AfterBatch = func(im *store.Import) {
			rows, err := s.ImportRows(ctx, im.ID, 0, n+5)
			if err != nil {
				t.Error(err)
				return
			}
			var batch []store.ImportRow
			for _, row := range rows {
				if !seen[row.RowNo] {
					seen[row.RowNo] = true
					batch = append(batch, row)
				}
			}
			batches = append(batches, batch)
		}
		got := runImport(t, s, r, im.ID)
		if got.Status != store.ImportDone || got.Created != 1 || got.Updated != n+3 || got.Processed() != n+4 || got.NextRow != n+4 {
			t.Fatalf("import: %+v", got)
		}
		if len(batches) != (n+4+size-1)/size {
			t.Fatalf("%d batches", len(batches))
		}
		var newID int64
		top := int64(0) // the highest lead id of the batches so far
		for i, b := range batches {
			lo := slices.MinFunc(b, func(x, y store.ImportRow) int { return int(*x.EntityID - *y.EntityID) })
			hi := slices.MaxFunc(b, func(x, y store.ImportRow) int { return int(*x.EntityID - *y.EntityID) })
			if *lo.EntityID <= top {
				t.Fatalf("batch %d changes lead %d, not after the batch before's %d: %+v", i, *lo.EntityID, top, b)
			}
			top = *hi.EntityID
			for _, row := range b {
				if !slices.Contains(ids, *row.EntityID) {
					newID = *row.EntityID
					if i != len(batches)-1 {
						t.Errorf("the new lead's row %d is in batch %d of %d", row.RowNo, i, len(batches))
					}
				}
			}
		}
		for i, id := range ids {
			want := fmt.Sprintf("Renamed %d", i)
			if i == 7 {
				want = "Second 7"
			}
			if got := name(t, s, id); got != want {
				t.Errorf("lead %d: %q, want %q", i, got, want)
			}
		}
		if got := name(t, s, newID); newID == 0 || got != "New 1 again" {
			t.Errorf("the new lead %d: %q", newID, got)
		}

		if _, err := s.QueueUndo(ctx, im.ID); err != nil {
			t.Fatal(err)
		}
		r.AfterBatch = nil
		got = runImport(t, s, r, im.ID)
		if got.Status != store.ImportUndone || got.Undone != n+4 {
			t.Fatalf("undo: %+v", got)
		}
		namesGivenBack(t, s, ids)
		if _, err := s.LeadView(ctx, newID); err != store.ErrNotFound {
			t.Errorf("the new lead after the undo: %v", err)
		}
	})
}

// An import stopped part way through a window has done rows from all over it, and its
// position stays at the window's start: resumed, it does the window's other rows, each
// once, and the import ends as if it had never stopped. The undo, stopped after its first
// group and resumed, gives every lead back its name.
func TestWindowResumesWithTheRowsItHasNotDone(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		const n, size = 300, 50
		s, ids, im := windowImport(t, db, n)
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		ref := store.ImportRef{TenantID: s.TenantID, ID: im.ID}
		// stopAfter runs the import, or its undo, with a runner whose process ends once k
		// batches have committed (two may be in flight on PostgreSQL).
		stopAfter := func(k int32) {
			t.Helper()
			stopped, cancel := context.WithCancel(ctx)
			defer cancel()
			r := importer.NewRunner(db, log, 0)
			r.BatchSize, r.UndoBatchSize, r.Window = size, size, n+4
			var done atomic.Int32
			r.AfterBatch = func(*store.Import) {
				if done.Add(1) == k {
					cancel()
				}
			}
			if err := r.Run(stopped, ref); err == nil {
				t.Fatal("the stopped runner finished")
			}
		}
		stopAfter(2)
		part, err := s.Import(ctx, im.ID)
		if err != nil || part.Status != store.ImportRunning || part.NextRow != 0 || part.Processed() < 2*size || part.Processed() >= n {
			t.Fatalf("stopped: %+v %v", part, err)
		}
		rows, err := s.ImportRows(ctx, im.ID, 0, n+5)
		if err != nil || len(rows) != part.Processed() {
			t.Fatalf("rows done: %d of %d, %v", len(rows), part.Processed(), err)
		}
		if rows[len(rows)-1].RowNo < part.Processed()+2 {
			t.Fatalf("the stopped import did the file's first rows, not its leads' first: %+v", rows)
		}
		resume := func() *store.Import {
			t.Helper()
			r := importer.NewRunner(db, log, 0)
			r.BatchSize, r.UndoBatchSize, r.Window = size, size, n+4
			if err := r.Resume(ctx, ref, time.Now().Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			got, err := s.Import(ctx, im.ID)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		got := resume()
		if got.Status != store.ImportDone || got.Created != 1 || got.Updated != n+3 || got.Skipped+got.Failed != 0 || got.NextRow != n+4 {
			t.Fatalf("resumed: %+v", got)
		}
		if rows, err = s.ImportRows(ctx, im.ID, 0, n+5); err != nil || len(rows) != n+4 {
			t.Fatalf("rows done: %d, %v", len(rows), err)
		}
		page, err := s.ListLeads(ctx, store.LeadQuery{Limit: 1})
		if err != nil || page.Total != n+1 {
			t.Fatalf("leads: %d %v", page.Total, err)
		}
		if got := name(t, s, ids[7]); got != "Second 7" {
			t.Errorf("person7: %q", got)
		}

		if _, err := s.QueueUndo(ctx, im.ID); err != nil {
			t.Fatal(err)
		}
		stopAfter(1)
		if part, err = s.Import(ctx, im.ID); err != nil || part.Status != store.ImportUndoing || part.Undone == 0 || part.Undone >= n {
			t.Fatalf("undo stopped: %+v %v", part, err)
		}
		if got = resume(); got.Status != store.ImportUndone || got.Undone != n+4 {
			t.Fatalf("undo resumed: %+v", got)
		}
		namesGivenBack(t, s, ids)
		if page, err = s.ListLeads(ctx, store.LeadQuery{Limit: 1}); err != nil || page.Total != n {
			t.Fatalf("leads after the undo: %d %v", page.Total, err)
		}
	})
}
