package store

import (
	"context"
	"encoding/json"
	"time"
)

// An import batch writes its journey entries and its rows' outcomes, thousands a statement.
// Written by bun, such a statement is a VALUES list with every value in its text: for
// 4,000 journey entries about 1 MB that PostgreSQL parses, analyzes and plans before
// writing a row, most of the statement's time (docs/PERFORMANCE.md, "Forty-first round").
// On PostgreSQL these statements send their values apart from the text instead, an array a
// column read with unnest, so the text is the same for every batch: prepared once a
// connection, the arrays sent in binary. SQLite, which parses in process and has no arrays,
// keeps bun's statement.

// insertJourney writes journey entries of the scope's tenant; their ids are not read back.
func (s Scope) insertJourney(ctx context.Context, entries []AuditEntry) error {
	return insertApart(ctx, s, entries, journeyApart, func() ([]any, error) {
		n := len(entries)
		actors, names, ids, actions := make([]*int64, n), make([]string, n), make([]int64, n), make([]string, n)
		befores, afters, created := make([]*string, n), make([]*string, n), make([]*time.Time, n)
		for i := range entries {
			e := &entries[i]
			e.TenantID = s.TenantID
			actors[i], names[i], ids[i], actions[i], befores[i], afters[i] = e.ActorUserID, e.Entity, e.EntityID, e.Action, e.Before, e.After
			if !e.CreatedAt.IsZero() { // as bun writes a zero time: DEFAULT, the statement's time
				created[i] = &e.CreatedAt
			}
		}
		return []any{actors, names, ids, actions, befores, afters, created}, nil
	})
}

const journeyApart = `INSERT INTO audit_log (tenant_id, actor_user_id, entity, entity_id, action, before, after, created_at)
SELECT $1::bigint, v.actor_user_id, v.entity, v.entity_id, v.action, v.before, v.after, COALESCE(v.created_at, CURRENT_TIMESTAMP)
FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::text[], $6::json[], $7::json[], $8::timestamptz[])
AS v (actor_user_id, entity, entity_id, action, before, after, created_at)`

// insertImportRows writes the outcomes of an import's rows, of the scope's tenant.
func (s Scope) insertImportRows(ctx context.Context, rows []importRow) error {
	return insertApart(ctx, s, rows, importRowsApart, func() ([]any, error) {
		n := len(rows)
		imports, rowNos, outcomes, ids := make([]int64, n), make([]int32, n), make([]string, n), make([]*int64, n)
		befores, reasons, undone := make([]*string, n), make([]*string, n), make([]bool, n)
		for i := range rows {
			r := &rows[i]
			r.TenantID = s.TenantID
			imports[i], rowNos[i], outcomes[i], ids[i], befores[i], undone[i] = r.ImportID, int32(r.RowNo), r.Outcome, r.EntityID, r.Before, r.Undone
			if r.Reason != nil { // as bun writes a struct: its JSON
				js, err := json.Marshal(r.Reason)
				if err != nil {
					return nil, err
				}
				reason := string(js)
				reasons[i] = &reason
			}
		}
		return []any{imports, rowNos, outcomes, ids, befores, reasons, undone}, nil
	})
}

const importRowsApart = `INSERT INTO import_rows (tenant_id, import_id, row_no, outcome, entity_id, before, reason, undone)
SELECT $1::bigint, v.* FROM unnest($2::bigint[], $3::integer[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::boolean[])
AS v (import_id, row_no, outcome, entity_id, before, reason, undone)`

// insertApart writes rows of the scope's tenant in one statement: on PostgreSQL query, its
// $1 the tenant and $2… the arrays columns gives; elsewhere bun's statement.
func insertApart[T any](ctx context.Context, s Scope, rows []T, query string, columns func() ([]any, error)) error {
	if len(rows) == 0 {
		return nil
	}
	if s.Dialect() != Postgres {
		_, err := s.Insert(&rows).Returning("NULL").Exec(ctx)
		return err
	}
	arrays, err := columns()
	if err != nil {
		return err
	}
	// Through bun, so the query hooks see it; the connection sends the values apart from
	// the text (withBound, tenantConn) and, the text being the same every time, prepares it
	// once (rlsConn.ExecContext).
	_, err = s.idb.NewRaw(query).Exec(withBound(ctx, append([]any{s.TenantID}, arrays...)...))
	return err
}
