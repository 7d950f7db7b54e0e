package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
)

// sizeBudget is the most bytes a million leads may take on disk (1 GB = 10^9 bytes).
const sizeBudget = 1e9

// perMillion writes bytes per million leads, in GB.
func perMillion(bytes, leads int64) string {
	if leads == 0 {
		return "n/a (no lead)"
	}
	return fmt.Sprintf("%.2f GB", float64(bytes)/float64(leads)*1e6/1e9)
}

// gb writes bytes in GB (10^9).
func gb(bytes int64) string { return fmt.Sprintf("%.2f GB", float64(bytes)/1e9) }

// sizes measures the database's size per million leads: on PostgreSQL the whole database
// less its free pages, and the leads table with its indexes; on SQLite the file's pages in
// use once its write-ahead log is copied in, with what the log holds after.
func (b *bench) sizes(ctx context.Context) error {
	if b.engine == "sqlite" {
		return b.sqliteSizes(ctx)
	}
	db, err := sql.Open("pgx", b.dbURL) // the owner: every tenant's rows
	if err != nil {
		return err
	}
	defer db.Close()
	var dbSize, total, table, leadCount int64
	if err := db.QueryRowContext(ctx, `SELECT pg_database_size(current_database()), pg_total_relation_size('leads'),
		pg_table_size('leads'), (SELECT count(*) FROM leads)`).Scan(&dbSize, &total, &table, &leadCount); err != nil {
		return err
	}
	rows, err := db.QueryContext(ctx, `SELECT c.relname, pg_relation_size(i.indexrelid) FROM pg_index AS i
		JOIN pg_class AS c ON c.oid = i.indexrelid WHERE i.indrelid = 'leads'::regclass ORDER BY 2 DESC, 1`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var indexes []string
	var indexBytes int64
	fmt.Fprintf(b.out, "PostgreSQL sizes, %d leads: database %s, leads %s (table with TOAST %s), its indexes:\n", leadCount, gb(dbSize), gb(total), gb(table))
	for rows.Next() {
		var name string
		var size int64
		if err := rows.Scan(&name, &size); err != nil {
			return err
		}
		indexBytes += size
		indexes = append(indexes, fmt.Sprintf("%s %s", name, perMillion(size, leadCount)))
		fmt.Fprintf(b.out, "  %-48s %8.1f MB  %s per million\n", name, float64(size)/1e6, perMillion(size, leadCount))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	// As on SQLite, the budget is on what is in use: the pages the free space map holds as
	// wholly free (a vacuum freed them after an import's undo, for the same table or index
	// to reuse) are reported beside it. Without the map's extension, on the whole database.
	inUse := dbSize
	note := fmt.Sprintf("%s for %s leads", gb(dbSize), thousands(int(leadCount)))
	if free, err := pgFreePages(ctx, db); err != nil {
		note += fmt.Sprintf("; free pages not measured (%v): the budget on the whole database", err)
	} else {
		inUse -= free
		note = fmt.Sprintf("%s in use for %s leads; the database %s with %s of free pages", gb(inUse),
			thousands(int(leadCount)), gb(dbSize), gb(free))
		fmt.Fprintf(b.out, "free pages (pg_freespacemap): %s\n", gb(free))
	}
	b.results = append(b.results,
		result{engine: b.engine, name: "database in use per million leads", figure: perMillion(inUse, leadCount), note: note,
			limit: "≤ 1 GB per million", missed: leadCount == 0 || float64(inUse)/float64(leadCount)*1e6 > sizeBudget},
		result{engine: b.engine, name: "`leads` with its indexes per million leads", figure: perMillion(total, leadCount),
			note: fmt.Sprintf("per million: table %s, %d indexes %s, the largest %s", perMillion(table, leadCount), len(indexes),
				perMillion(indexBytes, leadCount), strings.Join(indexes[:min(len(indexes), 3)], ", "))})
	return nil
}

// pgFreePages is the bytes of the database's pages its free space map records as wholly
// free: what vacuum found empty in a table or index, kept for that relation to reuse (as
// SQLite's free pages are kept for the file). A page counts when its recorded free space is
// the map's highest class (a block less 32 bytes), the one a freed page is given. The
// cluster's shared catalogs (roles, databases, their dependencies) are left out: they are
// not this database's, and they free pages whenever other databases and roles come and go.
// It needs pg_freespacemap, which it creates when missing (as the database's owner).
func pgFreePages(ctx context.Context, db *sql.DB) (int64, error) {
	if _, err := db.ExecContext(ctx, "CREATE EXTENSION IF NOT EXISTS pg_freespacemap"); err != nil {
		return 0, err
	}
	var free int64
	err := db.QueryRowContext(ctx, `SELECT coalesce(sum(f.pages), 0) * current_setting('block_size')::bigint
		FROM pg_class AS c, LATERAL (SELECT count(*) AS pages FROM pg_freespace(c.oid)
			WHERE avail >= current_setting('block_size')::int - 32) AS f
		WHERE c.relkind IN ('r', 'i', 't', 'm') AND c.relpersistence = 'p' AND NOT c.relisshared`).Scan(&free)
	return free, err
}

// sqliteSizes measures the SQLite file and its write-ahead log (after a checkpoint that
// copies the log in and cuts it), and, where SQLite has the dbstat table, what the largest
// tables and indexes take.
func (b *bench) sqliteSizes(ctx context.Context) error {
	path := strings.TrimPrefix(b.dbURL, "sqlite:")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	// The log first copied into the file and cut to nothing: what it held is then counted
	// in the file's pages, and a log a connection left at its size limit (64 MiB,
	// journal_size_limit) when it was not the last to close — which happened after one seed
	// in two (docs/PERFORMANCE.md, "Forty-ninth round") — is not counted as the leads'.
	// What a writer adds meanwhile is counted as it stands.
	if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	var wal int64
	if wi, err := os.Stat(path + "-wal"); err == nil {
		wal = wi.Size()
	}
	var leadCount, pageSize, freePages int64
	if err := db.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM leads), (SELECT page_size FROM pragma_page_size), "+
		"(SELECT freelist_count FROM pragma_freelist_count)").Scan(&leadCount, &pageSize, &freePages); err != nil {
		return err
	}
	free := pageSize * freePages
	fmt.Fprintf(b.out, "SQLite sizes, %d leads: file %s (%s of it free pages), write-ahead log %s\n", leadCount, gb(fi.Size()), gb(free), gb(wal))
	if rows, err := db.QueryContext(ctx, "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 20"); err == nil {
		for rows.Next() {
			var name string
			var size int64
			if rows.Scan(&name, &size) == nil {
				fmt.Fprintf(b.out, "  %-48s %8.1f MB  %s per million\n", name, float64(size)/1e6, perMillion(size, leadCount))
			}
		}
		rows.Close()
	}
	// SQLite never gives a file's free pages back (auto_vacuum is off): a delete, an import's
	// undo or the search index's merge leaves them free for later writes. The bench's own
	// import case leaves half a gigabyte of them (its history, which it deletes, and the
	// merges), so the budget is on the pages in use, the free ones reported beside them.
	size := fi.Size() - free + wal
	b.results = append(b.results, result{engine: b.engine, name: "file in use (+ write-ahead log) per million leads",
		figure: perMillion(size, leadCount), note: fmt.Sprintf("%s in use + %s for %s leads; the file %s with %s of free pages",
			gb(fi.Size()-free), gb(wal), thousands(int(leadCount)), gb(fi.Size()), gb(free)),
		limit: "≤ 1 GB per million", missed: leadCount == 0 || float64(size)/float64(leadCount)*1e6 > sizeBudget})
	return nil
}
