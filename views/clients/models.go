// Package clients holds the admin client pages (list, form, client page), the documents and
// reminders sections of a lead or client page, and the notifications page. Date fields are
// the shared picker field (components.PickerField), whose bundle the admin shell loads.
package clients

import (
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"crm/app/store"
	"crm/views/components"
)

// DateTimeFormat is the spec's default date format (dd/MM/yyyy) with the time.
const (
	DateFormat     = "02/01/2006"
	DateTimeFormat = "02/01/2006 15:04"
)

// ClientHref is a client's page.
func ClientHref(id int64) string { return "/clients/" + strconv.FormatInt(id, 10) }

func id(n int64) string { return strconv.FormatInt(n, 10) }

// Form is the client form's state: values as typed, errors by field, select choices.
type Form struct {
	ID         int64
	Action     string
	CancelHref string
	Values     map[string]string
	Errors     map[string]string
	Choices    map[string][]components.Option
}

// FormFields are the form's plain fields in order.
var FormFields = []string{"customer_title", "customer_name", "company_name", "company_type_id", "company_email",
	"company_dial_code", "company_phone_number", "owner_id", "notes"}

// AddressFields are the parts of a billing or shipping address.
var AddressFields = []string{"flatNo", "street", "city", "state", "zip", "country"}

// View is a client's page.
type View struct {
	Client    *store.ClientView
	CanUpdate bool
	CanDelete bool
	Documents Documents
	History   []HistoryItem
	// Reminders is the client's own reminders section (add, edit, done, delete).
	Reminders Reminders
	// OriginReminders are the reminders of the lead it was converted from (they stay on the
	// lead); nil when there is none or the caller may not see leads.
	OriginReminders []Reminder
	// KeepInTouch is the keep-in-touch section (app/kit).
	KeepInTouch templ.Component
}

// OneLine writes an address on one line, its filled parts joined.
func OneLine(a *store.Address) string {
	if a == nil {
		return ""
	}
	var parts []string
	for _, s := range []string{a.FlatNo, a.Street, a.City, a.State, a.Zip, a.Country} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ", ")
}

// HistoryItem is one journey entry of a client.
type HistoryItem struct {
	At     time.Time
	Who    string
	Action string
}

// Doc is the spec's file preview record as a page shows it.
type Doc struct {
	ID        int64
	Name      string
	Tag       string
	Size      string
	MediaType string
	URL       string
	Thumbnail bool
}

// Documents is the documents section of a lead or client page.
type Documents struct {
	Entity    string // lead or client
	EntityID  int64
	Base      string // the page's path: /leads/7 or /clients/3
	Docs      []Doc
	CanCreate bool
	CanUpdate bool
	CanDelete bool
	Error     string // an upload refusal, already translated
	MaxFiles  int
	MaxKB     int
}

// Reminder is one reminder as a list shows it.
type Reminder struct {
	ID         int64
	LeadID     int64 // 0 for a client's reminder
	LeadName   string
	ClientID   int64 // 0 for a lead's reminder
	ClientName string
	// ReadOnly hides the done and edit buttons of a list that otherwise shows them (the
	// caller may not update records of the reminder's kind).
	ReadOnly bool
	Title    string
	Note     string
	Due      time.Time
	Assignee string
	Done     bool
	Overdue  bool
}

// LeadExtras are the sections a lead page gets: its client (or the convert button), its
// documents and its reminders.
type LeadExtras struct {
	LeadID     int64
	ClientID   int64 // 0 when not converted
	CanConvert bool
	Documents  Documents
	Reminders  []Reminder
	CanRemind  bool // may add reminders
	CanUpdate  bool
	CanDelete  bool
	NewForm    ReminderForm
}

// Href is the reminders section of the record the reminder belongs to.
func (r Reminder) Href() string {
	if r.ClientID != 0 {
		return ClientHref(r.ClientID) + "#reminders"
	}
	return "/leads/" + strconv.FormatInt(r.LeadID, 10) + "#reminders"
}

// RecordName names the lead or client the reminder belongs to.
func (r Reminder) RecordName() string {
	if r.ClientID != 0 {
		return r.ClientName
	}
	return r.LeadName
}

// Reminders is a record's reminders section: its list, with the add form when CanRemind.
type Reminders struct {
	Rows      []Reminder
	CanRemind bool
	CanUpdate bool
	CanDelete bool
	NewForm   ReminderForm
}

// ReminderForm is the add or edit form of a reminder.
type ReminderForm struct {
	Action     string
	CancelHref string
	Values     map[string]string
	Errors     map[string]string
	Assignees  []components.Option
	Picker     components.Picker // the due date-time
	Edit       bool
}

// Notifications is the page of the user's due reminders.
type Notifications struct {
	Rows      []Reminder
	CanUpdate bool
	From      components.Picker // the due range (from, to)
}
