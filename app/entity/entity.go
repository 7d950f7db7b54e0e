// Package entity describes the kinds of record that documents, imports, exports and the
// journey are kept for (leads and clients): their name, the feature whose permissions
// guard them, and where their pages live. Code that serves several kinds asks the
// descriptor instead of switching on the name.
package entity

import (
	"strconv"

	"crm/app/auth"
	"crm/app/store"
)

// Entity is one kind of record.
type Entity struct {
	// Name is the store's entity name ("lead", "client"), also the API path segment.
	Name string
	// Feature is the permission area that guards the records.
	Feature auth.Feature
	// Base is the admin pages' folder ("/leads").
	Base string
}

// The kinds of record.
var (
	Lead   = Entity{Name: store.EntityLead, Feature: auth.FeatureLeads, Base: "/leads"}
	Client = Entity{Name: store.EntityClient, Feature: auth.FeatureClients, Base: "/clients"}
)

// All lists every kind, in menu order.
var All = []Entity{Lead, Client}

// Of is the kind named name; ok is false for an unknown name.
func Of(name string) (e Entity, ok bool) {
	for _, e := range All {
		if e.Name == name {
			return e, true
		}
	}
	return Entity{}, false
}

// Href is the admin page of one record.
func (e Entity) Href(id int64) string { return e.Base + "/" + strconv.FormatInt(id, 10) }
