package store

import (
	"strconv"
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
	Pages   string       // the admin pages' folder ("/leads"), so one descriptor says all about a kind
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
	LeadEntity   = &Entity{Name: EntityLead, Table: "leads", Alias: "l", Feature: auth.FeatureLeads, Pages: "/leads", model: (*Lead)(nil)}
	ClientEntity = &Entity{Name: EntityClient, Table: "clients", Alias: "c", Feature: auth.FeatureClients, Pages: "/clients", model: (*Client)(nil)}
)

// Entities lists every kind.
var Entities = []*Entity{LeadEntity, ClientEntity}

// Href is the admin page of one record of the kind.
func (e *Entity) Href(id int64) string { return e.Pages + "/" + strconv.FormatInt(id, 10) }

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
	*Contact
	id                   *int64
	owner, creator       **int64
	searchText           *string
	createdAt, updatedAt *time.Time
}

func leadRecordFields(l *Lead) recordFields {
	return recordFields{&l.Contact, &l.ID, &l.OwnerID, &l.CreatedBy, &l.SearchText,
		&l.CreatedAt, &l.UpdatedAt}
}

func clientRecordFields(c *Client) recordFields {
	return recordFields{&c.Contact, &c.ID, &c.OwnerID, &c.CreatedBy, &c.SearchText,
		&c.CreatedAt, &c.UpdatedAt}
}
