package store

import (
	"context"
	"time"
)

// ClientImportFields are the client fields an import can fill: the lead's, but for the
// lead's own masters and its creation date.
var ClientImportFields = func() []string {
	var out []string
	for _, f := range LeadImportFields {
		switch f {
		case "lead_type_id", "lead_source_id", "lead_status_id", "lead_stage_id", "created_at":
		default:
			out = append(out, f)
		}
	}
	return out
}()

// clientImports is how an import creates, updates and restores clients: by the rules of
// CreateClient and UpdateClient, with their journey entries.
var clientImports = &importAdapter[Client]{
	entity:   ClientEntity,
	fields:   ClientImportFields,
	keyField: MatchField,
	record:   clientRecordFields,
	refs: func(c *Client) map[string]*int64 {
		return map[string]*int64{"company_type_id": c.CompanyTypeID, "owner_id": c.OwnerID}
	},
	values: func(it *ImportItem, v LeadInput) {
		it.Client = ClientInput{Contact: v.Contact}
	},
	create:  func(s Scope, refs *refSet, it *ImportItem) (*Client, error) { return s.importClient(refs, it.Client) },
	update:  importClientRow,
	restore: restoreClient,
}

// importClient is CreateClient's rules for a row of an import, over the batch's masters
// and users: checkClient, then newClient (TestImportClientMatchesCreateClient holds the
// two paths' outcomes equal).
func (s Scope) importClient(r *refSet, in ClientInput) (*Client, error) {
	if err := s.checkClient(r, &in); err != nil {
		return nil, err
	}
	return s.newClient(in), nil
}

// importClientUpdate is UpdateClient's rules and change for a row of an import, over the
// batch's masters and users: checkClient, then editedClient
// (TestImportClientUpdateMatchesUpdateClient holds the two paths' outcomes equal). old is
// not changed.
func (s Scope) importClientUpdate(r *refSet, old *Client, in ClientInput) (*Client, error) {
	if err := s.checkClient(r, &in); err != nil {
		return nil, err
	}
	return s.editedClient(old, in), nil
}

// importClientRow is a row's update of a client: the client as UpdateClient would leave
// it with the row's fields over its own, and the journey entry UpdateClient records (the
// whole record before and after).
func importClientRow(_ context.Context, s Scope, refs *refSet, old *Client, it *ImportItem) (*Client, []AuditEntry, string, error) {
	base := clientInputOf(old)
	next := overlaid(base, it.Client, clientFields, it.Set)
	if sameClientInput(base, next) {
		return nil, nil, ReasonUnchanged, nil
	}
	if !it.Set["owner_id"] {
		next.OwnerID = nil // kept by UpdateClient
	}
	c, err := s.importClientUpdate(refs, old, next)
	if err != nil {
		return nil, nil, "", err
	}
	e, err := clientUpdateEntry(s, old, c)
	if err != nil {
		return nil, nil, "", err
	}
	return c, []AuditEntry{e}, "", nil
}

// restoreClient gives a client back an update's before-values, as an edit would: a
// business type deleted since stays empty; the journey entry is UpdateClient's.
func restoreClient(_ context.Context, s Scope, refs *refSet, cur, before *Client) (*Client, []AuditEntry, error) {
	next := *cur
	restoreCommon(clientRecordFields(&next), clientRecordFields(before))
	next.CompanyTypeID, next.OwnerID = before.CompanyTypeID, before.OwnerID
	if next.CompanyTypeID != nil && !refs.masters[KindBusinessType][*next.CompanyTypeID] {
		next.CompanyTypeID = nil // a business type deleted since cannot come back
	}
	next.SearchText = clientSearchText(&next)
	next.UpdatedAt = time.Now().UTC()
	e, err := clientUpdateEntry(s, cur, &next)
	if err != nil {
		return nil, nil, err
	}
	return &next, []AuditEntry{e}, nil
}

// clientUpdateEntry is the journey entry UpdateClient records: the whole record before and after.
func clientUpdateEntry(s Scope, old, next *Client) (AuditEntry, error) {
	e := AuditEntry{ActorUserID: s.actor(), Entity: EntityClient, EntityID: old.ID, Action: "update"}
	var err error
	if e.Before, err = jsonOrNil(old); err != nil {
		return e, err
	}
	e.After, err = jsonOrNil(next)
	return e, err
}

func clientInputOf(c *Client) ClientInput {
	return ClientInput{Contact: c.Contact.clone()}
}

func clientFields(in *ClientInput) inputFields {
	return inputFields{&in.Contact, in.refField}
}

// refField points at the input's reference (business type, owner) an import field names.
func (in *ClientInput) refField(name string) **int64 {
	switch name {
	case "company_type_id":
		return &in.CompanyTypeID
	case "owner_id":
		return &in.OwnerID
	}
	return nil
}

// sameClientInput compares two inputs as the store would save them (trimmed, email lowercased).
func sameClientInput(a, b ClientInput) bool {
	return sameInput(a, b, clientFields, (*ClientInput).normalise)
}
