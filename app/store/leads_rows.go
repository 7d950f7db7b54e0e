package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// leadRowColumns are the columns a list page reads of each of its leads, in the order
// leadRows scans them: every column of a Lead but search_text, which no page shows.
// TestLeadRowColumnsAreTheLeadsColumns keeps the list in step with the Lead struct.
var leadRowColumns = []string{
	"tenant_id", "id", "client_id",
	"customer_title", "customer_name", "company_name", "company_email", "company_dial_code",
	"company_phone_number", "company_type_id", "owner_id", "billing_address", "shipping_address", "notes",
	"lead_type_id", "lead_source_id", "lead_status_id", "lead_stage_id", "created_by", "created_at", "updated_at",
}

// selectLeadRows makes q (a select of leads) read leadRowColumns. On SQLite the two times
// are read as text and parsed by timeColumn: for a column declared TIMESTAMP modernc's
// driver first tries Go's time.String layout, which fails on every value the store
// writes, before the layout that fits: 830 ns a value instead of 320.
func selectLeadRows(q *bun.SelectQuery, d Dialect) *bun.SelectQuery {
	if d == SQLite {
		return q.ColumnExpr(leadRowSelectSQLite)
	}
	return q.ColumnExpr(leadRowSelect)
}

// leadRowSelect and leadRowSelectSQLite are leadRowColumns as one expression, written once:
// as columns one by one, bun grew its list and quoted each name at every page and view, a
// twentieth of a view's CPU in the app (docs/PERFORMANCE.md, "Thirty-seventh round"). The
// text is what bun wrote.
var leadRowSelect, leadRowSelectSQLite = leadRowExprs()

func leadRowExprs() (string, string) {
	all := make([]string, len(leadRowColumns))
	lite := make([]string, len(leadRowColumns))
	for i, c := range leadRowColumns {
		all[i] = `"l"."` + c + `"`
		lite[i] = all[i]
		if c == "created_at" || c == "updated_at" {
			lite[i] = "CAST(l." + c + " AS TEXT)"
		}
	}
	return strings.Join(all, ", "), strings.Join(lite, ", ")
}

// leadViewNames are the names a lead view reads after leadRowColumns, in the order
// leadRows scans them: scalar subqueries rather than joins (with seven joins PostgreSQL
// spent longer choosing a join order, 7–15 ms, than running the query), and the stage
// joined as st. One expression, written once, instead of ten for bun to put together at
// every view.
const leadViewNames = "st.name AS lead_stage_name, st.is_won AS lead_stage_is_won, st.is_lost AS lead_stage_is_lost, " +
	"(SELECT m.name FROM lead_masters AS m WHERE m.tenant_id = l.tenant_id AND m.id = l.lead_status_id) AS lead_status_name, " +
	"(SELECT m.name FROM lead_masters AS m WHERE m.tenant_id = l.tenant_id AND m.id = l.lead_source_id) AS lead_source_name, " +
	"(SELECT m.name FROM lead_masters AS m WHERE m.tenant_id = l.tenant_id AND m.id = l.lead_type_id) AS lead_type_name, " +
	"(SELECT m.name FROM lead_masters AS m WHERE m.tenant_id = l.tenant_id AND m.id = l.company_type_id) AS company_type_name, " +
	"(SELECT u.name FROM users AS u WHERE u.tenant_id = l.tenant_id AND u.id = l.created_by) AS created_user_name, " +
	"(SELECT u.name FROM users AS u WHERE u.tenant_id = l.tenant_id AND u.id = l.owner_id) AS owner_name, " +
	"EXISTS (SELECT 1 FROM lead_logos ll WHERE ll.tenant_id = l.tenant_id AND ll.lead_id = l.id) AS has_logo"

// withLeadViewNames makes q (a select of leads as l) read leadViewNames after its
// columns, with the stage they name joined.
func withLeadViewNames(q *bun.SelectQuery) *bun.SelectQuery {
	return q.ColumnExpr(leadViewNames).
		Join("LEFT JOIN lead_masters AS st ON st.tenant_id = l.tenant_id AND st.id = l.lead_stage_id")
}

// leadRows reads leads field by field instead of through bun's reflection: bun looks each
// column up by name and scans it through reflect for every row, a sixth of the time a
// page of 20 leads spends reading its rows (docs/PERFORMANCE.md, "Thirty-fourth round").
// With names, each row goes on with leadViewNames (a lead view). It is a bun.Model, so
// the query still runs through bun and its hooks (statement counts and times).
type leadRows struct {
	rows  *[]LeadView
	names bool
}

var _ bun.Model = leadRows{}

func (m leadRows) Value() any { return m.rows }

// ScanRows appends every row to the slice, as bun's own slice models do. A row's nullable
// ids, client id and addresses are scanned by, and point into, one leadRowSlots of its own
// instead of each value taking an allocation of its own (eleven a row); the scan's
// destinations are one slice for every row.
func (m leadRows) ScanRows(ctx context.Context, rows *sql.Rows) (int, error) {
	n := 0
	dest := make([]any, 0, 31)
	for rows.Next() {
		*m.rows = append(*m.rows, LeadView{})
		v := &(*m.rows)[len(*m.rows)-1]
		c := &v.Contact
		s := &leadRowSlots{
			clientID: nullable[string]{p: &v.ClientID},
			ids: [7]nullable[int64]{{p: &c.CompanyTypeID}, {p: &c.OwnerID}, {p: &v.LeadTypeID}, {p: &v.LeadSourceID},
				{p: &v.LeadStatusID}, {p: &v.LeadStageID}, {p: &v.CreatedBy}},
			addresses: [2]nullAddress{{p: &c.BillingAddress}, {p: &c.ShippingAddress}},
		}
		dest = append(dest[:0], &v.TenantID, &v.ID, &s.clientID,
			&c.CustomerTitle, &c.CustomerName, &c.CompanyName, &c.CompanyEmail, &c.CompanyDialCode,
			&c.CompanyPhoneNumber, &s.ids[0], &s.ids[1], &s.addresses[0], &s.addresses[1], &c.Notes,
			&s.ids[2], &s.ids[3], &s.ids[4], &s.ids[5], &s.ids[6], timeColumn{&v.CreatedAt}, timeColumn{&v.UpdatedAt})
		if m.names {
			dest = append(dest, orZero[string]{&v.LeadStageName}, orZero[bool]{&v.LeadStageIsWon}, orZero[bool]{&v.LeadStageIsLost},
				orZero[string]{&v.LeadStatusName}, orZero[string]{&v.LeadSourceName}, orZero[string]{&v.LeadTypeName},
				orZero[string]{&v.CompanyTypeName}, orZero[string]{&v.CreatedUserName}, orZero[string]{&v.OwnerName},
				orZero[bool]{&v.HasLogo})
		}
		if err := rows.Scan(dest...); err != nil {
			return n, err
		}
		if err := c.AfterScanRow(ctx); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

// leadRowSlots scan a row's nullable columns, and hold their values for the row's pointer
// fields.
type leadRowSlots struct {
	clientID  nullable[string]
	ids       [7]nullable[int64]
	addresses [2]nullAddress
}

// nullable scans a nullable integer or text column into a pointer field: nil for NULL,
// else a pointer to v, holding the value.
type nullable[T int64 | string] struct {
	p **T
	v T
}

func (d *nullable[T]) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*d.p = nil
		return nil
	case T:
		d.v = v
		*d.p = &d.v
		return nil
	case []byte: // text as bytes
		if t, ok := any(string(v)).(T); ok {
			d.v = t
			*d.p = &d.v
			return nil
		}
	}
	return fmt.Errorf("column of %T: cannot scan %T", *new(T), src)
}

// orZero scans a nullable name or flag into a plain field: NULL (no stage, no owner) is
// "" or false, as bun's reflection gave. SQLite gives its booleans as integers.
type orZero[T string | bool] struct{ p *T }

func (d orZero[T]) Scan(src any) error {
	var zero T
	switch v := src.(type) {
	case nil:
		*d.p = zero
		return nil
	case T:
		*d.p = v
		return nil
	case []byte:
		if t, ok := any(string(v)).(T); ok {
			*d.p = t
			return nil
		}
	case int64:
		if _, ok := any(zero).(bool); ok {
			*d.p = any(v != 0).(T)
			return nil
		}
	}
	return fmt.Errorf("column of %T: cannot scan %T", zero, src)
}

// nullAddress scans an address column into a pointer field: nil for NULL, else a pointer
// to v, holding the address.
type nullAddress struct {
	p **Address
	v Address
}

func (d *nullAddress) Scan(src any) error {
	if src == nil {
		*d.p = nil
		return nil
	}
	if err := d.v.Scan(src); err != nil {
		return err
	}
	*d.p = &d.v
	return nil
}

// timeColumn scans a time column: a time.Time from pgx (timestamptz) or from modernc's
// driver (a column declared TIMESTAMP), or SQLite's text (selectLeadRows), which it parses
// as the driver would have.
type timeColumn struct{ p *time.Time }

func (d timeColumn) Scan(src any) error {
	switch v := src.(type) {
	case time.Time:
		*d.p = v
		return nil
	case string:
		t, err := parseStoredTime(v)
		*d.p = t
		return err
	default:
		return fmt.Errorf("time column: cannot scan %T", src)
	}
}

// storedTimeLayouts are the layouts of times SQLite holds, in the order modernc's driver
// tries them (after Go's time.String layout, last here): the first is the store's own
// (bun writes "2006-01-02 15:04:05.999999+00:00"), the third SQLite's CURRENT_TIMESTAMP.
var storedTimeLayouts = []string{
	"2006-01-02 15:04:05.999999999-07:00",
	"2006-01-02T15:04:05.999999999-07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04",
	"2006-01-02T15:04",
	"2006-01-02",
}

// parseStoredTime reads a time SQLite holds as text.
func parseStoredTime(s string) (time.Time, error) {
	ts, _ := strings.CutSuffix(s, "Z")
	for _, layout := range storedTimeLayouts {
		if t, err := time.Parse(layout, ts); err == nil {
			return t, nil
		}
	}
	// time.Time.String, as the driver writes a time bound as an argument.
	if i := strings.Index(s, " m="); i > 0 {
		s = s[:i]
	}
	t, err := time.Parse("2006-01-02 15:04:05.999999999 -0700 MST", s)
	if err != nil {
		return time.Time{}, fmt.Errorf("time column: cannot parse %q", s)
	}
	return t, nil
}
