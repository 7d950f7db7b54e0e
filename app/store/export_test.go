package store

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"modernc.org/sqlite"
)

// SearchRowidScale is what SQLite's search indexes multiply a record's id by.
const SearchRowidScale = searchRowidScale

// Raw is a statement written by hand on the scope's connection, as a query that forgot the
// store's tenant filter would be: for tests that row-level security still confines it.
func (s Scope) Raw(query string, args ...any) *bun.RawQuery { return s.idb.NewRaw(query, args...) }

// Raw is a statement on the server's connection outside any Scope (no tenant set).
func (db *DB) Raw(query string, args ...any) *bun.RawQuery { return db.bun.NewRaw(query, args...) }

// SetMaxOpenConns bounds the pool, so a test can make statements share one connection.
func (db *DB) SetMaxOpenConns(n int) { db.bun.SetMaxOpenConns(n) }

// OpenWithoutTenantSetting opens PostgreSQL as Open does but with pgx's plain connections,
// which never set app.tenant_id: the server as it was before row-level security, for the
// measurement of what the second wall costs.
func OpenWithoutTenantSetting(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	sqldb := stdlib.OpenDB(*cfg)
	sqldb.SetMaxOpenConns(20)
	sqldb.SetMaxIdleConns(20)
	return &DB{bun: bun.NewDB(sqldb, pgdialect.New()), Dialect: Postgres}, nil
}

// KeptStatements counts the statements the pool's connection keeps compiled whose text
// contains part: SQLite's kept statements (sqlitestmts.go), PostgreSQL's prepared ones
// (plans.go). With SetMaxOpenConns(1), that is every statement the tests ran.
func (db *DB) KeptStatements(ctx context.Context, part string) (int, error) {
	if db.Dialect == Postgres {
		var n int
		err := db.bun.DB.QueryRowContext(ctx, "SELECT count(*) FROM pg_prepared_statements WHERE strpos(statement, $1) > 0", part).Scan(&n)
		return n, err
	}
	n := 0
	err := db.onSQLiteConn(ctx, func(c *cachingConn) error {
		for e := c.lru.Front(); e != nil; e = e.Next() {
			if strings.Contains(e.Value.(*cachedStmt).query, part) {
				n++
			}
		}
		return nil
	})
	return n, err
}

// onSQLiteConn runs fn on the pool's SQLite connection (the one, with SetMaxOpenConns(1)).
func (db *DB) onSQLiteConn(ctx context.Context, fn func(c *cachingConn) error) error {
	conn, err := db.bun.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(*cachingConn)
		if !ok {
			return fmt.Errorf("connection %T is no SQLite connection keeping statements", dc)
		}
		return fn(c)
	})
}

// CountCompiles starts counting the SELECTs SQLite compiles on the pool's one connection
// (SetMaxOpenConns(1)): its authorizer is asked about each SELECT of a statement, and of
// its subqueries, as it is compiled, and again when the statement is compiled anew because
// its plan went stale. The count it returns is of the compilations since the start.
func (db *DB) CountCompiles(ctx context.Context) (count func() int64, err error) {
	var n atomic.Int64
	err = db.onSQLiteConn(ctx, func(c *cachingConn) error {
		return c.conn.(sqlite.AuthorizerRegisterer).RegisterAuthorizer(
			func(action sqlite.AuthorizerActionCode, _, _, _, _ string) sqlite.AuthorizerReturnCode {
				if action == sqlite.AuthSelect {
					n.Add(1)
				}
				return sqlite.AuthorizerOK
			})
	})
	return n.Load, err
}

// ChooseTrigrams and Trigrams are how a long search term is narrowed (search_narrow.go).
var (
	ChooseTrigrams = chooseTrigrams
	Trigrams       = trigrams
	ChooseSampled  = chooseSampled
	WordTrigrams   = wordTrigrams
	CountTrigrams  = countWordTrigrams
)

// ChooseWords is chooseWordTrigrams with the term's trigrams and their counts taken from
// counts, as narrowSample passes them.
func ChooseWords(text string, counts map[string]int32) []string {
	tgs := wordTrigrams(text)
	return chooseWordTrigrams(text, tgs, sampledSizes(tgs, counts), counts)
}

// SearchAsked is what SQLite's FTS5 index of leads (or of clients) is asked for term, or the
// trigrams PostgreSQL's is, and whether that is a few of its trigrams, whose rows must then
// be checked.
func (s Scope) SearchAsked(ctx context.Context, clients bool, term string) (string, bool, error) {
	ts, st := leadText, parseSearch(term)
	if clients {
		ts = clientText
	}
	err := s.narrowSearch(ctx, ts, st)
	if s.Dialect() == Postgres {
		return strings.Join(st.likes, " "), st.narrowed, err
	}
	return st.ftsQuery(), st.narrowed, err
}

// LeadViewByReflection loads a lead view as the store did before leadRows read it by
// position: every column of the lead and the same names, scanned by bun's reflection,
// for a test that the two read the same.
func (s Scope) LeadViewByReflection(ctx context.Context, id int64) (*LeadView, error) {
	v := &LeadView{}
	err := withLeadViewNames(s.leads(v).ColumnExpr("l.*")).Where("l.id = ?", id).Scan(ctx)
	return v, notFound(err)
}
