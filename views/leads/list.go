package leads

import (
	"context"
	"net/url"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"crm/app/i18n"
	"crm/app/store"
	"crm/views/components"
)

// ResultsID is the id of the list's results region: htmx swaps only it when the search,
// a filter, a sort or a page changes.
const ResultsID = "lead-results"

// Column is a column of the lead table; Sort is the list sort it orders by ("" if none).
type Column struct {
	LabelID string
	Sort    string
}

// Columns are the lead table's columns, in order.
var Columns = []Column{
	{"leadsPage.field.leadId", store.SortID},
	{"leadsPage.field.customer_name", store.SortCustomer},
	{"leadsPage.field.company_name", store.SortCompany},
	{"leadsPage.field.company_email", store.SortEmail},
	{"leadsPage.field.company_phone_number", ""},
	{"leadsPage.field.lead_stage_id", store.SortStage},
	{"leadsPage.field.lead_status_id", store.SortStatus},
	{"leadsPage.field.lead_source_id", store.SortSource},
	{"leadsPage.field.owner_id", ""},
	{"leadsPage.field.created_at", store.SortCreated},
}

// PageSizes are the page sizes the list offers.
var PageSizes = []string{"20", "50", "100"}

// List is the lead list page: the query as the URL holds it, the page of leads, the
// choices of the filters and the bulk actions, and the user's saved views.
type List struct {
	Query    url.Values // the normalised state: search, filters, sort, order, limit, after
	Sort     string     // canonical sort name
	Desc     bool
	Page     *store.LeadPage
	Filtered bool // a search or filter is set: an empty page means "no match"
	Errors   map[string]string
	Choices  map[string][]components.Option // filter and bulk choices by field name

	SavedViews []store.SavedView
	SaveName   string
	SaveError  string
	BulkError  string

	CanCreate bool
	CanUpdate bool
	CanDelete bool
	Pager     components.Pager
}

// Href is the list's address with the current query changed by set (an empty value
// removes the parameter). Any change but paging starts again from the first page.
func (m List) Href(set ...string) string {
	q := url.Values{}
	for k, v := range m.Query {
		q[k] = append([]string(nil), v...)
	}
	q.Del("after")
	for i := 0; i+1 < len(set); i += 2 {
		if set[i+1] == "" {
			q.Del(set[i])
		} else {
			q.Set(set[i], set[i+1])
		}
	}
	if enc := q.Encode(); enc != "" {
		return "/leads?" + enc
	}
	return "/leads"
}

// SortHref is the address that sorts by col: ascending first, the other way when it is
// already the sort.
func (m List) SortHref(col string) string {
	order := "asc"
	if col == m.Sort && !m.Desc {
		order = "desc"
	}
	return m.Href("sort", col, "order", order)
}

// AriaSort is the aria-sort of a column header.
func (m List) AriaSort(col string) string {
	if col == "" || col != m.Sort {
		return ""
	}
	if m.Desc {
		return "descending"
	}
	return "ascending"
}

// Current is the list's own address, for going back after a bulk action.
func (m List) Current() string {
	q := url.Values{}
	for k, v := range m.Query {
		q[k] = v
	}
	if enc := q.Encode(); enc != "" {
		return "/leads?" + enc
	}
	return "/leads"
}

// ViewQuery is the query a saved view keeps and the export takes: everything but the page.
func (m List) ViewQuery() string {
	q := url.Values{}
	for k, v := range m.Query {
		if k != "after" {
			q[k] = v
		}
	}
	return q.Encode()
}

// ExportHref is the CSV export of the current view.
func (m List) ExportHref() string {
	q := url.Values{}
	for k, v := range m.Query {
		if k != "after" && k != "limit" {
			q[k] = v
		}
	}
	if enc := q.Encode(); enc != "" {
		return "/leads/export.csv?" + enc
	}
	return "/leads/export.csv"
}

func (m List) value(name string) string { return m.Query.Get(name) }

// createdPicker is the created-date range filter: two native date inputs (from, to)
// without JavaScript, the picker island in range mode with it, loaded when the user first
// points at or focuses the field (the list's first load stays small). Picking a range
// changes the form, which applies the filter like any other.
func (m List) createdPicker(ctx context.Context) components.Picker {
	return components.Picker{ID: "f-from", Name: "from", IDTo: "f-to", NameTo: "to", Mode: "range",
		Label: i18n.T(ctx, "leadsPage.createdBetween"), FieldLabel: i18n.T(ctx, "leadsPage.createdFrom"),
		LabelTo: i18n.T(ctx, "leadsPage.createdTo"), Value: m.value("from"), ValueTo: m.value("to"),
		Error: m.Errors["from"], ErrorTo: m.Errors["to"], Load: components.PickerOnIntent, TestID: "created-range"}
}

// filter builds a filter select with the query's value selected.
func (m List) filter(ctx context.Context, name, labelID string) components.Field {
	f := components.Field{Name: name, Label: i18n.T(ctx, labelID), Blank: i18n.T(ctx, "leadsPage.all"), Error: m.Errors[name]}
	for _, o := range m.Choices[name] {
		o.Selected = o.Value == m.value(name)
		f.Options = append(f.Options, o)
	}
	return f
}

// Count writes a number the way the user's language groups digits (10,000 · 10 000).
func Count(ctx context.Context, n int64) string {
	tag, err := language.Parse(i18n.Lang(ctx))
	if err != nil {
		tag = language.AmericanEnglish
	}
	return message.NewPrinter(tag).Sprintf("%d", n)
}

// Total is the list's count: exact, or "10,000+" when the store stopped counting.
func Total(ctx context.Context, p *store.LeadPage) string {
	if p.TotalCapped {
		return i18n.T(ctx, "leadsPage.totalCapped", "Total", Count(ctx, p.Total))
	}
	return i18n.T(ctx, "leadsPage.total", "Count", p.Total, "Total", Count(ctx, p.Total))
}

// SavedViewHref opens a saved view.
func SavedViewHref(v store.SavedView) string {
	if v.Query == "" {
		return "/leads"
	}
	return "/leads?" + v.Query
}
