package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/uptrace/bun/schema"
)

// An import batch writes thousands of records, journey entries and rows' outcomes a
// statement. Written by bun, such a statement is a VALUES list with every value in its
// text (4,000 journey entries: about 1 MB), which PostgreSQL parses, analyzes and plans
// before writing a row, a large share of the statement's time (docs/PERFORMANCE.md, "Forty-first
// round" and "Forty-second round"). On PostgreSQL these statements send their values apart
// from the text instead, an array a column read with unnest, so the text is the same for
// every batch of a table, the arrays sent in binary.
// The statement is built from bun's model of the table, so it writes what bun's would:
// the same columns, a value that bun writes as DEFAULT taking the column's default, times
// to the microsecond as bun truncates them. SQLite, which parses in process and has no
// arrays, keeps bun's statement.

// insertJourney writes journey entries of the scope's tenant; their ids are not read back.
func (s Scope) insertJourney(ctx context.Context, entries []AuditEntry) error {
	return insertApart(ctx, s, entries, "", nil)
}

// insertImportRows writes the outcomes of an import's rows, of the scope's tenant.
func (s Scope) insertImportRows(ctx context.Context, rows []importRow) error {
	return insertApart(ctx, s, rows, "", nil)
}

// insertApart writes rows, a slice of one tenant-owned model (structs or pointers to them),
// as the scope's tenant's in one statement, and reads the new rows' returning columns into
// dest (nothing when dest is nil).
func insertApart[T any](ctx context.Context, s Scope, rows []T, returning string, dest any) error {
	if len(rows) == 0 {
		return nil
	}
	var q interface {
		Exec(context.Context, ...any) (sql.Result, error)
		Scan(context.Context, ...any) error
	}
	if s.Dialect() != Postgres {
		if dest == nil {
			returning = "NULL" // bun's default would read the ids back
		}
		q = s.Insert(&rows).Returning(returning)
	} else {
		stampSlice(&rows, s.TenantID)
		stmt, err := s.db.apartStatement(ctx, s, reflect.TypeFor[T]())
		if err != nil {
			return err
		}
		args, err := apartArrays(stmt, rows)
		if err != nil {
			return err
		}
		// Through bun, so the query hooks see it; the connection sends the values apart from
		// the text (withBound, tenantConn) and, the text being the same every time, prepares
		// it once (rlsConn.ExecContext). With RETURNING it runs as a query, unprepared: a
		// text of a few hundred bytes, planned in well under a millisecond.
		query := stmt.query
		if dest != nil {
			query += " RETURNING " + returning
		}
		q = s.idb.NewRaw(query)
		ctx = withBound(ctx, append([]any{s.TenantID}, args...)...)
	}
	if dest == nil {
		_, err := q.Exec(ctx)
		return err
	}
	return q.Scan(ctx, dest)
}

// apartInsert is the statement that inserts rows of a model's table with their values apart:
// $1 the tenant, then one array a column, cast to the column's type.
type apartInsert struct {
	columns []apartColumn // the columns the arrays fill, in order
	query   string        // without its RETURNING clause
}

// apartColumn is a column of the statement: its field, and the array its values go in.
type apartColumn struct {
	field  *schema.Field
	array  apartArray
	valuer bool // the field's type writes its own value (driver.Valuer)
}

// apartArray is the array a column's values are sent in: a field of an integer, time or
// boolean type to a column of that type goes in its own array, sent in binary; anything
// else as text, which PostgreSQL reads by the column's type.
type apartArray int

const (
	textArray apartArray = iota
	intArray
	timeArray
	boolArray
)

// arrayType is the array a field's values go in for a column of the catalog's type (a
// field whose type writes its own value goes as text).
func arrayType(f *schema.Field, valuer bool, column string) (apartArray, string) {
	t := f.IndirectType
	if valuer {
		return textArray, "text[]"
	}
	switch {
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64 && (column == "bigint" || column == "integer" || column == "smallint"):
		return intArray, "bigint[]"
	case t == reflect.TypeFor[time.Time]() && column == "timestamp with time zone":
		return timeArray, "timestamptz[]"
	case t.Kind() == reflect.Bool && column == "boolean":
		return boolArray, "boolean[]"
	}
	return textArray, "text[]"
}

// isValuer says whether a field of type t (or *t) writes its own value, as bun asks.
func isValuer(t reflect.Type) bool {
	return t.Implements(reflect.TypeFor[driver.Valuer]()) || reflect.PointerTo(t).Implements(reflect.TypeFor[driver.Valuer]())
}

// catalogColumn is a column as PostgreSQL's catalog has it: its type, without a length or
// precision (an explicit cast to varchar(n) would cut a long value where the insert's own
// assignment refuses it, as it refuses bun's), and its default expression ("" for none).
type catalogColumn struct {
	Name    string `bun:"name"`
	Type    string `bun:"type"`
	Default string `bun:"def"`
}

// apartStatement is the insert of typ's table (typ a model or a pointer to one), built
// from bun's fields and the catalog's types and defaults once a process.
func (db *DB) apartStatement(ctx context.Context, s Scope, typ reflect.Type) (*apartInsert, error) {
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	table := db.bun.Dialect().Tables().Get(typ)
	if st, ok := db.apart.Load(table.Name); ok {
		return st.(*apartInsert), nil
	}
	var cols []catalogColumn
	if err := s.idb.NewRaw(`SELECT a.attname AS name, format_type(a.atttypid, NULL) AS type,
COALESCE(pg_get_expr(d.adbin, d.adrelid), '') AS def
FROM pg_attribute AS a LEFT JOIN pg_attrdef AS d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped`, table.Name).Scan(ctx, &cols); err != nil {
		return nil, err
	}
	byName := make(map[string]catalogColumn, len(cols))
	for _, c := range cols {
		byName[c.Name] = c
	}
	st := &apartInsert{}
	var names, selects, arrays, aliases []string
	for _, f := range table.Fields {
		c, ok := byName[f.Name]
		switch {
		case !ok:
			return nil, fmt.Errorf("store: %s has no column %s", table.Name, f.Name)
		case f.AutoIncrement: // as bun on PostgreSQL: the identity gives it
			continue
		case f.Name == "tenant_id":
			names, selects = append(names, string(f.SQLName)), append(selects, "$1::bigint")
			continue
		}
		valuer := isValuer(f.IndirectType)
		array, arrayType := arrayType(f, valuer, c.Type)
		st.columns = append(st.columns, apartColumn{field: f, array: array, valuer: valuer})
		v := fmt.Sprintf("CAST(v.%s AS %s)", f.SQLName, c.Type)
		if c.Default != "" { // what bun writes as DEFAULT comes as NULL
			v = fmt.Sprintf("COALESCE(%s, %s)", v, c.Default)
		}
		names, selects = append(names, string(f.SQLName)), append(selects, v)
		arrays = append(arrays, fmt.Sprintf("$%d::%s", len(st.columns)+1, arrayType))
		aliases = append(aliases, string(f.SQLName))
	}
	st.query = fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM unnest(%s) AS v (%s)", table.SQLName,
		strings.Join(names, ", "), strings.Join(selects, ", "), strings.Join(arrays, ", "), strings.Join(aliases, ", "))
	got, _ := db.apart.LoadOrStore(table.Name, st)
	return got.(*apartInsert), nil
}

// apartArrays are rows' values, one array a column of the statement (pgtype's flat arrays,
// which pgx encodes without reflection; an invalid element is NULL).
func apartArrays[T any](st *apartInsert, rows []T) ([]any, error) {
	args := make([]any, len(st.columns))
	for i, c := range st.columns {
		switch c.array {
		case intArray:
			args[i] = make(pgtype.FlatArray[pgtype.Int8], len(rows))
		case timeArray:
			args[i] = make(pgtype.FlatArray[pgtype.Timestamptz], len(rows))
		case boolArray:
			args[i] = make(pgtype.FlatArray[pgtype.Bool], len(rows))
		default:
			args[i] = make(pgtype.FlatArray[pgtype.Text], len(rows))
		}
	}
	for r := range rows {
		strct := reflect.Indirect(reflect.ValueOf(&rows[r]).Elem())
		for i, c := range st.columns {
			f := c.field
			fv := f.Value(strct)
			// bun's rule for DEFAULT (InsertQuery.marshalsToDefault); NULL here
			if (f.IsPtr && fv.IsNil()) || ((f.NullZero || f.SQLDefault != "") && f.IsZero(fv)) {
				continue
			}
			fv = reflect.Indirect(fv)
			switch c.array {
			case intArray:
				args[i].(pgtype.FlatArray[pgtype.Int8])[r] = pgtype.Int8{Int64: fv.Int(), Valid: true}
			case timeArray:
				args[i].(pgtype.FlatArray[pgtype.Timestamptz])[r] = apartTime(fv.Interface().(time.Time))
			case boolArray:
				args[i].(pgtype.FlatArray[pgtype.Bool])[r] = pgtype.Bool{Bool: fv.Bool(), Valid: true}
			default:
				var text string
				var ok bool
				var err error
				if fv.Kind() == reflect.String && !c.valuer { // most columns: no Interface, no allocation
					text, err = sanitized(fv.String())
					ok = err == nil
				} else {
					text, ok, err = columnText(fv)
				}
				if err != nil {
					return nil, fmt.Errorf("store: column %s: %w", f.Name, err)
				}
				args[i].(pgtype.FlatArray[pgtype.Text])[r] = pgtype.Text{String: text, Valid: ok}
			}
		}
	}
	return args, nil
}

// apartTime is a time sent apart as bun writes it into a statement: to the microsecond.
func apartTime(t time.Time) pgtype.Timestamptz {
	return pgtype.Timestamptz{Time: t.Truncate(time.Microsecond), Valid: true}
}

var errStringNul = errors.New("a text holds a NUL byte")

// sanitized is a text as bun writes it: refused with a NUL byte, which PostgreSQL's text
// cannot hold, and each invalid UTF-8 byte as U+FFFD.
func sanitized(s string) (string, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return "", errStringNul
	}
	if !utf8.ValidString(s) {
		s = string([]rune(s))
	}
	return s, nil
}

// columnText is a value as PostgreSQL reads it from text, written as bun writes it into a
// statement (false for NULL).
func columnText(v reflect.Value) (string, bool, error) {
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return "", false, nil
	}
	x := v.Interface()
	if vr, ok := x.(driver.Valuer); ok || v.CanAddr() && v.Addr().Type().Implements(reflect.TypeFor[driver.Valuer]()) {
		if !ok {
			vr = v.Addr().Interface().(driver.Valuer)
		}
		dv, err := vr.Value()
		if err != nil || dv == nil {
			return "", false, err
		}
		return columnText(reflect.ValueOf(dv))
	}
	switch t := x.(type) {
	case time.Time:
		return t.UTC().Format("2006-01-02 15:04:05.999999-07:00"), true, nil
	case []byte:
		return `\x` + hex.EncodeToString(t), true, nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		return columnText(v.Elem())
	case reflect.String:
		s, err := sanitized(v.String())
		return s, err == nil, err
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10), true, nil
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), true, nil
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64), true, nil
	case reflect.Struct, reflect.Map, reflect.Slice, reflect.Array: // bun writes these as JSON
		js, err := json.Marshal(x)
		return string(js), err == nil, err
	}
	return "", false, fmt.Errorf("cannot write a %s apart", v.Type())
}
