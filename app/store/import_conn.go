package store

import (
	"context"

	"github.com/uptrace/bun"
)

// SQLite import batches run on one kept connection (importTx).
//
// A batch's connection gets a 64 MB page cache, which fills with the tenant's table and
// index pages as the batches go; the next batch gains from it only if it runs on the same
// connection. database/sql hands out the connection returned last, which between two
// batches is often another's (the import's key lookups of its next window, the copy of
// the write-ahead log): in an import, update and undo of 100,000 rows, 12 of 200 batches
// started on another connection with a cold cache (docs/PERFORMANCE.md, "Forty-sixth
// round"). So the connection of the last batch is set aside, out of the pool, for the
// next. It holds the settings every connection has (importTx puts them back), and the
// pool has one connection fewer for everything else meanwhile.
type importConn struct{ kept chan bun.Conn }

func newImportConn() *importConn { return &importConn{kept: make(chan bun.Conn, 1)} }

// take is the kept connection when it is free, else one from the pool.
func (k *importConn) take(ctx context.Context, db *bun.DB) (bun.Conn, error) {
	select {
	case c := <-k.kept:
		return c, nil
	default:
		return db.Conn(ctx)
	}
}

// keepFrom is the smallest pool a connection is kept out of: in a smaller one (a test's
// pool of one), a connection kept aside would leave too few, or none, for the rest.
const keepFrom = 4

// give keeps c for the next batch when it is fit, the pool db is large enough (keepFrom)
// and no connection is kept already (two imports at once), and otherwise returns it to the
// pool, which drops it if it is not fit.
func (k *importConn) give(db *bun.DB, c bun.Conn, fit bool) {
	if n := db.Stats().MaxOpenConnections; fit && (n == 0 || n >= keepFrom) {
		select {
		case k.kept <- c:
			return
		default:
		}
	}
	_ = c.Close()
}

// close returns the kept connection to the pool, before the pool closes.
func (k *importConn) close() {
	select {
	case c := <-k.kept:
		_ = c.Close()
	default:
	}
}
