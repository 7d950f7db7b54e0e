package store

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun/schema"
)

// An import's batch writes thousands of rows a statement. bun writes their values into
// the statement's text, and SQLite parses that text and compiles code for every value of
// it: for a batch of 2,000 records with their notes and JSON copies, a statement of a
// megabyte or more, parsed and compiled once and thrown away (a tenth of the CPU of an
// import's update step on SQLite; docs/PERFORMANCE.md, "Thirty-eighth round"). On SQLite
// such a batch's rows travel instead apart from the text as one JSON array of arrays
// ($1), which SQLite reads with json_each at C speed, the text then the same for every
// batch. PostgreSQL parses a long text cheaply and keeps bun's statements.

// sqliteJSONRows encodes rows, each an array of column values, as the JSON array
// json_each reads: texts as strings, numbers, booleans (SQLite's ->> gives 1 and 0, as
// bun's TRUE and FALSE store), NULLs, times as bun writes them on SQLite (sqliteTime).
// ok is false for a value of another type, or a text JSON would change (not UTF-8) or
// that bun refuses (a NUL): such rows are written in by bun as before.
func sqliteJSONRows(rows [][]any) (js string, ok bool) {
	for _, row := range rows {
		for i, v := range row {
			switch v := v.(type) {
			case nil, int, int64, bool:
			case *int64:
				if v == nil {
					row[i] = nil
				}
			case string:
				if !sqliteJSONSafe(v) {
					return "", false
				}
			case *string:
				if v == nil {
					row[i] = nil
				} else if !sqliteJSONSafe(*v) {
					return "", false
				}
			case time.Time:
				row[i] = sqliteTime(v)
			default:
				return "", false
			}
		}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rows); err != nil {
		return "", false
	}
	return b.String(), true
}

// sqliteJSONSafe reports whether a JSON string carries text s unchanged into SQLite.
func sqliteJSONSafe(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// sqliteTime is a time as bun writes it into a statement's text on SQLite (its dialect's
// AppendTime), which is how every time of the records is stored.
func sqliteTime(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05.999999-07:00")
}

// jsonColumns is the select list that reads n columns from the rows json_each gives:
// value->>0, …, value->>n-1.
func jsonColumns(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("value->>" + strconv.Itoa(i))
	}
	return b.String()
}

// insertJSONRows inserts rows into table's columns on SQLite with the rows sent apart
// (sqliteJSONRows), in their order. ok is false, with nothing written, when the rows
// cannot travel as JSON or the scope is on PostgreSQL: the caller inserts them with bun.
func (s Scope) insertJSONRows(ctx context.Context, table string, columns []string, rows [][]any) (ok bool, err error) {
	if s.Dialect() != SQLite {
		return false, nil
	}
	js, ok := sqliteJSONRows(rows)
	if !ok {
		return false, nil
	}
	q := "INSERT INTO " + table + " (" + strings.Join(columns, ", ") + ") SELECT " + jsonColumns(len(columns)) +
		" FROM json_each($1)"
	_, err = s.idb.NewRaw(q).Exec(withBound(ctx, js))
	return true, err
}

// insertJSONRecords inserts records (leads, clients) of the scope's tenant on SQLite with
// their values sent apart, every column bun's insert names (their default for a nullzero
// one left zero, as bun writes it), in their order, and scans the returning columns of the
// new rows into dest, as Insert(&recs).Returning(returning).Scan(ctx, dest) does. ok is
// false, with nothing written, on PostgreSQL, for a record that has its id already, or a
// value that cannot travel as JSON: the caller inserts with bun then.
func insertJSONRecords[R any](ctx context.Context, s Scope, recs []*R, returning string, dest any) (ok bool, err error) {
	if s.Dialect() != SQLite || len(recs) == 0 {
		return false, nil
	}
	table := s.db.bun.Table(reflect.TypeFor[R]())
	var fields []*schema.Field
	var cols, exprs []string
	for _, f := range table.Fields {
		if f.IsPK && f.AutoIncrement {
			continue // the database gives it
		}
		expr := "value->>" + strconv.Itoa(len(fields))
		if f.NullZero && f.SQLDefault != "" {
			expr = "COALESCE(" + expr + ", " + f.SQLDefault + ")"
		}
		fields, cols, exprs = append(fields, f), append(cols, f.Name), append(exprs, expr)
	}
	rows := make([][]any, len(recs))
	for i, r := range recs {
		if o, ok := any(r).(tenantOwned); ok {
			o.setTenant(s.TenantID)
		}
		rv := reflect.ValueOf(r).Elem()
		for _, f := range table.PKs {
			if f.AutoIncrement && !f.HasZeroValue(rv) {
				return false, nil
			}
		}
		row := make([]any, len(fields))
		for j, f := range fields {
			if f.NullZero && f.HasZeroValue(rv) {
				continue // NULL: the default, or NULL as bun writes it
			}
			v := f.Value(rv).Interface()
			if dv, ok := v.(driver.Valuer); ok { // an address: its column
				if v, err = dv.Value(); err != nil {
					return false, err
				}
			}
			row[j] = v
		}
		rows[i] = row
	}
	js, ok := sqliteJSONRows(rows)
	if !ok {
		return false, nil
	}
	q := "INSERT INTO " + table.Name + " (" + strings.Join(cols, ", ") + ") SELECT " + strings.Join(exprs, ", ") +
		" FROM json_each($1) RETURNING " + returning
	return true, s.idb.NewRaw(q).Scan(withBound(ctx, js), dest)
}

// insertAudit records journey entries of the scope's tenant, as Insert would.
func (s Scope) insertAudit(ctx context.Context, entries []AuditEntry) error {
	if len(entries) == 0 {
		return nil
	}
	rows := make([][]any, 0, len(entries))
	for _, e := range entries {
		if e.ID != 0 || !e.CreatedAt.IsZero() { // bun names these columns only then
			rows = nil
			break
		}
		rows = append(rows, []any{s.TenantID, e.ActorUserID, e.Entity, e.EntityID, e.Action, e.Before, e.After})
	}
	if rows != nil {
		ok, err := s.insertJSONRows(ctx, "audit_log",
			[]string{"tenant_id", "actor_user_id", "entity", "entity_id", "action", "before", "after"}, rows)
		if ok || err != nil {
			return err
		}
	}
	_, err := s.Insert(&entries).Returning("NULL").Exec(ctx) // nothing reads their ids back
	return err
}

// insertImportRows records what a batch did with each of its rows.
func (s Scope) insertImportRows(ctx context.Context, rows []importRow) error {
	if len(rows) == 0 {
		return nil
	}
	values := make([][]any, len(rows))
	for i, r := range rows {
		var reason *string
		if r.Reason != nil {
			js, err := json.Marshal(r.Reason) // as bun writes a struct column
			if err != nil {
				return err
			}
			text := string(js)
			reason = &text
		}
		values[i] = []any{s.TenantID, r.ImportID, r.RowNo, r.Outcome, r.EntityID, r.Before, reason, r.Undone}
	}
	ok, err := s.insertJSONRows(ctx, "import_rows",
		[]string{"tenant_id", "import_id", "row_no", "outcome", "entity_id", "before", "reason", "undone"}, values)
	if ok || err != nil {
		return err
	}
	_, err = s.Insert(&rows).Returning("NULL").Exec(ctx)
	return err
}
