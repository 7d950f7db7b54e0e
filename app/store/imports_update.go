package store

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// update applies a row to the record it matches, in memory: the record as UpdateLead or
// UpdateClient would make it, refused as they would refuse it, with the journey entries
// they would record. The record is written with the batch's other updates (writeUpdates).
func (a *batchApplier[R]) update(ctx context.Context, it *ImportItem, id int64, row importRow) (importRow, error) {
	row.EntityID = &id
	old := a.records[id]
	next, entries, skip, err := a.ad.update(ctx, a.tx, a.refs, old, it)
	if err != nil {
		return refused(row, err)
	}
	switch skip {
	case ReasonUnchanged:
		row.Outcome, row.Reason = OutcomeSkipped, &RowReason{Code: ReasonUnchanged, ID: id}
		return row, nil
	case ReasonNotFound:
		row.Outcome, row.Reason, row.EntityID = OutcomeSkipped, &RowReason{Code: ReasonNotFound}, nil
		return row, nil
	}
	before, err := jsonOrNil(old)
	if err != nil {
		return row, err
	}
	a.entries = append(a.entries, entries...)
	if _, ok := a.updated[id]; !ok {
		a.updated[id] = old
		a.updatedIDs = append(a.updatedIDs, id)
	}
	a.records[id] = next
	row.Outcome, row.Before = OutcomeUpdated, before
	return row, nil
}

// writeUpdates writes the batch's updated records, each as it is now over what it was
// before the batch, and the journey entries of every update.
func (a *batchApplier[R]) writeUpdates(ctx context.Context) error {
	if len(a.updatedIDs) == 0 {
		return nil
	}
	recs := make([]changedColumns, 0, len(a.updatedIDs))
	for _, id := range a.updatedIDs {
		recs = append(recs, changedColumns{id, a.ad.columns(a.updated[id], a.records[id])})
	}
	if err := a.tx.updateByID(ctx, a.ad.entity, recs); err != nil {
		return err
	}
	if err := a.tx.insertJourney(ctx, a.entries); err != nil {
		return err
	}
	clear(a.updated)
	a.updatedIDs, a.entries = a.updatedIDs[:0], a.entries[:0]
	return nil
}

// columnValue is a column to set and its new value.
type columnValue struct {
	column string
	value  any
}

// changedColumns are the columns of one record that change, by its id.
type changedColumns struct {
	id      int64
	columns []columnValue
}

// columnTypes are the PostgreSQL types of the columns updateByID writes, for its arrays.
var columnTypes = map[string]string{
	"customer_title": "text", "customer_name": "text", "company_name": "text", "company_email": "text",
	"company_dial_code": "text", "company_phone_number": "text", "notes": "text", "search_text": "text",
	"company_type_id": "bigint", "lead_type_id": "bigint", "lead_source_id": "bigint", "lead_status_id": "bigint",
	"lead_stage_id": "bigint", "owner_id": "bigint", "billing_address": "text", "shipping_address": "text",
	"updated_at": "timestamptz",
}

// columns are the columns of a record that differ from a to b, with b's values: the
// fields a form edits, its references (masters, owner), the search text, and its time of
// change.
func (ad *importAdapter[R]) columns(a, b *R) []columnValue {
	x, y := ad.record(a), ad.record(b)
	var out []columnValue
	for _, col := range contactTextColumns {
		if a, b := *x.field(col, false), *y.field(col, false); a != b {
			out = append(out, columnValue{col, b})
		}
	}
	if *x.searchText != *y.searchText {
		out = append(out, columnValue{"search_text", *y.searchText})
	}
	for _, c := range []struct {
		column string
		a, b   *Address
	}{{"billing_address", x.BillingAddress, y.BillingAddress}, {"shipping_address", x.ShippingAddress, y.ShippingAddress}} {
		if !reflect.DeepEqual(c.a, c.b) {
			var v *string
			if c.b != nil {
				js := c.b.column() // as bun writes an address
				v = &js
			}
			out = append(out, columnValue{c.column, v})
		}
	}
	aRefs, bRefs := ad.refs(a), ad.refs(b)
	cols := make([]string, 0, len(bRefs))
	for col := range bRefs {
		cols = append(cols, col)
	}
	slices.Sort(cols)
	for _, col := range cols {
		p, q := aRefs[col], bRefs[col]
		if (p == nil) != (q == nil) || p != nil && *p != *q {
			out = append(out, columnValue{col, q})
		}
	}
	return append(out, columnValue{"updated_at", *y.updatedAt})
}

// updateByID writes the changed columns of records of the entity the scope may reach, by
// id. A column that does not change is not written: its indexes, its search entry and the
// counter triggers that watch it are left alone.
//
// The tenant is compared as in every statement on a batch's records (batchTenant): with
// the tenant as a constant the planner walked the tenant's leads for each statement
// (0.55 ms a record of a 100,000-row update; TestImportBatchStatementsProbeTheirIndex). A
// table never analyzed misleads it worse (a tenant taken for 200 rows: every lead of the
// tenant compared with every record); the runner refreshes the statistics after a large
// import (RefreshStatistics). Naming the ids on the leads' side as well was tried: with
// good statistics it turned the probe per record into a join filter of every record
// against every other (150 records: 11,175 comparisons).
func (s Scope) updateByID(ctx context.Context, e *Entity, recs []changedColumns) error {
	sts, err := s.updateStatements(e, recs)
	if err != nil {
		return err
	}
	for _, st := range sts {
		if _, err := s.idb.NewRaw(st.query, st.args...).Exec(st.ctx(ctx)); err != nil {
			return err
		}
	}
	return nil
}

// rawStatement is a statement's text with bun's ? placeholders, and their values, which
// bun writes into the text; and the values of its $1…$n, sent apart from it (withBound).
type rawStatement struct {
	query string
	args  []any
	bound []any
}

// ctx is the context to run the statement with: ctx carrying its values sent apart.
func (st rawStatement) ctx(ctx context.Context) context.Context {
	if len(st.bound) == 0 {
		return ctx
	}
	return withBound(ctx, st.bound...)
}

// updateStatements are the statements updateByID runs, in order: on PostgreSQL one for the
// batch (pgUpdateStatements), on SQLite one per group of records that change the same
// columns (sqliteUpdateStatements).
func (s Scope) updateStatements(e *Entity, recs []changedColumns) ([]rawStatement, error) {
	if s.Dialect() == Postgres {
		return s.pgUpdateStatements(e, recs)
	}
	return s.sqliteUpdateStatements(e, recs), nil
}

// updateTail is what every update statement ends with: the join on the records' ids, the
// tenant, and the caller's reach.
func (s Scope) updateTail(e *Entity, q *strings.Builder, args []any) []any {
	whose, whoseArgs := s.whose(e.Feature, e.Alias+".owner_id", e.Alias+".created_by")
	q.WriteString(" FROM v WHERE " + e.Alias + ".id = v.id AND " + e.Alias + ".tenant_id = " + s.batchTenant())
	args = append(args, s.TenantID)
	if whose != "" {
		q.WriteString(" AND " + whose)
		args = append(args, whoseArgs...)
	}
	return args
}

// pgUpdateStatements writes every record of the batch with one statement (a chunk of
// MaxImportBatch records each): the values as one array a column (unnest), sent apart from
// the text (withBound) as the batch's inserts send theirs, so the text names the columns
// only, the same for every batch that changes the same ones (prepared once a connection,
// rlsConn), rather than hundreds of kilobytes of literals. The update took as long either
// way (docs/PERFORMANCE.md, "Forty-third round"): its time is in the rows. A column only some records
// change carries a second array, whether each does, and keeps the others' value (CASE):
// PostgreSQL decides what an index needs from the values a row ends with, not from the
// columns the statement names, so a column written with its own value costs no index entry.
// One statement instead of one per group of columns (a dozen a batch of the realistic file)
// plans once and fires the statement triggers (the counters') once.
func (s Scope) pgUpdateStatements(e *Entity, recs []changedColumns) ([]rawStatement, error) {
	recs = slices.Clone(recs)
	slices.SortFunc(recs, func(x, y changedColumns) int { return cmp.Compare(x.id, y.id) })
	var out []rawStatement
	for len(recs) > 0 {
		chunk := recs[:min(len(recs), MaxImportBatch)]
		recs = recs[len(chunk):]
		changes := map[string]int{} // column → how many records change it
		for _, r := range chunk {
			for _, c := range r.columns {
				changes[c.column]++
			}
		}
		cols := make([]string, 0, len(changes))
		for c := range changes {
			cols = append(cols, c)
		}
		slices.Sort(cols)
		var q strings.Builder
		ids := make([]int64, len(chunk))
		for j, r := range chunk {
			ids[j] = r.id
		}
		bound := []any{ids}
		names := []string{"id"}
		q.WriteString("WITH v AS (SELECT * FROM unnest($1::bigint[]")
		for _, c := range cols {
			values, changed, err := columnArray(chunk, c)
			if err != nil {
				return nil, err
			}
			bound = append(bound, values)
			fmt.Fprintf(&q, ", $%d::%s[]", len(bound), columnTypes[c])
			names = append(names, c)
			if changes[c] < len(chunk) {
				bound = append(bound, changed)
				fmt.Fprintf(&q, ", $%d::boolean[]", len(bound))
				names = append(names, c+"__set")
			}
		}
		q.WriteString(") AS v (" + strings.Join(names, ", ") + ")) UPDATE " + e.Table + " AS " + e.Alias + " SET ")
		for i, c := range cols {
			if i > 0 {
				q.WriteString(", ")
			}
			if changes[c] < len(chunk) {
				q.WriteString(c + " = CASE WHEN v." + c + "__set THEN v." + c + " ELSE " + e.Alias + "." + c + " END")
			} else {
				q.WriteString(c + " = v." + c)
			}
		}
		args := s.updateTail(e, &q, nil)
		out = append(out, rawStatement{q.String(), args, bound})
	}
	return out, nil
}

// sqliteUpdateStatements writes the records one statement per group of records that change
// the same columns (a batch's rows mostly change the same ones, so a batch is a statement
// or a few), in id order, the values as VALUES. SQLite rewrites the index entries of every
// column a statement names, whether its value changes or not, so the groups name only what
// their records change.
func (s Scope) sqliteUpdateStatements(e *Entity, recs []changedColumns) []rawStatement {
	// The search text of every record in one statement, after the others. FTS5 writes what
	// a statement added to its index as a new segment when the next statement begins, and
	// merges segments as they pile up: with a statement per group of columns, a batch of a
	// file whose rows change different columns made a dozen small segments and their merges
	// (a third of the time of an update of 100,000 rows).
	var search []changedColumns
	split := make([]changedColumns, 0, len(recs))
	for _, r := range recs {
		i := slices.IndexFunc(r.columns, func(c columnValue) bool { return c.column == "search_text" })
		if i < 0 {
			split = append(split, r)
			continue
		}
		search = append(search, changedColumns{r.id, r.columns[i : i+1]})
		split = append(split, changedColumns{r.id, slices.Delete(slices.Clone(r.columns), i, i+1)})
	}
	groups := map[string][]changedColumns{}
	var keys []string
	for _, r := range split {
		names := make([]string, len(r.columns))
		for i, c := range r.columns {
			names[i] = c.column
		}
		k := strings.Join(names, ",")
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	if len(search) > 0 { // last (no other group is this column alone: each has updated_at)
		keys = append(keys, "search_text")
		groups["search_text"] = search
	}
	var out []rawStatement
	for _, k := range keys {
		group := groups[k]
		slices.SortFunc(group, func(x, y changedColumns) int { return cmp.Compare(x.id, y.id) })
		cols := strings.Split(k, ",")
		for len(group) > 0 {
			chunk := group[:min(len(group), MaxImportBatch)]
			group = group[len(chunk):]
			var q strings.Builder
			args := make([]any, 0, len(chunk)*(len(cols)+1)+3)
			q.WriteString("WITH v (id, " + k + ") AS (VALUES ")
			for i, r := range chunk {
				if i > 0 {
					q.WriteString(", ")
				}
				q.WriteString("(?")
				args = append(args, r.id)
				for _, c := range r.columns {
					q.WriteString(", ?")
					args = append(args, c.value)
				}
				q.WriteString(")")
			}
			q.WriteString(") UPDATE " + e.Table + " AS " + e.Alias + " SET ")
			for i, c := range cols {
				if i > 0 {
					q.WriteString(", ")
				}
				q.WriteString(c + " = v." + c)
			}
			args = s.updateTail(e, &q, args)
			out = append(out, rawStatement{q.String(), args, nil})
		}
	}
	return out
}

// columnArray is the values the chunk's records give a column, as the array its type is
// sent in (pgtype's flat arrays, which pgx encodes without reflection; bigint and time in
// binary, text as text: a NULL where the record sets NULL or does not change the column),
// and which records change it. A record that does not change the column has its flag
// false: it keeps the row's own value. Text is written as bun writes a text into an array
// (each invalid UTF-8 byte as U+FFFD); a NUL, which PostgreSQL's text cannot hold, is
// refused (an import refuses such a row before it comes here).
func columnArray(chunk []changedColumns, column string) (any, []bool, error) {
	changed := make([]bool, len(chunk))
	values := make([]any, len(chunk))
	for j, r := range chunk {
		for _, c := range r.columns {
			if c.column == column {
				values[j], changed[j] = c.value, true
				break
			}
		}
	}
	switch columnTypes[column] {
	case "bigint":
		out := make(pgtype.FlatArray[pgtype.Int8], len(chunk))
		for j, v := range values {
			if v, ok := v.(*int64); ok && v != nil {
				out[j] = pgtype.Int8{Int64: *v, Valid: true}
			}
		}
		return out, changed, nil
	case "timestamptz":
		out := make(pgtype.FlatArray[pgtype.Timestamptz], len(chunk))
		for j, v := range values {
			if v, ok := v.(time.Time); ok {
				out[j] = apartTime(v)
			}
		}
		return out, changed, nil
	}
	out := make(pgtype.FlatArray[pgtype.Text], len(chunk))
	for j, v := range values {
		var text *string
		switch v := v.(type) {
		case string:
			text = &v
		case *string:
			text = v
		}
		if text == nil {
			continue
		}
		t, err := sanitized(*text)
		if err != nil {
			return nil, nil, fmt.Errorf("store: column %s: %w", column, err)
		}
		out[j] = pgtype.Text{String: t, Valid: true}
	}
	return out, changed, nil
}
