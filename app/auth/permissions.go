// Package auth holds the security model: password hashing, API tokens, login throttling and
// the feature × action permissions every route is checked against.
package auth

import "slices"

// Feature is an area of the product a role grants access to.
type Feature string

// The features a role can grant. A new area adds its feature here, and the Administrator
// role gets it at the next migration of permissions (EnsureBuiltinRoles).
const (
	FeatureLeads     Feature = "leads"
	FeatureClients   Feature = "clients"
	FeatureUsers     Feature = "users"
	FeatureRoles     Feature = "roles"
	FeatureSettings  Feature = "settings"
	FeatureDashboard Feature = "dashboard"
)

// Features lists every feature in display order.
var Features = []Feature{FeatureDashboard, FeatureLeads, FeatureClients, FeatureUsers, FeatureRoles, FeatureSettings}

// Action is what a caller wants to do with a feature.
type Action string

// The four actions every feature knows.
const (
	View   Action = "view"
	Create Action = "create"
	Update Action = "update"
	Delete Action = "delete"
)

// Actions lists the actions in display order.
var Actions = []Action{View, Create, Update, Delete}

// RecordScope says which records of a feature a grant reaches.
type RecordScope string

// Own reaches the records the user owns or created; All reaches every record of the tenant.
const (
	ScopeOwn RecordScope = "own"
	ScopeAll RecordScope = "all"
)

// Grant is one role's rights on one feature.
type Grant struct {
	View   bool        `json:"view"`
	Create bool        `json:"create"`
	Update bool        `json:"update"`
	Delete bool        `json:"delete"`
	Scope  RecordScope `json:"scope"`
}

// Allows reports whether the grant includes the action.
func (g Grant) Allows(a Action) bool {
	switch a {
	case View:
		return g.View
	case Create:
		return g.Create
	case Update:
		return g.Update
	case Delete:
		return g.Delete
	}
	return false
}

// Permissions is a user's grants by feature; a missing feature grants nothing.
type Permissions map[Feature]Grant

// Allows reports whether the permissions include the action on the feature.
func (p Permissions) Allows(f Feature, a Action) bool { return p[f].Allows(a) }

// Allowed lists the features with at least one action, in display order.
func (p Permissions) Allowed() []Feature {
	var out []Feature
	for _, f := range Features {
		g := p[f]
		if g.View || g.Create || g.Update || g.Delete {
			out = append(out, f)
		}
	}
	return out
}

// KnownFeature reports whether f is one of Features.
func KnownFeature(f Feature) bool { return slices.Contains(Features, f) }

// Full is the grant of the built-in Administrator role on every feature.
var Full = Grant{View: true, Create: true, Update: true, Delete: true, Scope: ScopeAll}
