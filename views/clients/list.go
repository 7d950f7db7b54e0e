package clients

import (
	"context"
	"net/url"

	"crm/app/i18n"
	"crm/app/store"
	"crm/views/components"
)

// ListPath is the client list's address.
const ListPath = "/clients"

// ResultsID is the id of the client list's results region: htmx swaps only it when the
// search, a filter, the sort or the page changes.
const ResultsID = "client-results"

// Columns are the client table's columns, in order.
var Columns = []components.Column{
	{LabelID: "leadsPage.field.leadId", Sort: store.SortID},
	{LabelID: "leadsPage.field.customer_name", Sort: store.SortCustomer},
	{LabelID: "leadsPage.field.company_name", Sort: store.SortCompany},
	{LabelID: "leadsPage.field.company_email"},
	{LabelID: "leadsPage.field.company_phone_number"},
	{LabelID: "leadsPage.field.owner_id"},
	{LabelID: "clientsPage.fromLead"},
	{LabelID: "leadsPage.field.created_at", Sort: store.SortCreated},
}

// Converted values of the "converted from a lead" filter.
const (
	ConvertedYes = "yes"
	ConvertedNo  = "no"
)

// State is the client list's state for a normalised query, its errors and its sort.
func State(q url.Values, errs map[string]string, sort string, desc bool) components.ListState {
	return components.ListState{Path: ListPath, Results: ResultsID, SortIDs: "client", Query: q, Sort: sort, Desc: desc, Errors: errs}
}

// List is the client list page: its state (the query as the URL holds it), the page of
// clients, and the choices of the filters and of the bulk owner change.
type List struct {
	components.ListState
	Page     *store.ClientPage
	Filtered bool                           // a search or filter is set: an empty page means "no match"
	Choices  map[string][]components.Option // "owner_id" (filter), "bulk_owner_id"

	BulkError string
	CanCreate bool
	CanUpdate bool
	CanDelete bool
	CanExport bool // the role exports these records: the list offers the CSV export
	Pager     components.Pager
}

// ownerFilter is the owner filter's select, with the query's value selected.
func (m List) ownerFilter(ctx context.Context) components.Field {
	return m.Select(ctx, components.Field{ID: "c-owner", Name: "owner_id", Label: i18n.T(ctx, "leadsPage.field.owner_id"),
		Error: m.Errors["owner_id"]}, m.Choices["owner_id"])
}

// convertedFilter is the "converted from a lead" filter's select (a value it does not know
// is shown as no choice, without an error).
func (m List) convertedFilter(ctx context.Context) components.Field {
	return m.Select(ctx, components.Field{ID: "c-converted", Name: "converted", Label: i18n.T(ctx, "clientsList.converted")},
		[]components.Option{{Value: ConvertedYes, Label: i18n.T(ctx, "clientsList.convertedYes")},
			{Value: ConvertedNo, Label: i18n.T(ctx, "clientsList.convertedNo")}})
}

func (m List) filters(ctx context.Context) components.Filters {
	return components.Filters{ID: "client-filters", GridID: "client-filter-grid", SearchID: "c-search", SearchTestID: "client-search",
		Label: i18n.T(ctx, "clientsList.filters"), Search: i18n.T(ctx, "clientsPage.search"), SearchHint: i18n.T(ctx, "clientsList.searchHint"),
		Apply: i18n.T(ctx, "clientsPage.apply"), Reset: i18n.T(ctx, "clientsPage.reset"), ResetTestID: "client-filters-reset"}
}

// results is the results region's model: the count and the export, the table with the
// bulk tools the user may use, and the pager.
func (m List) results(ctx context.Context) components.Results {
	r := components.Results{Count: components.Total(ctx, "clientsList.total", m.Page.Total, m.Page.TotalCapped), CountTestID: "client-count",
		Export: m.exportText(ctx), ExportTestID: "client-export",
		Empty: components.Empty{TestID: "clients-empty", Filtered: m.Filtered, NoMatch: i18n.T(ctx, "clientsList.noMatch"),
			Reset: i18n.T(ctx, "clientsPage.reset"), Message: i18n.T(ctx, "clientsPage.empty")},
		Table: components.Table{Caption: i18n.T(ctx, "clientsPage.title"), TestID: "client-table", Columns: Columns, RowAttr: "data-client-id",
			Bulk: components.Bulk{FormID: "client-bulk-form", Action: "/clients/bulk/owner", TestID: "client-bulk-tools",
				Legend: i18n.T(ctx, "clientsList.bulk"), Error: m.BulkError, ErrorTestID: "client-bulk-error"}},
		Pager: m.Pager}
	if m.CanUpdate {
		r.Table.Bulk.Fields = []components.BulkField{{Name: "owner_id", Label: i18n.T(ctx, "leadsPage.field.owner_id"),
			Options: m.Choices["bulk_owner_id"], Apply: i18n.T(ctx, "leadsPage.bulkOwner"),
			TestID: "client-bulk-owner", ApplyTestID: "client-bulk-apply-owner"}}
	}
	if m.CanDelete {
		r.Table.Bulk.Delete, r.Table.Bulk.DeleteTestID = "/clients/bulk/delete", "client-bulk-delete"
	}
	for i := range m.Page.Rows {
		c := &m.Page.Rows[i]
		r.Table.Rows = append(r.Table.Rows, components.Row{ID: c.ID, Name: c.CustomerName, Cells: row(c)})
	}
	return r
}

// exportText is the export link's text, "" (no link) for a role without export.
func (m List) exportText(ctx context.Context) string {
	if !m.CanExport {
		return ""
	}
	return i18n.T(ctx, "clientsPage.export")
}
