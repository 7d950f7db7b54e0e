// Package users holds the views of team administration's users half: the user list, the
// add and edit forms, a user's page, the delete confirmation, the invitation page and the
// security log.
package users

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"crm/app/i18n"
	"crm/app/store"
	"crm/views/components"
)

// InviteForm is the invitation page: the invitee chooses a password.
type InviteForm struct {
	Token string
	Email string
	Error string // a field error, already translated
}

// The users pages' addresses and the list's results region.
const (
	ListPath       = "/users"
	NewPath        = "/users/new"
	LogPath        = "/security-log"
	ResultsID      = "user-results"
	LogResultsID   = "log-results"
	TimeFormat     = "2006-01-02 15:04 UTC"
	StatusActive   = "active"
	StatusInactive = "inactive"
)

// Href is a user's page.
func Href(id int64) string { return "/users/" + strconv.FormatInt(id, 10) }

// Columns are the user table's columns.
var Columns = []components.Column{
	{LabelID: "usersPage.name", Sort: store.SortUserName},
	{LabelID: "usersPage.email", Sort: store.SortUserEmail},
	{LabelID: "usersPage.role"},
	{LabelID: "usersPage.teams"},
	{LabelID: "usersPage.status"},
	{LabelID: "usersPage.lastSignIn"},
	{LabelID: "usersPage.created", Sort: store.SortUserCreated},
}

// State is the user list's state for a normalised query.
func State(q url.Values, errs map[string]string, sort string, desc bool) components.ListState {
	return components.ListState{Path: ListPath, Results: ResultsID, SortIDs: "user", Query: q, Sort: sort, Desc: desc, Errors: errs}
}

// Tabs are what the users pages link between: the users, the security log.
type Tabs struct {
	Current string // "users" or "log"
}

// List is the user list page.
type List struct {
	components.ListState
	Page      *store.UserPage
	Filtered  bool
	Roles     []components.Option
	Teams     []components.Option
	CanCreate bool
	Pager     components.Pager
}

func (m List) filters(ctx context.Context) components.Filters {
	return components.Filters{ID: "user-filters", GridID: "user-filter-grid", SearchID: "u-search", SearchTestID: "user-search",
		Label: i18n.T(ctx, "usersPage.filters"), Search: i18n.T(ctx, "usersPage.search"), SearchHint: i18n.T(ctx, "usersPage.searchHint"),
		Apply: i18n.T(ctx, "usersPage.apply"), Reset: i18n.T(ctx, "usersPage.reset"), ResetTestID: "user-filters-reset"}
}

func (m List) roleFilter(ctx context.Context) components.Field {
	return m.Select(ctx, components.Field{ID: "u-role", Name: "role_id", Label: i18n.T(ctx, "usersPage.role"), Error: m.Errors["role_id"]}, m.Roles)
}

func (m List) teamFilter(ctx context.Context) components.Field {
	return m.Select(ctx, components.Field{ID: "u-team", Name: "team_id", Label: i18n.T(ctx, "usersPage.team"), Error: m.Errors["team_id"]}, m.Teams)
}

func (m List) statusFilter(ctx context.Context) components.Field {
	return m.Select(ctx, components.Field{ID: "u-status", Name: "status", Label: i18n.T(ctx, "usersPage.status"), Error: m.Errors["status"]},
		[]components.Option{{Value: StatusActive, Label: i18n.T(ctx, "usersPage.active")}, {Value: StatusInactive, Label: i18n.T(ctx, "usersPage.inactive")}})
}

func (m List) results(ctx context.Context) components.Results {
	r := components.Results{Count: components.Total(ctx, "usersPage.total", m.Page.Total, false), CountTestID: "user-count",
		Empty: components.Empty{TestID: "users-empty", Filtered: m.Filtered, NoMatch: i18n.T(ctx, "usersPage.noMatch"),
			Reset: i18n.T(ctx, "usersPage.reset"), Message: i18n.T(ctx, "usersPage.empty")},
		Table: components.Table{Caption: i18n.T(ctx, "usersPage.title"), TestID: "user-table", Columns: Columns, RowAttr: "data-user-id",
			Bulk: components.Bulk{FormID: "user-table-form", Action: ListPath}},
		Pager: m.Pager}
	if m.CanCreate {
		r.Empty.CreateHref, r.Empty.Create = NewPath, i18n.T(ctx, "usersPage.new")
	}
	for i := range m.Page.Rows {
		u := &m.Page.Rows[i]
		r.Table.Rows = append(r.Table.Rows, components.Row{ID: u.ID, Name: u.Name, Cells: row(u, m.Page.Teams[u.ID])})
	}
	return r
}

// Form is the add and edit form of a user. Values and Errors are keyed by field name.
type Form struct {
	User      *store.UserRow // nil when adding
	Values    map[string]string
	TeamIDs   []int64
	Errors    map[string]string
	Titles    []components.Option
	Roles     []components.Option
	Teams     []components.Option
	TimeZones []string
	Error     string // a refusal of the save (the last administrator's role), translated
}

// TimeZones are the time zones the form suggests (any IANA name is taken).
var TimeZones = []string{"UTC", "Europe/London", "Europe/Dublin", "Europe/Lisbon", "Europe/Paris", "Europe/Brussels",
	"Europe/Amsterdam", "Europe/Berlin", "Europe/Zurich", "Europe/Madrid", "Europe/Rome", "Europe/Prague", "Europe/Vienna",
	"Europe/Warsaw", "Europe/Stockholm", "Europe/Athens", "Europe/Istanbul", "Europe/Moscow", "Africa/Casablanca",
	"Africa/Lagos", "Africa/Johannesburg", "Africa/Nairobi", "Asia/Dubai", "Asia/Karachi", "Asia/Kolkata", "Asia/Dhaka",
	"Asia/Bangkok", "Asia/Singapore", "Asia/Shanghai", "Asia/Hong_Kong", "Asia/Tokyo", "Asia/Seoul", "Australia/Perth",
	"Australia/Adelaide", "Australia/Brisbane", "Australia/Sydney", "Australia/Melbourne", "Pacific/Auckland",
	"America/St_Johns", "America/Halifax", "America/New_York", "America/Chicago", "America/Denver", "America/Phoenix",
	"America/Los_Angeles", "America/Anchorage", "Pacific/Honolulu", "America/Mexico_City", "America/Bogota",
	"America/Lima", "America/Santiago", "America/Sao_Paulo", "America/Argentina/Buenos_Aires"}

// Adding reports whether the form adds a user.
func (f Form) Adding() bool { return f.User == nil }

// Action is where the form posts.
func (f Form) Action() string {
	if f.Adding() {
		return NewPath
	}
	return Href(f.User.ID) + "/edit"
}

// Field is the form's field name, labelled, with its value and error.
func (f Form) Field(ctx context.Context, name, labelID string) components.Field {
	return components.Field{Name: name, Label: i18n.T(ctx, labelID), Value: f.Values[name], Error: f.Errors[name]}
}

// Select is the form's select name offering opts, its value selected.
func (f Form) Select(ctx context.Context, name, labelID, blankID string, opts []components.Option) components.Field {
	fl := f.Field(ctx, name, labelID)
	if blankID != "" {
		fl.Blank = i18n.T(ctx, blankID)
	}
	for _, o := range opts {
		o.Selected = o.Value == f.Values[name]
		fl.Options = append(fl.Options, o)
	}
	return fl
}

// Locales are the language choices, the tenant's default first.
func (f Form) Locales(ctx context.Context) []components.Option {
	var out []components.Option
	for _, l := range i18n.Locales {
		out = append(out, components.Option{Value: l, Label: i18n.T(ctx, "language."+l)})
	}
	return out
}

// TeamChecked reports whether the team (an option's value) is ticked.
func (f Form) TeamChecked(value string) bool {
	for _, id := range f.TeamIDs {
		if strconv.FormatInt(id, 10) == value {
			return true
		}
	}
	return false
}

// Summary is the form's error summary.
func (f Form) Summary(ctx context.Context) []components.ErrorLink {
	labels := map[string]string{}
	for name, id := range map[string]string{"name": "usersPage.name", "email": "usersPage.email", "phone": "usersPage.phone",
		"title": "usersPage.personalTitle", "role_id": "usersPage.role", "team_ids": "usersPage.teams", "locale": "usersPage.language",
		"time_zone": "usersPage.timeZone", "password": "usersPage.password", "access": "usersPage.access"} {
		labels[name] = i18n.T(ctx, id)
	}
	return components.Summary(f.Errors, labels)
}

// View is a user's page.
type View struct {
	User      *store.UserRow
	Teams     []store.Team
	Self      bool   // the caller themself
	Error     string // a refusal of the last change (yourself, the last administrator), translated
	CanUpdate bool
	CanDelete bool
}

// Delete is the delete confirmation of a user: a user who owns records names their new owner.
type Delete struct {
	User    *store.UserRow
	Leads   int64
	Clients int64
	Owners  []components.Option
	OwnerID string
	Error   string // a refusal, translated
	Refused bool   // yourself or the last administrator: no button
}

// Invited is the page shown after an invitation: the link to pass on.
type Invited struct {
	User *store.UserRow
	Link string
}

// Log is the security log page.
type Log struct {
	components.ListState
	Page     *store.SecurityPage
	Filtered bool
	Users    []components.Option
	Pager    components.Pager
}

// LogState is the security log's state for a normalised query.
func LogState(q url.Values, errs map[string]string) components.ListState {
	return components.ListState{Path: LogPath, Results: LogResultsID, SortIDs: "log", Query: q, Sort: store.SortID, Desc: true, Errors: errs}
}

func (m Log) kindFilter(ctx context.Context) components.Field {
	var opts []components.Option
	for _, k := range store.SecurityKinds {
		opts = append(opts, components.Option{Value: k, Label: i18n.T(ctx, "usersPage.kind."+k)})
	}
	return m.Select(ctx, components.Field{ID: "l-kind", Name: "kind", Label: i18n.T(ctx, "usersPage.kindLabel"), Error: m.Errors["kind"]}, opts)
}

func (m Log) userFilter(ctx context.Context) components.Field {
	return m.Select(ctx, components.Field{ID: "l-user", Name: "user_id", Label: i18n.T(ctx, "usersPage.logUser"), Error: m.Errors["user_id"]}, m.Users)
}

// LogColumns are the security log's columns.
var LogColumns = []components.Column{
	{LabelID: "usersPage.when"}, {LabelID: "usersPage.kindLabel"}, {LabelID: "usersPage.actor"}, {LabelID: "usersPage.subject"}, {LabelID: "usersPage.detail"},
}

func (m Log) results(ctx context.Context) components.Results {
	r := components.Results{Count: components.Total(ctx, "usersPage.logTotal", m.Page.Total, m.Page.Capped), CountTestID: "log-count",
		Empty: components.Empty{TestID: "log-empty", Filtered: m.Filtered, NoMatch: i18n.T(ctx, "usersPage.logNoMatch"),
			Reset: i18n.T(ctx, "usersPage.reset"), Message: i18n.T(ctx, "usersPage.logEmpty")},
		Table: components.Table{Caption: i18n.T(ctx, "usersPage.log"), TestID: "log-table", Columns: LogColumns, RowAttr: "data-entry-id",
			Bulk: components.Bulk{FormID: "log-table-form", Action: LogPath}},
		Pager: m.Pager}
	for i := range m.Page.Rows {
		e := &m.Page.Rows[i]
		r.Table.Rows = append(r.Table.Rows, components.Row{ID: e.ID, Name: e.Kind, Cells: logRow(e)})
	}
	return r
}

// when writes a time for the pages; "—" for none.
func when(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return t.UTC().Format(TimeFormat)
}

// orDash is s, or "—" when empty.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// localeName is a language's name; "" is the tenant's default.
func localeName(ctx context.Context, locale string) string {
	if locale == "" {
		return i18n.T(ctx, "usersPage.tenantDefault")
	}
	return i18n.T(ctx, "language."+locale)
}

// fullName is a user's name after their personal title, if any.
func fullName(title, name string) string {
	if title == "" {
		return name
	}
	return title + " " + name
}
