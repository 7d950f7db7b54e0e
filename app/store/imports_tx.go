package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strconv"

	"github.com/uptrace/bun"
)

// ftsAutomerge is FTS5's default automerge: a level's segments are merged once 4 pile up.
const ftsAutomerge = 4

// ftsCrisisMerge is FTS5's default crisismerge: with automerge off, a level's segments are
// merged all at once when 16 pile up. importCrisisMerge is what an import batch sets
// instead (importTx).
const (
	ftsCrisisMerge    = 16
	importCrisisMerge = 64
)

// MaxImportBatch is the most rows one batch of an import, or of its undo, may carry.
const MaxImportBatch = 5000

// pgImportSettings are the planner settings of an import batch's transaction on
// PostgreSQL. Every statement of a batch reads or writes a few thousand records by key or
// by id, which a nested loop over an index does best; but the planner goes by its
// statistics of the tenant, and a large import makes them wrong as it goes (a tenant of
// 20,000 leads when the import began, 120,000 by its end; and the application role, which
// owns no table, never takes them). It then joined a batch's grouped UPDATE (updateByID) to
// every lead of the tenant by hashing: 110 ms a statement, 4 minutes of an update of
// 100,000 rows of a shuffled file. Without hash and merge joins it probes the primary key
// for each record (SET LOCAL: until the batch's commit), when it does not expect the
// tenant to be tiny (see updateByID).
//
// And on both engines the counters' triggers set the batch's moves aside, to be added to
// the counters once, in key order, just before the commit (stageCounts and flushCounts,
// which importTx calls around the batch's own statements): a batch of an update runs a
// dozen statements, each of which would upsert the same counters again, two batches in
// flight on PostgreSQL must not each hold counters the other waits for (migration
// 20261127100000_staged_counts), and on SQLite each lead's ten upserts of its counters were
// a third of an insert (migration 20261130100000_staged_counts).
var pgImportSettings = []string{"SET LOCAL enable_hashjoin = off", "SET LOCAL enable_mergejoin = off"}

// sqliteBatchPragmas are the settings of an import batch's SQLite connection (importTx),
// and whether each is put back after the batch (the cache and the temporary store stay).
var sqliteBatchPragmas = []struct {
	name, value string
	restored    bool
}{
	{"synchronous", "NORMAL", true}, {"wal_autocheckpoint", "50000", true}, {"cache_size", "-65536", false},
	{"temp_store", "FILE", false}, {"mmap_size", "0", true},
}

// importTx runs one batch of an import or of its undo in a transaction. On SQLite the
// transaction has a connection of its own, set for a bulk write while it runs:
//
//   - synchronous NORMAL instead of FULL: the commit is not synced to disk before it
//     returns, only at the next checkpoint. A batch records the import's position in its
//     own transaction, so one that a power cut takes back is simply applied again when the
//     import resumes (a crash of the process loses nothing: the WAL is written). With FULL,
//     each commit waited for two syncs, the WAL's and, as each batch's pages passed the
//     automatic checkpoint's 1,000, the database file's: 40 % of a 100,000-row import.
//   - wal_autocheckpoint 50,000 pages (1.6 GB at SQLitePageSize, 200 MB when this was set for
//     pages of 4 KB; 6,400 and 1,600 pages were slower at 32 KB, docs/PERFORMANCE.md
//     "Seventeenth round") instead of 1,000: the checkpoint comes every few dozen
//     batches instead of after each, so a page that many batches change
//     (the counters, the journey's end, the upper levels of each index, a table page
//     holding several of a file's records) is copied into the database, and the file
//     synced, once per checkpoint rather than once per batch. With 10,000 the import of
//     100,000 rows took 5-9 % longer (in process, the same hour: 14.3 / 20.9 / 21.0 /
//     17.5 s against 13.9 / 19.4 / 19.9 / 16.0 s). The WAL file is cut back to 64 MB when
//     it next restarts (journal_size_limit, set in Open). That checkpoint is now a
//     backstop: after each batch's commit the log is copied into the file in the
//     background, on a connection of its own (walBackfill), while the next batch runs on
//     the core the one writer leaves idle. Before, the whole 1.6 GB was copied inside the
//     commit of whichever batch crossed the threshold, one batch of fifty taking a second
//     instead of a quarter: the end of an undo of 100,000 creates ran at 4,900-5,400
//     rows/s against 7,200-7,900 at its start; in the background, 6,700-9,800
//     (docs/PERFORMANCE.md, "Fortieth round").
//   - a page cache of 64 MB (the default is 2 MB): a file in no particular order inserts
//     into each index at random places, and with the tenant's indexes past the cache every
//     batch read its pages again, more of them the larger the table — the rate fell from
//     3,400 to 1,600 rows/s over 100,000 rows. The cache stays with the connection (the
//     pool hands the next batch the connection the last one used, warm), as SeedLeads'.
//   - the statement journal in a temporary file (temp_store FILE, SQLite's default, set
//     here because a connection may have been left otherwise): a statement that writes
//     many rows inside a transaction keeps the pages it changes in a statement journal, to
//     undo the statement alone should it fail — tens of MB for a batch's insert or update.
//     Kept in memory (temp_store MEMORY, before), that journal was allocated and freed
//     again with every statement, and the driver's allocator hands what it holds past 4 MB
//     a size class back to the system: on a VM whose page faults are dear, 60 % of an
//     import's page faults and a third of its time (100,000 rows: 32 / 45 / 48 / 38 s
//     against 27 / 31 / 34 / 31 s in a file, docs/PERFORMANCE.md "Tenth round"); on a
//     machine where they are cheap the two measured the same.
//   - no memory map of the file (mmap_size 0; Open gives every connection one): the
//     batch reads the pages of the tenant's indexes into its own cache instead. With the
//     map the undo of a create of 100,000 rows took 19.2–20.3 s against 16.9–19.3 s in
//     the same hour (docs/PERFORMANCE.md, "Thirty-eighth round"), and a round before
//     measured a map slower for the whole import.
//
// synchronous, wal_autocheckpoint and mmap_size are put back before the connection returns
// to the pool, so no other write goes without FULL and no read without the map.
//
// And the search index of e (FTS5) is not merged while the batch writes: its automerge is
// 0 inside the transaction and back to FTS5's default before the commit, so no other
// writer ever sees it off (a batch that fails takes both back). A batch's search entries
// still go to disk as a segment of their own, and the runner tidies the index into one
// segment after a large import or undo (TidySearchIndex), which is where the merging of
// what the batches wrote happens once. With the default automerge, each batch also merged
// the segments of the batches before it four at a time, every entry rewritten again at
// each level: 9 % of the CPU of an import cycle of 100,000 rows, work the tidy then did
// over. For the same reason FTS5's crisis merge, which merges a level's segments at once
// when 16 pile up even with automerge off, waits inside a batch for importCrisisMerge (64):
// at 16, every sixteenth batch of an import of 100,000 rows took 0.42-0.54 s instead of
// 0.2-0.3 s, merging what the tidy merges again. 64 segments of a batch each leave a search
// during a large import at most 64 lookups a term to make, far from FTS5's limit of 2,000
// segments.
func (s Scope) importTx(ctx context.Context, e *Entity, fn func(tx Scope) error) error {
	if s.inTx() {
		return fn(s)
	}
	if s.Dialect() == Postgres {
		return s.Tx(ctx, func(tx Scope) error {
			if err := execAll(ctx, tx.idb, pgImportSettings...); err != nil {
				return err
			}
			if err := tx.stageCounts(ctx); err != nil {
				return err
			}
			if err := fn(tx); err != nil {
				return err
			}
			return tx.flushCounts(ctx)
		})
	}
	conn, err := s.db.bun.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var set, restore []string
	for _, p := range sqliteBatchPragmas {
		if p.restored {
			var was int64
			if err := conn.QueryRowContext(ctx, "PRAGMA "+p.name).Scan(&was); err != nil {
				return err
			}
			restore = append(restore, "PRAGMA "+p.name+" = "+strconv.FormatInt(was, 10))
		}
		set = append(set, "PRAGMA "+p.name+" = "+p.value)
	}
	if err := execAll(ctx, conn, set...); err != nil {
		return err
	}
	// Both settings in one statement, FTS5's way of setting them: rows of its own table.
	merges := fmt.Sprintf("INSERT INTO %s (%[1]s, rank) VALUES ('automerge', ?), ('crisismerge', ?)", e.searchIndex())
	err = conn.RunInTx(ctx, &sql.TxOptions{}, func(ctx context.Context, tx bun.Tx) error {
		inner := s
		inner.idb = newTenantIDB(tx, s.TenantID)
		if _, err := tx.ExecContext(ctx, merges, 0, importCrisisMerge); err != nil {
			return err
		}
		if err := inner.stageCounts(ctx); err != nil {
			return err
		}
		if err := fn(inner); err != nil {
			return err
		}
		if err := inner.flushCounts(ctx); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, merges, ftsAutomerge, ftsCrisisMerge)
		return err
	})
	if err == nil {
		s.db.backfill.soon()
	}
	if rerr := execAll(context.WithoutCancel(ctx), conn, restore...); rerr != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // closed: no connection left NORMAL in the pool
		if err == nil {
			err = rerr
		}
	}
	return err
}
