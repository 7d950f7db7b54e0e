package leads

import (
	"context"
	"net/url"

	"crm/app/i18n"
	"crm/app/store"
	"crm/views/components"
)

// ListPath is the lead list's address.
const ListPath = "/leads"

// ResultsID is the id of the list's results region: htmx swaps only it when the search,
// a filter, a sort or a page changes.
const ResultsID = "lead-results"

// Columns are the lead table's columns, in order.
var Columns = []components.Column{
	{LabelID: "leadsPage.field.leadId", Sort: store.SortID},
	{LabelID: "leadsPage.field.customer_name", Sort: store.SortCustomer},
	{LabelID: "leadsPage.field.company_name", Sort: store.SortCompany},
	{LabelID: "leadsPage.field.company_email", Sort: store.SortEmail},
	{LabelID: "leadsPage.field.company_phone_number"},
	{LabelID: "leadsPage.field.lead_stage_id", Sort: store.SortStage},
	{LabelID: "leadsPage.field.lead_status_id", Sort: store.SortStatus},
	{LabelID: "leadsPage.field.lead_source_id", Sort: store.SortSource},
	{LabelID: "leadsPage.field.owner_id"},
	{LabelID: "leadsPage.field.created_at", Sort: store.SortCreated},
}

// State is the lead list's state for a normalised query, its errors and its sort.
func State(q url.Values, errs map[string]string, sort string, desc bool) components.ListState {
	return components.ListState{Path: ListPath, Results: ResultsID, SortIDs: "list", Query: q, Sort: sort, Desc: desc,
		Errors: errs, ExportKeepsInvalid: true}
}

// List is the lead list page: its state (the query as the URL holds it), the page of
// leads, the choices of the filters and the bulk actions, and the user's saved views.
type List struct {
	components.ListState
	Page     *store.LeadPage
	Filtered bool                           // a search or filter is set: an empty page means "no match"
	Choices  map[string][]components.Option // filter and bulk choices by field name

	SavedViews []store.SavedView
	SaveName   string
	SaveError  string
	BulkError  string

	CanCreate bool
	CanUpdate bool
	CanDelete bool
	CanExport bool // the role exports these records: the list offers the CSV export
	Pager     components.Pager
}

// filter is a filter select with the query's value selected.
func (m List) filter(ctx context.Context, name, labelID string) components.Field {
	return m.Select(ctx, components.Field{Name: name, Label: i18n.T(ctx, labelID), Error: m.Errors[name]}, m.Choices[name])
}

func (m List) filters(ctx context.Context) components.Filters {
	return components.Filters{ID: "lead-filters", GridID: "lead-filter-grid", SearchID: "f-search", SearchTestID: "lead-search",
		Label: i18n.T(ctx, "leadsPage.filters"), Search: i18n.T(ctx, "leadsPage.search"), SearchHint: i18n.T(ctx, "leadsPage.searchHint"),
		Apply: i18n.T(ctx, "leadsPage.apply"), Reset: i18n.T(ctx, "leadsPage.reset"), ResetTestID: "filters-reset"}
}

// results is the results region's model: the count, the export and the saved-view form,
// the table with the bulk tools the user may use, and the pager.
func (m List) results(ctx context.Context) components.Results {
	r := components.Results{Count: components.Total(ctx, "leadsPage.total", m.Page.Total, m.Page.TotalCapped), CountTestID: "lead-count",
		Export: m.exportText(ctx), ExportTestID: "lead-export", Tools: saveView(m),
		Empty: components.Empty{TestID: "lead-empty", Filtered: m.Filtered, NoMatch: i18n.T(ctx, "leadsPage.noMatch"),
			Reset: i18n.T(ctx, "leadsPage.reset"), Message: i18n.T(ctx, "leadsPage.empty")},
		Table: components.Table{Caption: i18n.T(ctx, "leadsPage.title"), TestID: "lead-table", Columns: Columns, RowAttr: "data-lead-id",
			Bulk: components.Bulk{FormID: "bulk-form", Action: "/leads/bulk/update", TestID: "bulk-tools",
				Legend: i18n.T(ctx, "leadsPage.bulk"), Error: m.BulkError}},
		Pager: m.Pager}
	if m.CanCreate {
		r.Empty.CreateHref, r.Empty.Create = "/leads/new", i18n.T(ctx, "leadsPage.newTitle")
	}
	if m.CanUpdate {
		for _, f := range []struct{ name, labelID, applyID string }{
			{"lead_stage_id", "leadsPage.field.lead_stage_id", "leadsPage.bulkStage"},
			{"lead_status_id", "leadsPage.field.lead_status_id", "leadsPage.bulkStatus"},
			{"owner_id", "leadsPage.field.owner_id", "leadsPage.bulkOwner"},
		} {
			r.Table.Bulk.Fields = append(r.Table.Bulk.Fields, components.BulkField{Name: f.name, Label: i18n.T(ctx, f.labelID),
				Options: m.Choices["bulk_"+f.name], Apply: i18n.T(ctx, f.applyID), Named: true,
				TestID: "bulk-" + f.name, ApplyTestID: "bulk-apply-" + f.name})
		}
	}
	if m.CanUpdate { // bulk email to the ticked leads (app/campaigns)
		r.Table.Bulk.Buttons = append(r.Table.Bulk.Buttons, components.BulkButton{Action: "/leads/bulk/email",
			Label: i18n.T(ctx, "campaigns.bulkEmail"), TestID: "bulk-email"})
	}
	if m.CanDelete {
		r.Table.Bulk.Delete, r.Table.Bulk.DeleteTestID = "/leads/bulk/delete", "bulk-delete"
	}
	for i := range m.Page.Rows {
		l := &m.Page.Rows[i]
		r.Table.Rows = append(r.Table.Rows, components.Row{ID: l.ID, Name: l.CustomerName, Cells: row(l)})
	}
	return r
}

// SavedViewHref opens a saved view.
func SavedViewHref(v store.SavedView) string {
	if v.Query == "" {
		return ListPath
	}
	return ListPath + "?" + v.Query
}

// exportText is the export link's text, "" (no link) for a role without export.
func (m List) exportText(ctx context.Context) string {
	if !m.CanExport {
		return ""
	}
	return i18n.T(ctx, "leadsPage.export")
}
