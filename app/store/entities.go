package store

import (
	"strings"
	"time"

	"github.com/uptrace/bun"

	"crm/app/auth"
)

// Entity describes one kind of people-like record the store keeps (leads, clients): the
// name the journey, documents and imports give it, its table, and the permission area
// whose "own records" rule limits who reaches it. Code that serves every kind asks the
// descriptor instead of switching on the name.
type Entity struct {
	Name    string       // "lead", "client": the journey's, the documents' and the imports' entity name
	Table   string       // its table ("leads")
	Alias   string       // the table's alias in the store's queries ("l")
	Feature auth.Feature // the permission area: its grant's scope says whether a user reaches all or only their own
	model   any          // a typed nil of its bun model, for a query on its table
}

// The names of the kinds of people-like record: what journey entries, documents and
// imports call them.
const (
	EntityLead   = "lead"
	EntityClient = "client"
)

// The kinds of people-like record.
var (
	LeadEntity   = &Entity{Name: EntityLead, Table: "leads", Alias: "l", Feature: auth.FeatureLeads, model: (*Lead)(nil)}
	ClientEntity = &Entity{Name: EntityClient, Table: "clients", Alias: "c", Feature: auth.FeatureClients, model: (*Client)(nil)}
)

// Entities lists every kind.
var Entities = []*Entity{LeadEntity, ClientEntity}

// EntityNamed is the kind with that name, or nil.
func EntityNamed(name string) *Entity {
	for _, e := range Entities {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// reach starts a query on the records of the kind this scope may reach: the tenant's, and
// only the user's own (owned or created) when their role says "own" for the kind's feature.
func (s Scope) reach(e *Entity, model any) *bun.SelectQuery {
	q := s.Select(model)
	if s.ownOnly(e.Feature) {
		q = q.Where("("+e.Alias+".owner_id = ? OR "+e.Alias+".created_by = ?)", s.UserID, s.UserID)
	}
	return q
}

// reaches reports whether the scope reaches a record of the kind with that owner and
// creator: reach's rule, in memory.
func (s Scope) reaches(e *Entity, owner, creator *int64) bool {
	return !s.ownOnly(e.Feature) || owner != nil && *owner == s.UserID || creator != nil && *creator == s.UserID
}

// contactFields points at the contact block leads, clients and their inputs share.
type contactFields struct {
	title, name, company, email, dial, phone, notes *string
	billing, shipping                               **Address
}

// contactTextColumns are the contact block's text fields, by their column (and field) names.
var contactTextColumns = []string{"customer_title", "customer_name", "company_name", "company_email", "company_dial_code",
	"company_phone_number", "notes"}

// field points at the text field, or address part ("billing_address.city"), a field name
// names; nil for another name. An address part of no address is nil, or, with create, a
// part of a new, empty address.
func (f contactFields) field(name string, create bool) *string {
	switch name {
	case "customer_title":
		return f.title
	case "customer_name":
		return f.name
	case "company_name":
		return f.company
	case "company_email":
		return f.email
	case "company_dial_code":
		return f.dial
	case "company_phone_number":
		return f.phone
	case "notes":
		return f.notes
	}
	prefix, part, ok := strings.Cut(name, ".")
	if !ok {
		return nil
	}
	a := f.billing
	if prefix == "shipping_address" {
		a = f.shipping
	}
	if *a == nil {
		if !create {
			return nil
		}
		*a = &Address{}
	}
	return (*a).part(part)
}

// part points at an address's part by its field name ("city"), nil for none.
func (a *Address) part(name string) *string {
	switch name {
	case "flatNo":
		return &a.FlatNo
	case "street":
		return &a.Street
	case "city":
		return &a.City
	case "state":
		return &a.State
	case "zip":
		return &a.Zip
	case "country":
		return &a.Country
	}
	return nil
}

// recordFields points at the fields every people-like record has (its contact block, its
// owner and creator, its search text and times), so that code serving leads and clients
// alike reads and writes them in one place.
type recordFields struct {
	contactFields
	id                   *int64
	owner, creator       **int64
	searchText           *string
	createdAt, updatedAt *time.Time
}

func leadRecordFields(l *Lead) recordFields {
	return recordFields{contactFields{&l.CustomerTitle, &l.CustomerName, &l.CompanyName, &l.CompanyEmail, &l.CompanyDialCode,
		&l.CompanyPhoneNumber, &l.Notes, &l.BillingAddress, &l.ShippingAddress}, &l.ID, &l.OwnerID, &l.CreatedBy, &l.SearchText,
		&l.CreatedAt, &l.UpdatedAt}
}

func clientRecordFields(c *Client) recordFields {
	return recordFields{contactFields{&c.CustomerTitle, &c.CustomerName, &c.CompanyName, &c.CompanyEmail, &c.CompanyDialCode,
		&c.CompanyPhoneNumber, &c.Notes, &c.BillingAddress, &c.ShippingAddress}, &c.ID, &c.OwnerID, &c.CreatedBy, &c.SearchText,
		&c.CreatedAt, &c.UpdatedAt}
}

// contactSearchText is the lowercased text a search term is matched against, of a lead or
// a client.
func contactSearchText(name, company, email, dial, phone string) string {
	return strings.ToLower(strings.Join([]string{name, company, email, dial + phone, phone}, " "))
}
