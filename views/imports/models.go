// Package imports holds the CSV import pages: the list of a user's imports, the upload
// form, and an import's page, which is first its preview and column mapping, then its
// progress bar, then its report with the undo button.
package imports

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"crm/app/i18n"
	"crm/app/importer"
	"crm/app/store"
	"crm/views/components"
)

// DateTimeFormat is the spec's dd/MM/yyyy with the time.
const DateTimeFormat = "02/01/2006 15:04"

// Href is an import's page.
func Href(id int64) string { return "/imports/" + strconv.FormatInt(id, 10) }

// ListPage is the list of the user's imports.
type ListPage struct {
	Imports []*store.Import
	CanNew  bool
}

// NewPage is the upload form.
type NewPage struct {
	Entities []components.Option
	Error    string // a message id (imports.error.*) about the file, or ""
	Args     []any
}

// Column is one column of the uploaded file in the mapping form.
type Column struct {
	Index    int
	Header   string
	Samples  []string
	Selected string
	Error    string // validation key: invalid or taken
}

// ImportPage is an import's page.
type ImportPage struct {
	Import *store.Import
	// Mapping, while the import waits for it.
	Columns  []Column
	Fields   []string
	Mode     string
	MatchKey string
	Errors   map[string]string // field → validation key, from CheckMapping
	// Progress and report.
	Status StatusModel
}

// StatusModel is the progress of a running import (or undo), or the report of a finished one.
type StatusModel struct {
	Import    *store.Import
	Problems  []Problem // the first rows that were skipped or failed
	More      bool      // there are more of them than shown
	CanUndo   bool
	UndoError string // a message id: why the last undo stopped
}

// Problem is a skipped or failed row, for the report.
type Problem struct {
	Row      int
	Outcome  string
	Reason   string
	RecordID int64
}

// Entity names an entity in the user's language.
func Entity(ctx context.Context, entity string) string {
	return i18n.T(ctx, "imports.entity."+entity)
}

// StatusLabel names an import's status in the user's language.
func StatusLabel(ctx context.Context, status string) string {
	return i18n.T(ctx, "imports.status."+status)
}

// Outcome names a row's outcome in the user's language.
func Outcome(ctx context.Context, outcome string) string {
	return i18n.T(ctx, "imports.outcome."+outcome)
}

// FieldLabel is a field's label in the user's language.
func FieldLabel(ctx context.Context, field string) string {
	return i18n.T(ctx, importer.LabelID(field))
}

// Labels are the field labels of an entity in the user's language, for suggesting columns.
func Labels(ctx context.Context, entity string) map[string]string {
	out := map[string]string{}
	for _, f := range importer.Fields(entity) {
		out[f] = FieldLabel(ctx, f)
	}
	return out
}

// Active reports whether the import is being run or undone (or is about to be).
func (m StatusModel) Active() bool { return m.Import.Active() }

// Undoing reports whether the activity is an undo.
func (m StatusModel) Undoing() bool {
	return m.Import.Status == store.ImportUndoQueued || m.Import.Status == store.ImportUndoing
}

// Done and Total are the progress bar's position and end.
func (m StatusModel) Done() int {
	if m.Undoing() {
		return m.Import.Undone
	}
	return m.Import.Processed()
}

func (m StatusModel) Total() int {
	if m.Undoing() {
		return m.Import.UndoTotal
	}
	return m.Import.TotalRows
}

// Percent is how far the import (or undo) has come, 0 to 100.
func Percent(im *store.Import) int {
	switch im.Status {
	case store.ImportDone, store.ImportUndone:
		return 100
	case store.ImportUndoQueued, store.ImportUndoing:
		if im.UndoTotal == 0 {
			return 100
		}
		return im.Undone * 100 / im.UndoTotal
	case store.ImportUploaded:
		return 0
	}
	if im.TotalRows == 0 {
		return 100
	}
	return im.Processed() * 100 / im.TotalRows
}

// Count writes a number the way the user's language groups digits.
func Count(ctx context.Context, n int) string {
	tag, err := language.Parse(i18n.Lang(ctx))
	if err != nil {
		tag = language.AmericanEnglish
	}
	return message.NewPrinter(tag).Sprintf("%d", n)
}

// When is a time in the spec's date format, or "" for none.
func When(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.UTC().Format(DateTimeFormat)
}

// KeyLabel names a match key's field.
func KeyLabel(ctx context.Context, matchKey string) string {
	return FieldLabel(ctx, importer.KeyField(matchKey))
}

// ReasonText says in the user's language why a row was skipped or failed.
func ReasonText(ctx context.Context, im *store.Import, r *store.RowReason) string {
	if r == nil {
		return ""
	}
	key := KeyLabel(ctx, im.MatchKey)
	switch r.Code {
	case store.ReasonInvalid:
		fields := make([]string, 0, len(r.Errors))
		for f := range r.Errors {
			fields = append(fields, f)
		}
		sort.Strings(fields)
		parts := make([]string, 0, len(fields))
		for _, f := range fields {
			label := FieldLabel(ctx, f)
			if label == importer.LabelID(f) { // a field the import has no column for
				label = f
			}
			parts = append(parts, label+": "+i18n.T(ctx, "validation."+r.Errors[f]))
		}
		return strings.Join(parts, " ")
	case store.ReasonUnknown, store.ReasonAmbiguousValue:
		return i18n.T(ctx, "imports.reason."+r.Code, "Field", FieldLabel(ctx, r.Field), "Value", r.Value)
	case store.ReasonDuplicate, store.ReasonUnchanged:
		return i18n.T(ctx, "imports.reason."+r.Code, "ID", r.ID, "Key", key)
	case store.ReasonAmbiguous:
		return i18n.T(ctx, "imports.reason.ambiguous", "Count", r.Count, "Key", key)
	}
	return i18n.T(ctx, "imports.reason."+r.Code, "Key", key)
}

// ModeChoices are the import modes, for the mapping form.
var ModeChoices = []string{store.ModeCreate, store.ModeUpdate, store.ModeUpsert}

// MatchKeyChoices are the match keys.
var MatchKeyChoices = []string{store.MatchEmail, store.MatchPhone}

// RecordHref is the page of a record an import made or matched ("" where there is none).
func RecordHref(entity string, id int64) string {
	if id == 0 || entity != store.EntityLead {
		return ""
	}
	return "/leads/" + strconv.FormatInt(id, 10)
}

func itoa(n int) string         { return strconv.Itoa(n) }
func itoa64(n int64) string     { return strconv.FormatInt(n, 10) }
func colID(i int) string        { return "map-" + strconv.Itoa(i) }
func colName(i int) string      { return "map." + strconv.Itoa(i) }
func modeID(mode string) string { return "mode-" + mode }
