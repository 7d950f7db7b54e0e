package store

import (
	"context"
	"reflect"
)

// What an import knows of each importable entity: one adapter per entity (leads in
// imports_leads.go, clients in imports_clients.go), registered in importKinds. The batch
// machinery (imports_apply.go, imports_update.go, imports_undo.go) is written once over
// it; a third importable entity adds its adapter and nothing else.

// importAdapter is an importable entity whose records are R (Lead, Client): the fields a
// row can fill, how its records are found and read, and the entity's own rules for a row
// that creates or updates one and for the undo of an update.
type importAdapter[R any] struct {
	entity *Entity
	// fields are the fields a row can fill, by the names the validation errors and the
	// JSON API use (ImportItem.Set); masters and the owner come as names in the file.
	fields []string
	// keyField is the field, and column, a match key (MatchEmail, MatchPhone) compares.
	keyField func(matchKey string) string
	// record points at the fields every people-like record has (id, contact block, owner…).
	record func(*R) recordFields
	// refs are the record's reference columns (masters, owner) by column name.
	refs func(*R) map[string]*int64
	// values puts a row's values in an item as the entity takes them (a LeadInput holds
	// every field an import of any entity fills).
	values func(it *ImportItem, v LeadInput)
	// create is the record a row makes, by the entity's create rules over the batch's
	// masters and users; a refusal is validate.Errors.
	create func(s Scope, refs *refSet, it *ImportItem) (*R, error)
	// update is old as the row leaves it, by the entity's edit rules, with the journey
	// entries the edit records; or, next being nil, why the row changes nothing
	// (ReasonUnchanged, ReasonNotFound). A refusal is validate.Errors. old is not changed.
	update func(ctx context.Context, s Scope, refs *refSet, old *R, it *ImportItem) (next *R, entries []AuditEntry, skip string, err error)
	// restore is cur with an update's before-values given back, as an edit would give
	// them, with the journey entries it records; nil when nothing changes.
	restore func(ctx context.Context, s Scope, refs *refSet, cur, before *R) (*R, []AuditEntry, error)
	// unlink, when set, detaches what refers to records about to be deleted.
	unlink func(ctx context.Context, s Scope, ids []int64) error
}

// importKind is an adapter with its record type hidden, as the registry holds it.
type importKind interface {
	importFields() []string
	setValues(it *ImportItem, v LeadInput)
	// applyRows applies a batch's items (see ApplyImportBatch) and says what each did.
	applyRows(ctx context.Context, tx Scope, im *Import, items []ImportItem) ([]importRow, error)
	// places adds to places the id of the reachable record with each key (ImportPlaces).
	places(ctx context.Context, s Scope, im *Import, keys []string, places map[string]int64) error
	// undoRows reverts a batch of changed rows (see UndoImportBatch).
	undoRows(ctx context.Context, tx Scope, im *Import, rows []importRow) error
	// table is the entity whose records the import writes.
	table() *Entity
}

// importKinds are the importable entities, by name.
var importKinds = map[string]importKind{
	EntityLead:   leadImports,
	EntityClient: clientImports,
}

func (ad *importAdapter[R]) importFields() []string                { return ad.fields }
func (ad *importAdapter[R]) table() *Entity                        { return ad.entity }
func (ad *importAdapter[R]) setValues(it *ImportItem, v LeadInput) { ad.values(it, v) }

// key is a record's value of the match key's field.
func (ad *importAdapter[R]) key(r *R, matchKey string) string {
	if p := ad.record(r).field(ad.keyField(matchKey), false); p != nil {
		return *p
	}
	return ""
}

// ImportFields are the fields an import of the entity can fill; nil when it is not importable.
func ImportFields(entity string) []string {
	if k, ok := importKinds[entity]; ok {
		return k.importFields()
	}
	return nil
}

// MatchField is the field, and column, a match key compares: the phone number for
// MatchPhone, else the email (the contact block's, which every importable entity has).
func MatchField(matchKey string) string {
	if matchKey == MatchPhone {
		return "company_phone_number"
	}
	return "company_email"
}

// ImportItem is one data row of an import, read and mapped by the importer.
type ImportItem struct {
	Row    int             // the row's number in the file, the header being row 1
	Key    string          // the match key's value, normalised (lowercased email, phone digits); "" if none
	Lead   LeadInput       // for a lead import: the fields the row gives
	Client ClientInput     // for a client import
	Set    map[string]bool // the fields the row gives a value for, by their validation names (ImportFields)
	Reason *RowReason      // set when the importer already refused the row
}

// SetValues puts a row's values in the item as an import of the entity takes them: v holds
// every field an import of any entity can fill (LeadInput has them all), and each entity
// keeps its own.
func (it *ImportItem) SetValues(entity string, v LeadInput) {
	if k, ok := importKinds[entity]; ok {
		k.setValues(it, v)
	}
}

// The fields of an input an import overlays on a record, shared by the entities.

func copyAddress(a *Address) *Address {
	if a == nil {
		return nil
	}
	c := *a
	return &c
}

// inputFields points at the fields of an entity's input that an import sets by name: the
// contact block, and the references (masters, owner) by their field names.
type inputFields struct {
	*Contact
	ref func(field string) **int64 // nil for a name that is no reference of the input
}

// overlay copies the fields the row sets from src onto dst; the others keep dst's value.
func overlay(dst, src inputFields, set map[string]bool) {
	for f := range set {
		if p := dst.ref(f); p != nil {
			*p = *src.ref(f)
		} else if v := src.field(f, false); v != nil { // (an address part of no address sets nothing)
			if p := dst.field(f, true); p != nil {
				*p = *v
			}
		}
	}
}

// overlaid is base with the fields the row sets from src, its addresses its own.
func overlaid[I any](base, src I, fields func(*I) inputFields, set map[string]bool) I {
	next := base
	f := fields(&next)
	*f.Contact = f.clone()
	overlay(f, fields(&src), set)
	return next
}

// sameInput compares two inputs of an entity as the store would save them: each with its
// own addresses, normalised (trimmed, email lowercased).
func sameInput[I any](a, b I, fields func(*I) inputFields, normalise func(*I)) bool {
	for _, in := range []*I{&a, &b} {
		f := fields(in)
		*f.Contact = f.clone()
		normalise(in)
	}
	return reflect.DeepEqual(a, b)
}
