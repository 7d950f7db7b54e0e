package store

import (
	"context"
	"errors"

	"github.com/uptrace/bun"
)

// LeadImportFields are the lead fields an import can fill, by the names the validation
// errors and the JSON API use. Masters and the owner come as names in the file.
var LeadImportFields = []string{"customer_title", "customer_name", "company_name", "company_email", "company_dial_code",
	"company_phone_number", "company_type_id", "lead_type_id", "lead_source_id", "lead_status_id", "lead_stage_id",
	"owner_id", "notes", "created_at",
	"billing_address.flatNo", "billing_address.street", "billing_address.city", "billing_address.state",
	"billing_address.zip", "billing_address.country",
	"shipping_address.flatNo", "shipping_address.street", "shipping_address.city", "shipping_address.state",
	"shipping_address.zip", "shipping_address.country"}

// leadImports is how an import creates, updates and restores leads: by the rules of
// CreateLead and UpdateLead, with their journey entries.
var leadImports = &importAdapter[Lead]{
	entity:   LeadEntity,
	fields:   LeadImportFields,
	keyField: MatchField,
	record:   leadRecordFields,
	refs: func(l *Lead) map[string]*int64 {
		return map[string]*int64{"company_type_id": l.CompanyTypeID, "lead_type_id": l.LeadTypeID, "lead_source_id": l.LeadSourceID,
			"lead_status_id": l.LeadStatusID, "lead_stage_id": l.LeadStageID, "owner_id": l.OwnerID}
	},
	values:  func(it *ImportItem, v LeadInput) { it.Lead = v },
	create:  func(s Scope, refs *refSet, it *ImportItem) (*Lead, error) { return s.importLead(refs, it.Lead) },
	update:  importLeadRow,
	restore: restoreLead,
	unlink: func(ctx context.Context, s Scope, ids []int64) error { // a converted client keeps its data but loses the link
		_, err := s.Update((*Client)(nil)).Set("lead_id = NULL").Where("lead_id IN (?)", bun.In(ids)).Exec(ctx)
		return err
	},
}

// importLead is CreateLead's rules for a row of an import: its validation, then newLead
// over the batch's masters and users (TestImportLeadMatchesCreateLead holds the two
// paths' outcomes equal).
func (s Scope) importLead(r *refSet, in LeadInput) (*Lead, error) {
	in.Mobile, in.ClientID, in.Logo = false, "", nil
	if errs := in.validate(); len(errs) > 0 {
		return nil, errs
	}
	return s.newLead(r, in)
}

// importLeadUpdate is UpdateLead's rules and change for a row of an import, over the
// batch's masters and users: checkLeadEdit, then applyTo (TestImportLeadUpdateMatchesUpdateLead
// holds the two paths' outcomes equal). old is not changed.
func (s Scope) importLeadUpdate(r *refSet, old *Lead, in LeadInput) (*Lead, error) {
	if err := s.checkLeadEdit(r, &in); err != nil {
		return nil, err
	}
	next := in.applyTo(old)
	next.touch() // as saveLeadChange
	return &next, nil
}

// importLeadRow is a row's update of a lead: the lead as UpdateLead would leave it with
// the row's fields over its own, and the journey entries saveLeadChange would record.
func importLeadRow(ctx context.Context, s Scope, refs *refSet, old *Lead, it *ImportItem) (*Lead, []AuditEntry, string, error) {
	base := leadInputOf(old)
	next := overlaid(base, it.Lead, leadFields, it.Set)
	if sameLeadInput(base, next) {
		return nil, nil, ReasonUnchanged, nil
	}
	for _, f := range []string{"lead_stage_id", "lead_status_id", "lead_source_id", "owner_id"} {
		if !it.Set[f] {
			*next.RefField(f) = nil // UpdateLead keeps it
		}
	}
	l, err := s.importLeadUpdate(refs, old, next)
	if err != nil {
		return nil, nil, "", err
	}
	changes, special, err := leadDiff(old, l, func(id *int64, user bool) (string, error) {
		return s.name(ctx, refs, id, user)
	})
	if errors.Is(err, ErrNotFound) { // as UpdateLead's ErrNotFound
		return nil, nil, ReasonNotFound, nil
	}
	if err != nil {
		return nil, nil, "", err
	}
	if len(changes) == 0 { // nothing to write after all (the same master by another spelling)
		return nil, nil, ReasonUnchanged, nil
	}
	entries, err := leadChangeEntries(s.actor(), old.ID, changes, special)
	if err != nil {
		return nil, nil, "", err
	}
	return l, entries, "", nil
}

// restoreLead gives a lead back an update's before-values, as an edit would: a master
// deleted since stays empty; the journey entries are saveLeadChange's.
func restoreLead(ctx context.Context, s Scope, refs *refSet, cur, before *Lead) (*Lead, []AuditEntry, error) {
	next := *cur
	restoreCommon(leadRecordFields(&next), leadRecordFields(before))
	keep := func(p *int64) *int64 { // a master deleted since cannot come back
		if p != nil {
			if _, ok := refs.masterNames[*p]; !ok {
				return nil
			}
		}
		return p
	}
	next.CompanyTypeID, next.LeadTypeID = keep(before.CompanyTypeID), keep(before.LeadTypeID)
	next.LeadSourceID, next.LeadStatusID, next.LeadStageID = keep(before.LeadSourceID), keep(before.LeadStatusID), keep(before.LeadStageID)
	next.OwnerID = before.OwnerID
	next.touch() // as saveLeadChange
	changes, special, err := leadDiff(cur, &next, func(id *int64, user bool) (string, error) {
		return s.name(ctx, refs, id, user)
	})
	if err != nil || len(changes) == 0 { // saveLeadChange writes and records nothing without a change
		return nil, nil, err
	}
	entries, err := leadChangeEntries(s.actor(), cur.ID, changes, special)
	if err != nil {
		return nil, nil, err
	}
	return &next, entries, nil
}

func leadInputOf(l *Lead) LeadInput {
	return LeadInput{Contact: l.Contact.clone(), LeadTypeID: l.LeadTypeID, LeadSourceID: l.LeadSourceID,
		LeadStatusID: l.LeadStatusID, LeadStageID: l.LeadStageID}
}

// TextField points at the input's text field or address part ("billing_address.city",
// the address made if need be) that an import field names; nil for another field.
func (in *LeadInput) TextField(name string) *string { return leadFields(in).field(name, true) }

// RefField points at the input's reference (a master, the owner) that an import field
// names; nil for another field.
func (in *LeadInput) RefField(name string) **int64 {
	switch name {
	case "company_type_id":
		return &in.CompanyTypeID
	case "lead_type_id":
		return &in.LeadTypeID
	case "lead_source_id":
		return &in.LeadSourceID
	case "lead_status_id":
		return &in.LeadStatusID
	case "lead_stage_id":
		return &in.LeadStageID
	case "owner_id":
		return &in.OwnerID
	}
	return nil
}

func leadFields(in *LeadInput) inputFields {
	return inputFields{&in.Contact, in.RefField}
}

// sameLeadInput compares two inputs as the store would save them (trimmed, email lowercased).
func sameLeadInput(a, b LeadInput) bool { return sameInput(a, b, leadFields, (*LeadInput).normalise) }
