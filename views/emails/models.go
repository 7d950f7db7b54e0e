// Package emails holds the pages of mail delivery: the SMTP settings, the email history
// and its detail, and the public unsubscribe page.
package emails

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"crm/app/i18n"
	"crm/app/store"
	"crm/views/components"
)

// Settings is the mail settings page's model; the password is never in it.
type Settings struct {
	Configured  bool // the tenant has a server of its own
	ServerWide  bool // SMTP_URL serves tenants without one
	CanSeal     bool // CRM_SECRET_KEY is set: a password can be stored
	Host        string
	Port        string
	Security    string
	Username    string
	HasPassword bool
	FromAddress string
	FromName    string
	Errors      map[string]string
	CanUpdate   bool
}

// SecurityOptions are the choices of the security select, s selected.
func SecurityOptions(ctx context.Context, s string) []components.Option {
	var out []components.Option
	for _, v := range store.MailSecurities {
		out = append(out, components.Option{Value: v, Label: i18n.T(ctx, "mail.security."+v), Selected: v == s})
	}
	return out
}

// ListPath is the email history's address; ResultsID its results region.
const (
	ListPath  = "/emails"
	ResultsID = "email-results"
)

// Columns are the history table's columns.
var Columns = []components.Column{
	{LabelID: "mail.col.created"}, {LabelID: "mail.col.to"}, {LabelID: "mail.col.subject"},
	{LabelID: "mail.col.kind"}, {LabelID: "mail.col.status"}, {LabelID: "mail.col.reason"},
}

// List is the email history page.
type List struct {
	components.ListState
	Page     *store.EmailPage
	Filtered bool
	Pager    components.Pager
}

// State is the history's state for a normalised query.
func State(q url.Values, errs map[string]string) components.ListState {
	return components.ListState{Path: ListPath, Results: ResultsID, SortIDs: "email", Query: q, Errors: errs}
}

func (m List) filters(ctx context.Context) components.Filters {
	return components.Filters{ID: "email-filters", GridID: "email-filter-grid", SearchID: "e-search", SearchTestID: "email-search",
		Label: i18n.T(ctx, "mail.filters"), Search: i18n.T(ctx, "mail.search"), SearchHint: i18n.T(ctx, "mail.searchHint"),
		Apply: i18n.T(ctx, "mail.apply"), Reset: i18n.T(ctx, "mail.reset"), ResetTestID: "email-filters-reset"}
}

func (m List) statusFilter(ctx context.Context) components.Field {
	var opts []components.Option
	for _, s := range store.EmailStatuses {
		opts = append(opts, components.Option{Value: s, Label: i18n.T(ctx, "mail.status."+s)})
	}
	return m.Select(ctx, components.Field{ID: "e-status", Name: "status", Label: i18n.T(ctx, "mail.col.status"), Error: m.Errors["status"]}, opts)
}

func (m List) kindFilter(ctx context.Context) components.Field {
	return m.Select(ctx, components.Field{ID: "e-kind", Name: "kind", Label: i18n.T(ctx, "mail.col.kind"), Error: m.Errors["kind"]},
		[]components.Option{{Value: store.EmailTransactional, Label: i18n.T(ctx, "mail.kind.transactional")},
			{Value: store.EmailBulk, Label: i18n.T(ctx, "mail.kind.bulk")}})
}

func (m List) idFilter(ctx context.Context, name, label string) components.Field {
	return components.Field{ID: "e-" + name, Name: name, Label: i18n.T(ctx, label), Value: m.Value(name), Error: m.Errors[name],
		Inputmode: "numeric", Pattern: "[0-9]*", MaxLength: 18}
}

func (m List) results(ctx context.Context) components.Results {
	r := components.Results{Count: components.Total(ctx, "mail.total", m.Page.Total, m.Page.Capped), CountTestID: "email-count",
		Empty: components.Empty{TestID: "emails-empty", Filtered: m.Filtered, NoMatch: i18n.T(ctx, "mail.noMatch"),
			Reset: i18n.T(ctx, "mail.reset"), Message: i18n.T(ctx, "mail.empty")},
		Table: components.Table{Caption: i18n.T(ctx, "mail.history"), TestID: "email-table", Columns: Columns, RowAttr: "data-email-id"},
		Pager: m.Pager}
	for i := range m.Page.Rows {
		e := &m.Page.Rows[i]
		r.Table.Rows = append(r.Table.Rows, components.Row{ID: e.ID, Name: e.Subject, Cells: row(e)})
	}
	return r
}

// Href is a message's detail page.
func Href(id int64) string { return "/emails/" + strconv.FormatInt(id, 10) }

// When writes a time for the pages (UTC).
func When(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

// Detail is one message's page.
type Detail struct {
	Email *store.Email
}

// Unsubscribe is the public unsubscribe page: its address, and whether it is done.
type Unsubscribe struct {
	Address string
	Action  string
	Done    bool
}
