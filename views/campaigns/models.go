// Package campaigns holds the pages of email templates (Settings) and of bulk email to
// leads: the template list and form with its live preview, the send's confirmation and
// its report.
package campaigns

import (
	"context"
	"strconv"

	"crm/app/i18n"
	"crm/app/store"
	"crm/views/components"
)

// ListPath is the template list.
const ListPath = "/settings/templates"

// Href is a template's page.
func Href(id int64) string { return ListPath + "/" + strconv.FormatInt(id, 10) }

// SendHref is a bulk send's report.
func SendHref(id int64) string { return "/emails/sends/" + strconv.FormatInt(id, 10) }

// List is the template list page.
type List struct {
	Templates []store.EmailTemplate
	Sends     []store.EmailSend // the latest bulk sends
	CanCreate bool
}

// Form is a template's form (new or existing).
type Form struct {
	ID        int64 // 0: a new template
	Name      string
	Subject   string
	Body      string
	Variants  map[string][2]string // locale → subject, body
	Errors    map[string]string
	CanSave   bool
	CanDelete bool
	// The record the preview renders for.
	PreviewEntity string
	PreviewID     string
	CanPreview    []string // the kinds the caller may view
}

// Action is where the form posts.
func (f Form) Action() string {
	if f.ID == 0 {
		return ListPath + "/new"
	}
	return Href(f.ID)
}

// Locales are the languages a template may have variants in.
func Locales() []string { return i18n.Locales }

// Preview is the preview fragment: the message rendered, or why not.
type Preview struct {
	Email  *store.RenderedEmail
	Errors []string // translated
}

// SendConfirm is the confirmation of a bulk send.
type SendConfirm struct {
	Templates []components.Option
	Error     string // translated: no template chosen, or none exists
	IDs       []int64
	Query     string // with All: the lead list's query
	All       bool   // every lead the list's filters match (nothing was ticked)
	Back      string
	Audience  store.SendAudience
}

// Report is a bulk send's report.
type Report struct {
	Send *store.EmailSend
}

// Percent is how far the send is.
func (r Report) Percent() int {
	if r.Send.Total == 0 {
		return 100
	}
	return r.Send.Processed * 100 / r.Send.Total
}

func n(v int) string { return strconv.Itoa(v) }

func localeName(ctx context.Context, l string) string { return i18n.T(ctx, "language."+l) }

func variantValue(f Form, l string, i int) string { return f.Variants[l][i] }

func entityLabel(ctx context.Context, e string) string { return i18n.T(ctx, "campaigns.entity."+e) }
