package clients

import (
	"context"
	"net/url"

	"crm/app/i18n"
	"crm/app/store"
	"crm/views/components"
	leadsview "crm/views/leads"
)

// ListPath is the client list's address.
const ListPath = "/clients"

// ResultsID is the id of the client list's results region: htmx swaps only it when the
// search, a filter, the sort or the page changes.
const ResultsID = "client-results"

// Column is a column of the client table; Sort is the list sort it orders by ("" if none).
type Column struct {
	LabelID string
	Sort    string
}

// Columns are the client table's columns, in order.
var Columns = []Column{
	{"leadsPage.field.leadId", store.SortID},
	{"leadsPage.field.customer_name", store.SortCustomer},
	{"leadsPage.field.company_name", store.SortCompany},
	{"leadsPage.field.company_email", ""},
	{"leadsPage.field.company_phone_number", ""},
	{"leadsPage.field.owner_id", ""},
	{"clientsPage.fromLead", ""},
	{"leadsPage.field.created_at", store.SortCreated},
}

// PageSizes are the page sizes the list offers.
var PageSizes = []string{"20", "50", "100"}

// Converted values of the "converted from a lead" filter.
const (
	ConvertedYes = "yes"
	ConvertedNo  = "no"
)

// List is the client list page: the query as the URL holds it, the page of clients, and
// the choices of the filters and of the bulk owner change.
type List struct {
	Query    url.Values // the normalised state: search, filters, sort, order, limit, after/before
	Sort     string     // canonical sort name
	Desc     bool
	Page     *store.ClientPage
	Filtered bool // a search or filter is set: an empty page means "no match"
	Errors   map[string]string
	Choices  map[string][]components.Option // "owner_id" (filter), "bulk_owner_id"

	BulkError string
	CanCreate bool
	CanUpdate bool
	CanDelete bool
	Pager     components.Pager
}

// Href is the list's address with the current query changed by set (name, value pairs; an
// empty value removes the parameter). Any change starts again from the first page.
func (m List) Href(set ...string) string {
	q := m.query("after", "before")
	for i := 0; i+1 < len(set); i += 2 {
		if set[i+1] == "" {
			q.Del(set[i])
		} else {
			q.Set(set[i], set[i+1])
		}
	}
	return href(ListPath, q)
}

// Current is the list's own address, page included, to come back to after a bulk action.
func (m List) Current() string { return href(ListPath, m.query()) }

// ExportHref is the CSV export of the current view: every page, whatever the page size,
// without the filters the list could not read (as the list shows it).
func (m List) ExportHref() string {
	drop := []string{"after", "before", "limit"}
	for name := range m.Errors {
		drop = append(drop, name)
	}
	return href(ListPath+"/export.csv", m.query(drop...))
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
	switch {
	case col == "" || col != m.Sort:
		return ""
	case m.Desc:
		return "descending"
	}
	return "ascending"
}

// query copies the state without the named parameters.
func (m List) query(drop ...string) url.Values {
	q := url.Values{}
	for k, v := range m.Query {
		q[k] = append([]string(nil), v...)
	}
	for _, k := range drop {
		q.Del(k)
	}
	return q
}

func href(path string, q url.Values) string {
	if enc := q.Encode(); enc != "" {
		return path + "?" + enc
	}
	return path
}

func (m List) value(name string) string { return m.Query.Get(name) }

// Total is the list's count: exact, or "10,000+" when the store stopped counting.
func Total(ctx context.Context, p *store.ClientPage) string {
	n := leadsview.Count(ctx, p.Total)
	if p.TotalCapped {
		return i18n.T(ctx, "clientsList.totalCapped", "Total", n)
	}
	return i18n.T(ctx, "clientsList.total", "Count", p.Total, "Total", n)
}

// ownerFilter is the owner filter's select, with the query's value selected.
func (m List) ownerFilter(ctx context.Context) components.Field {
	f := components.Field{ID: "c-owner", Name: "owner_id", Label: i18n.T(ctx, "leadsPage.field.owner_id"),
		Blank: i18n.T(ctx, "leadsPage.all"), Error: m.Errors["owner_id"]}
	for _, o := range m.Choices["owner_id"] {
		o.Selected = o.Value == m.value("owner_id")
		f.Options = append(f.Options, o)
	}
	return f
}

// convertedFilter is the "converted from a lead" filter's select.
func (m List) convertedFilter(ctx context.Context) components.Field {
	f := components.Field{ID: "c-converted", Name: "converted", Label: i18n.T(ctx, "clientsList.converted"), Blank: i18n.T(ctx, "leadsPage.all")}
	for _, v := range []struct{ value, label string }{{ConvertedYes, "clientsList.convertedYes"}, {ConvertedNo, "clientsList.convertedNo"}} {
		f.Options = append(f.Options, components.Option{Value: v.value, Label: i18n.T(ctx, v.label), Selected: m.value("converted") == v.value})
	}
	return f
}

// createdPicker is the created-date range filter, as the lead list has it: two native date
// inputs (from, to) without JavaScript, the picker island in range mode with it, loaded when
// the user first presses or focuses the field (the list's first load stays small). Picking a
// range changes the filter grid, which applies the filter like any other.
func (m List) createdPicker(ctx context.Context) components.Picker {
	return components.Picker{ID: "c-from", Name: "from", IDTo: "c-to", NameTo: "to", Mode: "range",
		Label: i18n.T(ctx, "leadsPage.createdBetween"), FieldLabel: i18n.T(ctx, "leadsPage.createdFrom"),
		LabelTo: i18n.T(ctx, "leadsPage.createdTo"), Value: m.value("from"), ValueTo: m.value("to"),
		Error: m.Errors["from"], ErrorTo: m.Errors["to"], Load: components.PickerOnIntent, TestID: "client-created-range"}
}

func (m List) pageSize(ctx context.Context) components.Field {
	f := components.Field{ID: "c-limit", Name: "limit", Label: i18n.T(ctx, "clientsPage.pageSize")}
	cur := m.value("limit")
	if cur == "" {
		cur = PageSizes[0]
	}
	for _, n := range PageSizes {
		f.Options = append(f.Options, components.Option{Value: n, Label: n, Selected: n == cur})
	}
	return f
}
