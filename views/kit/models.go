// Package kit holds the keep-in-touch views: the section of the lead and client pages, the
// plan form, the /keep-in-touch list and the meeting dashboard's block.
package kit

import (
	"strconv"

	"crm/views/components"
)

// Plan is one keep-in-touch plan as a page shows it.
type Plan struct {
	ID         int64
	Type       string // email, call, meeting
	EventType  string
	Interval   string
	Next       string // the next occurrence on the owner's clock ("" when finished)
	NextISO    string
	Zone       string
	Owner      string
	Active     bool
	Record     string
	RecordHref string
	Subject    string
}

// Section is the "Keep in touch" section of a lead or client page.
type Section struct {
	Plans     []Plan
	CanUpdate bool
	Back      string // the record page, where the section's actions return
	Form      Form
}

// Form adds or edits a plan.
type Form struct {
	Action     string
	Cancel     string
	Back       string
	Values     map[string]string
	Errors     map[string]string
	Types      []components.Option
	Intervals  []components.Option
	EventTypes []components.Option
	Templates  []components.Option
	Owners     []components.Option
	Edit       bool
}

// ListPage is /keep-in-touch: the plans the caller may see, filtered, by next occurrence.
type ListPage struct {
	Plans     []Plan
	Total     string
	Types     []components.Option
	Owners    []components.Option
	Actives   []components.Option
	PrevHref  string
	NextHref  string
	CanUpdate bool
	Back      string
}

// Item is a call or meeting on the dashboard.
type Item struct {
	Type       string
	Label      string
	At         string
	AtISO      string
	Owner      string
	Record     string
	RecordHref string
}

// Dashboard is the meeting dashboard's block.
type Dashboard struct {
	Team     bool
	MayTeam  bool
	Overdue  []Item
	Today    []Item
	ThisWeek []Item
}

func id(n int64) string { return strconv.FormatInt(n, 10) }

// Href is a plan's own path under /keep-in-touch.
func Href(id int64, action string) string {
	return "/keep-in-touch/" + strconv.FormatInt(id, 10) + "/" + action
}

func selected(opts []components.Option, v string) []components.Option {
	out := make([]components.Option, len(opts))
	for i, o := range opts {
		o.Selected = o.Value == v
		out[i] = o
	}
	return out
}
