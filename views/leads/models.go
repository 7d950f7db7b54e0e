// Package leads holds the admin lead pages: the list, the lead form, the lead page with
// its journey, the pipeline board and the confirmation steps.
package leads

import (
	"context"
	"encoding/json"
	"github.com/a-h/templ"
	"sort"
	"strconv"
	"strings"
	"time"

	"crm/app/i18n"
	"crm/app/store"
	"crm/views/components"
)

// DateFormat is the spec's default date format (dd/MM/yyyy), with the time for the journey.
const (
	DateFormat     = "02/01/2006"
	DateTimeFormat = "02/01/2006 15:04"
)

// AddressFields are the parts of a billing or shipping address, in form order.
var AddressFields = []string{"flatNo", "street", "city", "state", "zip", "country"}

// Form is the state of the lead form: the values as typed (by form name), the errors by
// field, the choices of each select, and a duplicate warning.
type Form struct {
	ID          int64 // 0 for a new lead
	Action      string
	CancelHref  string
	Values      map[string]string
	Errors      map[string]string
	Choices     map[string][]components.Option // by field name: value and label, unselected
	OwnerLocked bool                           // a user limited to their own leads keeps them
	HasLogo     bool                           // the lead has a logo already
	KeptLogo    string                         // a valid logo chosen before a refused post, as a data URL
	KeptLogoLen int
	Duplicates  []store.LeadRef
	Confirmed   bool // the user chose to save despite the duplicates
}

// LabelID is the message id of a lead field's label.
func LabelID(name string) string {
	if _, part, ok := strings.Cut(name, "."); ok {
		name = part
	}
	return "leadsPage.field." + name
}

// Labels names every field of the form, for the error summary.
func (f Form) Labels(ctx context.Context) map[string]string {
	out := map[string]string{}
	for _, n := range []string{"customer_title", "customer_name", "company_name", "company_type_id", "company_email",
		"company_dial_code", "company_phone_number", "lead_type_id", "lead_source_id", "lead_status_id", "lead_stage_id",
		"owner_id", "notes", "company_logo"} {
		out[n] = i18n.T(ctx, LabelID(n))
	}
	for _, prefix := range []string{"billing_address", "shipping_address"} {
		group := i18n.T(ctx, "leadsPage.field."+prefix)
		for _, part := range AddressFields {
			out[prefix+"."+part] = group + " – " + i18n.T(ctx, LabelID(prefix+"."+part))
		}
	}
	return out
}

// field builds the control for a form name with its value, error and label.
func (f Form) field(ctx context.Context, name string) components.Field {
	return components.Field{Name: name, Label: i18n.T(ctx, LabelID(name)), Value: f.Values[name], Error: f.Errors[name]}
}

// choice builds a select with the current value selected.
func (f Form) choice(ctx context.Context, name, blank string) components.Field {
	fl := f.field(ctx, name)
	fl.Blank = blank
	for _, o := range f.Choices[name] {
		o.Selected = o.Value == f.Values[name]
		fl.Options = append(fl.Options, o)
	}
	return fl
}

// View is the lead page.
type View struct {
	Lead         *store.LeadView
	Stages       []store.Master
	Statuses     []store.Master
	CanUpdate    bool
	CanDelete    bool
	Journey      []JourneyItem
	JourneyTotal int64
	JourneyPager components.Pager
	// Extras are the client, documents and reminders sections (views/clients).
	Extras templ.Component
}

// JourneyItem is one journey entry as the timeline shows it.
type JourneyItem struct {
	At      time.Time
	Who     string
	Action  string
	Changes []Change
}

// Change is one field's value before and after.
type Change struct {
	Field  string // message id of the label
	Before string
	After  string
}

// journeyFields maps the journey's names of reference fields to the form's names.
var journeyFields = map[string]string{"lead_stage": "lead_stage_id", "lead_status": "lead_status_id",
	"lead_source": "lead_source_id", "lead_type": "lead_type_id", "company_type": "company_type_id", "owner": "owner_id"}

// special are the fields whose every change the store also records as an entry of its own
// (stage, status, owner): the timeline shows them there, not again in the update.
var special = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range store.OwnEntryFields {
		m[f] = true
	}
	return m
}()

// Journey turns the store's entries into timeline items: an update lists each changed field
// with its value before and after; a stage, status or owner change names both values.
func Journey(rows []store.JourneyEntry) []JourneyItem {
	out := make([]JourneyItem, 0, len(rows))
	for _, r := range rows {
		it := JourneyItem{At: r.CreatedAt, Who: r.ActorName, Action: r.Action}
		switch r.Action {
		case "update":
			before, after := decode(r.Before), decode(r.After)
			m, _ := after.(map[string]any)
			b, _ := before.(map[string]any)
			names := make([]string, 0, len(m))
			for k := range m {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, k := range names {
				if special[k] {
					continue // told by its own stage, status or owner entry
				}
				form := k
				if f, ok := journeyFields[k]; ok {
					form = f
				}
				it.Changes = append(it.Changes, Change{Field: LabelID(form), Before: show(b[k]), After: show(m[k])})
			}
			if len(it.Changes) == 0 {
				continue
			}
		case store.ActionStage, store.ActionStatus, store.ActionOwner:
			it.Changes = []Change{{Field: LabelID(journeyFields["lead_"+r.Action]), Before: show(decode(r.Before)), After: show(decode(r.After))}}
			if r.Action == store.ActionOwner {
				it.Changes[0].Field = LabelID("owner_id")
			}
		}
		out = append(out, it)
	}
	return out
}

func decode(s *string) any {
	if s == nil {
		return nil
	}
	var v any
	if json.Unmarshal([]byte(*s), &v) != nil {
		return *s
	}
	return v
}

// show writes a journey value as text: addresses as their parts joined, nothing as "".
func show(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case map[string]any:
		var parts []string
		for _, k := range AddressFields {
			if s, _ := x[k].(string); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", ")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Address writes an address on one line.
func Address(a *store.Address) string {
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

func id(n int64) string { return strconv.FormatInt(n, 10) }

// LeadHref is the address of a lead's page.
func LeadHref(n int64) string { return "/leads/" + id(n) }

// Refs names leads as links, for warnings and confirmations.
func Refs(rows []store.LeadRef) []components.Link {
	out := make([]components.Link, 0, len(rows))
	for _, r := range rows {
		label := "#" + id(r.ID) + " " + r.CustomerName
		if r.CompanyName != "" {
			label += " — " + r.CompanyName
		}
		if r.CompanyEmail != "" {
			label += " · " + r.CompanyEmail
		}
		if r.Phone != "" {
			label += " · " + r.Phone
		}
		out = append(out, components.Link{Href: LeadHref(r.ID), Label: label})
	}
	return out
}

// AgeDays is how many whole days ago t was.
func AgeDays(t, now time.Time) int {
	d := int(now.Sub(t).Hours() / 24)
	if d < 0 {
		return 0
	}
	return d
}
