// Package components holds the small form pieces the admin pages share: a labelled field
// with its inline error, a select, a confirmation step and keyset paging links.
package components

import (
	"sort"
	"strings"
)

// Field is one labelled form control. Error is a validator key ("invalidEmail"), shown as
// the translated `validation.<key>` message under the control and tied to it with
// aria-describedby.
type Field struct {
	ID           string
	Name         string
	Label        string
	Type         string // input type; "" is text
	Value        string
	Error        string
	Hint         string
	Autocomplete string
	Required     bool
	Accept       string // file inputs
	Inputmode    string
	Pattern      string
	MaxLength    int
	Options      []Option // selects
	Blank        string   // the label of a select's empty choice; "" for none
}

// Option is one choice of a select.
type Option struct {
	Value    string
	Label    string
	Selected bool
}

// FieldID turns a form name ("billing_address.city") into an element id.
func FieldID(name string) string {
	return "f-" + strings.NewReplacer(".", "-", "_", "-").Replace(name)
}

func (f Field) id() string {
	if f.ID != "" {
		return f.ID
	}
	return FieldID(f.Name)
}

func (f Field) errorID() string { return f.id() + "-error" }
func (f Field) hintID() string  { return f.id() + "-hint" }

// describedBy lists the ids of the hint and the error, if any.
func (f Field) describedBy() string {
	var ids []string
	if f.Hint != "" {
		ids = append(ids, f.hintID())
	}
	if f.Error != "" {
		ids = append(ids, f.errorID())
	}
	return strings.Join(ids, " ")
}

func (f Field) inputType() string {
	if f.Type == "" {
		return "text"
	}
	return f.Type
}

// ErrorLink is one entry of an error summary: the field's label and its message key.
type ErrorLink struct {
	Href  string
	Label string
	Key   string
}

// Summary orders the errors of a form for its summary; labels names fields, and errors
// of fields without a label are listed by their key alone.
func Summary(errs map[string]string, labels map[string]string) []ErrorLink {
	out := make([]ErrorLink, 0, len(errs))
	for name, key := range errs {
		l := ErrorLink{Key: key, Label: labels[name]}
		if l.Label != "" {
			l.Href = "#" + FieldID(name)
		}
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Label != out[j].Label {
			return out[i].Label < out[j].Label
		}
		return out[i].Key < out[j].Key
	})
	return out
}

// ConfirmModel is a confirmation step: what is about to happen, the items it touches, and
// a form that does it. Hidden fields carry what the form posts.
type ConfirmModel struct {
	Title      string
	Message    string
	Items      []Link
	Action     string
	Hidden     []Hidden
	Confirm    string
	CancelHref string
	Cancel     string
	Error      string // a refusal to show instead of going on ("in use by 3 leads")
	Danger     bool
}

// Link is a labelled href.
type Link struct {
	Href  string
	Label string
}

// Hidden is a hidden form field.
type Hidden struct {
	Name  string
	Value string
}

// Pager is the paging bar of a keyset list: a link to the first page and to the next one,
// and the page sizes to choose from. Target, when set, makes htmx swap only that element.
type Pager struct {
	Label     string // aria-label of the nav
	FirstHref string // "" when on the first page
	PrevHref  string // "" when there is no previous page (or the list pages forward only)
	NextHref  string // "" when there is no next page
	First     string
	Prev      string
	Next      string
	Sizes     []Link
	SizeLabel string
	Target    string
}
