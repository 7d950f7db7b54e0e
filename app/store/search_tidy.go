package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// TidyPages is how much of the search index one step of TidySearchIndex rewrites: FTS5
// pages of about 4 KB, so a step holds SQLite's write lock for about 0.1 s (65 ms on
// average, 139 ms at most, merging a 1,000,000-lead index with the C library; 2,000 pages
// took as long in all, but up to 330 ms a step).
const TidyPages = 500

// TidySearchIndex merges the SQLite search index of e's table (FTS5) into one segment, a
// step of pages at a time, each step its own transaction. A large write leaves the index in
// many segments, and the entries it deleted or replaced as tombstones beside the old ones:
// every search then looks its terms up in each segment (after a cycle of 100,000 rows
// created, updated and deleted, the list's searches about twice as slow at 1,000,000 leads;
// docs/PERFORMANCE.md, "Third round"). FTS5's own merges
// only join segments of one level; this is its 'optimize' cut into steps. PostgreSQL's
// trigram index needs nothing of the kind: a no-op there. After each step it rests as long
// as the step took, so the app's writers, whose busy handler polls for the lock, find it
// free at least half the time. It returns the steps taken.
func (db *DB) TidySearchIndex(ctx context.Context, e *Entity, pages int) (int, error) {
	if db.Dialect != SQLite {
		return 0, nil
	}
	if pages <= 0 {
		pages = TidyPages
	}
	conn, err := db.bun.Conn(ctx) // one connection: total_changes() is a connection's count
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	fts := e.searchIndex()
	changes := func() (n int64, err error) {
		err = conn.QueryRowContext(ctx, "SELECT total_changes()").Scan(&n)
		return n, err
	}
	// A negative count starts a merge of every segment, whatever its level; a positive
	// one carries a started merge on. FTS5 tells that a step did nothing by changing fewer
	// than two rows.
	q := fmt.Sprintf("INSERT INTO %s (%s, rank) VALUES ('merge', ?)", fts, fts)
	step := -pages
	before, err := changes()
	if err != nil {
		return 0, err
	}
	for steps := 0; ; steps++ {
		started := time.Now()
		if _, err := conn.ExecContext(ctx, q, step); err != nil {
			return steps, fmt.Errorf("tidy %s: %w", fts, err)
		}
		took := time.Since(started)
		after, err := changes()
		if err != nil {
			return steps, err
		}
		if after-before < 2 {
			return steps, nil
		}
		step, before = pages, after
		t := time.NewTimer(took)
		select {
		case <-ctx.Done():
			t.Stop()
			return steps + 1, ctx.Err()
		case <-t.C:
		}
	}
}

// SearchSegments is how many segments the SQLite search index of e's table is in (a
// search reads each): the count in FTS5's structure record. 0 on PostgreSQL.
func (db *DB) SearchSegments(ctx context.Context, e *Entity) (int, error) {
	if db.Dialect != SQLite {
		return 0, nil
	}
	var rec []byte
	err := db.bun.QueryRowContext(ctx, "SELECT block FROM "+e.searchIndex()+"_data WHERE id = 10").Scan(&rec)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	// The record: a 4-byte cookie, FTS5's 4-byte version-2 marker when present, then the
	// number of levels and of segments as SQLite varints (fts5_index.c, fts5StructureDecode).
	if len(rec) < 4 {
		return 0, errors.New("store: short FTS5 structure record")
	}
	rec = rec[4:]
	if len(rec) >= 4 && string(rec[:4]) == "\xff\x00\x00\x01" {
		rec = rec[4:]
	}
	_, n := sqliteVarint(rec)
	if n == 0 {
		return 0, errors.New("store: bad FTS5 structure record")
	}
	segments, m := sqliteVarint(rec[n:])
	if m == 0 {
		return 0, errors.New("store: bad FTS5 structure record")
	}
	return int(segments), nil
}

// sqliteVarint reads SQLite's big-endian varint (7 bits a byte, the high bit says more
// follow; a ninth byte gives 8 bits) and its length, 0 if b is too short.
func sqliteVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 9; i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}
