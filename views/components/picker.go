package components

import (
	"context"
	"encoding/json"

	"github.com/a-h/templ"

	"crm/app/i18n"
)

// PickerLabelKeys are the picker island's labels; each is translated from `picker.<key>`.
var PickerLabelKeys = []string{"cancel", "set", "from", "to", "am", "pm", "open", "dialog", "prevMonth", "nextMonth",
	"prevYears", "nextYears", "chooseMonth", "chooseYear", "hours", "minutes", "seconds", "time", "clear"}

// PickerLabels are the picker island's labels in the context's language.
func PickerLabels(ctx context.Context) map[string]string {
	out := make(map[string]string, len(PickerLabelKeys))
	for _, k := range PickerLabelKeys {
		out[k] = i18n.T(ctx, "picker."+k)
	}
	return out
}

// Picker loads on the first sign of use (islands/admin.ts): pointing at, pressing or
// focusing the field. Pages with a budget (the lead list, the home page) use it.
const PickerOnIntent = "intent"

// Picker is a date field, or a range of two, that the date-time picker island
// (islands/picker) enhances. Without JavaScript it is the native input(s), which post the
// same names and values as the island's hidden inputs. The page names no script: the admin
// shell's script (islands/admin.ts) loads the island's bundle when such a field is on the
// page, or, with Load = PickerOnIntent, when the user first points at or focuses it, and
// mounts it again on content htmx swaps in.
type Picker struct {
	ID         string // the first native input's id, and the island's field's
	Name       string
	IDTo       string // range: the second native input's id (default ID + "-to")
	NameTo     string // range: the second field's name
	Label      string // the island's label (and the first native input's, unless FieldLabel)
	FieldLabel string // the first native input's label when it differs from Label
	LabelTo    string // range: the second native input's label
	Value      string
	ValueTo    string
	WithTime   bool
	Mode       string // single (default), range, rangeFrom, rangeTo
	Required   bool
	NoClear    bool   // the island offers no Clear (the native inputs stay optional)
	Error      string // validator key of the first field
	ErrorTo    string // validator key of the second field
	HintID     string // id of a hint outside the field that describes it
	Load       string // "" (as soon as it is on the page) or PickerOnIntent
	TestID     string
	Attrs      templ.Attributes // more attributes of the island's element
}

func (p Picker) mode() string {
	if p.Mode == "" {
		return "single"
	}
	return p.Mode
}

func (p Picker) idTo() string {
	if p.IDTo != "" {
		return p.IDTo
	}
	return p.ID + "-to"
}

func (p Picker) inputType() string {
	if p.WithTime {
		return "datetime-local"
	}
	return "date"
}

func (p Picker) field() Field {
	label := p.FieldLabel
	if label == "" {
		label = p.Label
	}
	return Field{ID: p.ID, Name: p.Name, Label: label, Type: p.inputType(), Value: p.Value, Error: p.Error, Required: p.Required}
}

func (p Picker) fieldTo() Field {
	return Field{ID: p.idTo(), Name: p.NameTo, Label: p.LabelTo, Type: p.inputType(), Value: p.ValueTo, Error: p.ErrorTo, Required: p.Required}
}

// Props is the island's data-props: its fields, and its labels, locale and error message
// in the context's language.
func (p Picker) Props(ctx context.Context) string {
	m := map[string]any{"id": p.ID, "name": p.Name, "label": p.Label, "value": p.Value, "withTime": p.WithTime,
		"mode": p.mode(), "required": p.Required || p.NoClear, "locale": i18n.Locale(ctx), "labels": PickerLabels(ctx),
		"testid": p.TestID}
	if p.NameTo != "" {
		m["nameTo"], m["valueTo"] = p.NameTo, p.ValueTo
	}
	if p.HintID != "" {
		m["describedBy"] = p.HintID
	}
	switch {
	case p.Error != "":
		m["error"], m["errorId"] = i18n.T(ctx, "validation."+p.Error), p.ID+"-error"
	case p.NameTo != "" && p.ErrorTo != "":
		m["error"], m["errorId"] = i18n.T(ctx, "validation."+p.ErrorTo), p.idTo()+"-error"
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func (p Picker) hostAttrs(ctx context.Context) templ.Attributes {
	a := templ.Attributes{"class": "picker-slot", "data-island": "picker", "data-props": p.Props(ctx)}
	if p.Load != "" {
		a["data-load"] = p.Load
	}
	for k, v := range p.Attrs {
		a[k] = v
	}
	return a
}
