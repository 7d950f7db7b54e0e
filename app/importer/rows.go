package importer

import (
	"context"
	"strconv"
	"strings"
	"time"

	"crm/app/store"
	"crm/app/validate"
)

// masterFields are the fields that name a master, and its kind.
var masterFields = map[string]store.MasterKind{
	"company_type_id": store.KindBusinessType,
	"lead_type_id":    store.KindType,
	"lead_source_id":  store.KindSource,
	"lead_status_id":  store.KindStatus,
	"lead_stage_id":   store.KindStage,
}

// Builder turns the rows of an import into the store's items: each mapped cell into its
// field, master and owner names into ids. It holds no rule of its own about the values
// (the store's validation judges them), only about reading them: a name must be one of
// the tenant's, a date must be a date.
type Builder struct {
	entity   string
	matchKey string
	mapping  []string
	masters  map[store.MasterKind]map[string]int64 // lowercased name → id
	ids      map[store.MasterKind]map[int64]bool
	byEmail  map[string]int64
	byName   map[string][]int64
}

// NewBuilder prepares the rows of an import: the tenant's masters and users by name.
func NewBuilder(ctx context.Context, s store.Scope, im *store.Import) (*Builder, error) {
	b := &Builder{entity: im.Entity, matchKey: im.MatchKey, mapping: im.Mapping,
		masters: map[store.MasterKind]map[string]int64{}, ids: map[store.MasterKind]map[int64]bool{},
		byEmail: map[string]int64{}, byName: map[string][]int64{}}
	for _, kind := range masterFields {
		if b.masters[kind] != nil {
			continue
		}
		ms, err := s.Masters(ctx, kind)
		if err != nil {
			return nil, err
		}
		b.masters[kind], b.ids[kind] = map[string]int64{}, map[int64]bool{}
		for _, m := range ms {
			b.masters[kind][strings.ToLower(strings.TrimSpace(m.Name))] = m.ID
			b.ids[kind][m.ID] = true
		}
	}
	users, err := s.Users(ctx)
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		b.byEmail[strings.ToLower(u.Email)] = u.ID
		if n := strings.ToLower(strings.TrimSpace(u.Name)); n != "" {
			b.byName[n] = append(b.byName[n], u.ID)
		}
	}
	return b, nil
}

// Clean is a cell's value as imported: trimmed, and without the apostrophe an export puts
// before a value a spreadsheet would otherwise run as a formula.
func Clean(v string) string {
	v = strings.TrimSpace(v)
	if len(v) > 1 && v[0] == '\'' && strings.ContainsRune("=+-@", rune(v[1])) {
		v = v[1:]
	}
	return v
}

// dateLayouts are the ways a creation date may be written: ISO forms, the export's form,
// and the spec's dd/MM/yyyy.
var dateLayouts = []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04",
	"2006-01-02", "02/01/2006 15:04:05", "02/01/2006 15:04", "02/01/2006"}

func parseDate(v string) (time.Time, bool) {
	for _, l := range dateLayouts {
		if t, err := time.ParseInLocation(l, v, time.UTC); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// Item turns a row into the store's item.
func (b *Builder) Item(row Row) store.ImportItem {
	it := store.ImportItem{Row: row.No, Set: map[string]bool{}}
	if row.Err != nil {
		it.Reason = &store.RowReason{Code: store.ReasonMalformed}
		return it
	}
	var v store.LeadInput // every field of every importable entity; the entity keeps its own
	for i, f := range b.mapping {
		if f == "" || i >= len(row.Cells) {
			continue
		}
		cell := Clean(row.Cells[i])
		if cell == "" {
			continue
		}
		// Text the databases cannot store (NUL, control characters) fails the row, as the
		// API refuses it (validate.Text); the cell is not kept in the reason either.
		if !validate.Text(cell, f == "notes") {
			if it.Reason == nil {
				it.Reason = &store.RowReason{Code: store.ReasonInvalid, Errors: validate.Errors{f: validate.KeyInvalidCharacters}}
			}
			continue
		}
		if f == "company_phone_number" {
			cell = validate.NormalisePhone(cell) // before matching on it, as the store saves it
		}
		if reason := b.set(&v, f, cell); reason != nil && it.Reason == nil {
			it.Reason = reason
		}
		it.Set[f] = true
	}
	switch b.matchKey {
	case store.MatchPhone:
		it.Key = v.CompanyPhoneNumber
	default:
		it.Key = strings.ToLower(v.CompanyEmail)
	}
	it.SetValues(b.entity, v)
	return it
}

// set puts one cell's value in its field; a name that is none of the tenant's, or a date
// that is not one, is the row's failure.
func (b *Builder) set(c *store.LeadInput, field, v string) *store.RowReason {
	if kind, ok := masterFields[field]; ok {
		id, ok := b.masters[kind][strings.ToLower(v)]
		if !ok { // an id, as the API and an export of ids would have it
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && b.ids[kind][n] {
				id, ok = n, true
			}
		}
		if !ok {
			return &store.RowReason{Code: store.ReasonUnknown, Field: field, Value: v}
		}
		*c.RefField(field) = &id
		return nil
	}
	if p := c.TextField(field); p != nil {
		*p = v
		return nil
	}
	switch field {
	case "owner_id":
		if id, ok := b.byEmail[strings.ToLower(v)]; ok {
			c.OwnerID = &id
			return nil
		}
		switch ids := b.byName[strings.ToLower(v)]; len(ids) {
		case 0:
			return &store.RowReason{Code: store.ReasonUnknown, Field: field, Value: v}
		case 1:
			c.OwnerID = &ids[0]
		default:
			return &store.RowReason{Code: store.ReasonAmbiguousValue, Field: field, Value: v}
		}
	case "created_at":
		t, ok := parseDate(v)
		if !ok {
			return &store.RowReason{Code: store.ReasonInvalid, Errors: validate.Errors{"created_at": validate.KeyInvalidDate}}
		}
		c.CreatedAt = &t
	}
	return nil
}
