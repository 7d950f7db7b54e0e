package components

import (
	"context"
	"net/url"
	"slices"
	"strconv"

	"github.com/a-h/templ"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"crm/app/i18n"
)

// The list kit: what every searchable, sortable, keyset-paged list page with bulk actions
// shares (the lead list, the client list …). A list's view model embeds ListState and
// builds the kit's models (Filters, Results, Table, Bulk); its own templates give only
// the filters, the columns and the cells of a row.

// PageSizes are the page sizes a list offers; the first is the default.
var PageSizes = []string{"20", "50", "100"}

// ListState is a list page's state as its address holds it: where the list lives, the
// normalised query (search, filters, sort, order, limit, the after/before cursor), the
// sort it shows and which way, and the error key of every value it could not read.
type ListState struct {
	Path    string // the list's address, "/leads"
	Results string // id of the results region htmx swaps, "lead-results"
	SortIDs string // id prefix of the filter form's sort fields: "list" → list-sort, list-order
	Query   url.Values
	Sort    string // canonical sort column
	Desc    bool
	Errors  map[string]string
	// ExportKeepsInvalid keeps in the export link a filter the list could not read (the
	// export then refuses it), as the lead list always did; other lists leave it out.
	ExportKeepsInvalid bool
}

// Value is the query's value of name.
func (s ListState) Value(name string) string { return s.Query.Get(name) }

// Href is the list's address with the query changed by set (name, value pairs; an empty
// value removes the parameter). Any change starts again from the first page.
func (s ListState) Href(set ...string) string {
	q := s.query("after", "before")
	for i := 0; i+1 < len(set); i += 2 {
		if set[i+1] == "" {
			q.Del(set[i])
		} else {
			q.Set(set[i], set[i+1])
		}
	}
	return href(s.Path, q)
}

// SortHref is the address that sorts by col: ascending first, the other way when it is
// already the sort.
func (s ListState) SortHref(col string) string {
	order := "asc"
	if col == s.Sort && !s.Desc {
		order = "desc"
	}
	return s.Href("sort", col, "order", order)
}

// AriaSort is the aria-sort of the header of the column sorted by col: "" unless the list
// is sorted by it.
func (s ListState) AriaSort(col string) string {
	switch {
	case col == "" || col != s.Sort:
		return ""
	case s.Desc:
		return "descending"
	}
	return "ascending"
}

// Current is the list's own address, page included, to come back to after a bulk action.
func (s ListState) Current() string { return href(s.Path, s.query()) }

// ViewQuery is the query a saved view keeps: everything but the page.
func (s ListState) ViewQuery() string { return s.query("after", "before").Encode() }

// ExportHref is the CSV export (Path + "/export.csv") of the current view: every page,
// whatever the page size, without the values the list could not read (as the list shows
// it) unless ExportKeepsInvalid.
func (s ListState) ExportHref() string {
	drop := []string{"after", "before", "limit"}
	if !s.ExportKeepsInvalid {
		for name := range s.Errors {
			drop = append(drop, name)
		}
	}
	return href(s.Path+"/export.csv", s.query(drop...))
}

// query copies the state without the named parameters.
func (s ListState) query(drop ...string) url.Values {
	q := url.Values{}
	for k, v := range s.Query {
		if !slices.Contains(drop, k) {
			q[k] = append([]string(nil), v...)
		}
	}
	return q
}

// href is path with the query, or path alone when the query is empty.
func href(path string, q url.Values) string {
	if enc := q.Encode(); enc != "" {
		return path + "?" + enc
	}
	return path
}

// Select is the filter select f offering choices, the query's value of f.Name selected,
// with "All" as its empty choice unless f.Blank says otherwise. f keeps its own Error.
func (s ListState) Select(ctx context.Context, f Field, choices []Option) Field {
	if f.Blank == "" {
		f.Blank = i18n.T(ctx, "list.all")
	}
	f.Options = nil
	for _, o := range choices {
		o.Selected = o.Value == s.Value(f.Name)
		f.Options = append(f.Options, o)
	}
	return f
}

// PageSizeField is the page-size select f (its id and label) offering PageSizes, the
// query's limit, or the first size, selected.
func (s ListState) PageSizeField(f Field) Field {
	f.Name = "limit"
	cur := s.Value("limit")
	if cur == "" {
		cur = PageSizes[0]
	}
	f.Options = nil
	for _, n := range PageSizes {
		f.Options = append(f.Options, Option{Value: n, Label: n, Selected: n == cur})
	}
	return f
}

// CreatedRange is the created-date range filter (from, to), p giving its ids and test id:
// two native date inputs without JavaScript, the picker island in range mode with them,
// loaded when the user first presses or focuses the field (the list's first load stays
// small). Picking a range changes the filter grid, which applies it like any filter.
func (s ListState) CreatedRange(ctx context.Context, p Picker) Picker {
	p.Name, p.NameTo, p.Mode, p.Load = "from", "to", "range", PickerOnIntent
	p.Label, p.FieldLabel, p.LabelTo = i18n.T(ctx, "list.createdBetween"), i18n.T(ctx, "list.createdFrom"), i18n.T(ctx, "list.createdTo")
	p.Value, p.ValueTo = s.Value("from"), s.Value("to")
	p.Error, p.ErrorTo = s.Errors["from"], s.Errors["to"]
	return p
}

// Pager is the list's paging bar, named label: the first page when the list is past it
// (paged, or a prev cursor), the page before the cursor prev and the page after the
// cursor next ("" for none), each swapping only the results with htmx.
func (s ListState) Pager(ctx context.Context, label string, paged bool, prev, next string) Pager {
	p := Pager{Label: label, First: i18n.T(ctx, "paging.first"), Prev: i18n.T(ctx, "paging.prev"),
		Next: i18n.T(ctx, "paging.next"), Target: s.Results}
	if paged || prev != "" {
		p.FirstHref = s.Href()
	}
	if prev != "" {
		p.PrevHref = s.Href("before", prev)
	}
	if next != "" {
		p.NextHref = s.Href("after", next)
	}
	return p
}

// Column is a column of a list table: the message id of its label, and the sort it orders
// by ("" for none).
type Column struct {
	LabelID string
	Sort    string
}

// Count writes a number the way the context's language groups digits (10,000 · 10 000).
func Count(ctx context.Context, n int64) string {
	tag, err := language.Parse(i18n.Lang(ctx))
	if err != nil {
		tag = language.AmericanEnglish
	}
	return message.NewPrinter(tag).Sprintf("%d", n)
}

// Total is a list's count: msgID (plural by Count, the number as Total), or msgID +
// "Capped" ("10,000+ leads") when the store stopped counting at n.
func Total(ctx context.Context, msgID string, n int64, capped bool) string {
	if capped {
		return i18n.T(ctx, msgID+"Capped", "Total", Count(ctx, n))
	}
	return i18n.T(ctx, msgID, "Count", n, "Total", Count(ctx, n))
}

// Filters is the GET form that holds a list's state: the search box, a grid of filters
// (the component's children), the sort fields, apply and reset.
type Filters struct {
	ID           string // the form's id
	GridID       string // the filter grid's id: a change in it applies the filters
	SearchID     string // the search box's id; its hint is SearchID + "-hint"
	SearchTestID string
	Label        string // the form's accessible name
	Search       string // the search box's label
	SearchHint   string
	Apply        string
	Reset        string // the reset link's text; it goes to the bare list
	ResetTestID  string
}

// Results is a list's results region: the count and the tools for the current view, then
// the table with its bulk tools and the pager, or the empty state.
type Results struct {
	Count        string // Total's text
	CountTestID  string
	Export       string // the export link's text; "" for no export
	ExportTestID string
	Tools        templ.Component // more tools for the current view (a saved-view form); nil for none
	Empty        Empty
	Table        Table
	Pager        Pager
}

// Empty is what a list shows without rows: that nothing matches the search and filters
// (with a reset link), or that there is nothing yet (with a create link when allowed).
type Empty struct {
	TestID     string
	Filtered   bool // a search or filter is set
	NoMatch    string
	Reset      string
	Message    string
	CreateHref string // "" for no create link
	Create     string
}

// Table is a list's table inside its bulk form: the caption, the columns (sortable ones
// link their sort), and the rows, each with a checkbox when there are bulk tools.
type Table struct {
	Caption string
	TestID  string
	Columns []Column
	RowAttr string // the data attribute naming each row's record, "data-lead-id"
	Rows    []Row
	Bulk    Bulk
}

// Row is one row of a list table: its record's id and name (for the checkbox's label) and
// its cells, which the list's row template gives.
type Row struct {
	ID    int64
	Name  string
	Cells templ.Component
}

// Bulk is the form around a list's table and its bulk tools: changes of a field
// (Fields) and a delete after a confirmation step (Delete). Without either, the table
// has no checkboxes.
type Bulk struct {
	FormID       string
	Action       string // where the form posts: the bulk change
	TestID       string // the tools' fieldset
	Legend       string
	Error        string // a refusal of the last bulk post, already translated
	ErrorTestID  string // "" for none
	Fields       []BulkField
	Delete       string // the bulk delete's address (its button's formaction); "" when not allowed
	DeleteTestID string
	Buttons      []BulkButton // other actions on the ticked rows (bulk email)
}

// BulkButton is a bulk action of its own: a button posting the ticked rows elsewhere.
type BulkButton struct {
	Action string // its formaction
	Label  string
	TestID string
}

// On reports whether there are bulk tools, so rows can be ticked.
func (b Bulk) On() bool { return len(b.Fields) > 0 || b.Delete != "" || len(b.Buttons) > 0 }

// BulkField is a field a bulk change sets: a select of its values and the button that
// applies it.
type BulkField struct {
	Name        string // the select's name; its id is "bulk-" + Name
	Label       string
	Options     []Option
	Apply       string // the button's text
	Named       bool   // the button posts field=Name: the form has several fields
	TestID      string // the select's
	ApplyTestID string
}

// Record names one record of a list, for a confirmation: "#12 Ana Silva — Acme".
type Record struct {
	ID     int64
	Href   string
	Name   string
	Detail string // "" for none
}

func (r Record) label() string {
	label := "#" + strconv.FormatInt(r.ID, 10) + " " + r.Name
	if r.Detail != "" {
		label += " — " + r.Detail
	}
	return label
}

// BulkDeleteConfirm is the confirmation step of a bulk delete: it names the records, and
// its form posts their ids again with confirm=1 to action, then returns to back.
func BulkDeleteConfirm(ctx context.Context, title, msg, action, back string, items []Record) ConfirmModel {
	c := ConfirmModel{Title: title, Message: msg, Action: action, Confirm: i18n.T(ctx, "list.deleteConfirm"),
		CancelHref: back, Cancel: i18n.T(ctx, "list.cancel"), Danger: true,
		Hidden: []Hidden{{Name: "back", Value: back}, {Name: "confirm", Value: "1"}}}
	for _, it := range items {
		c.Items = append(c.Items, Link{Href: it.Href, Label: it.label()})
		c.Hidden = append(c.Hidden, Hidden{Name: "ids", Value: strconv.FormatInt(it.ID, 10)})
	}
	return c
}
