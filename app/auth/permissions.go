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

// The actions every feature knows.
const (
	View   Action = "view"
	Create Action = "create"
	Update Action = "update"
	Delete Action = "delete"
	Export Action = "export"
	Import Action = "import"
)

// Actions lists the actions in display order (the columns of the role matrix).
var Actions = []Action{View, Create, Update, Delete, Export, Import}

// KnownAction reports whether a is one of Actions.
func KnownAction(a Action) bool { return slices.Contains(Actions, a) }

// RecordScope says which records of a feature one action of a grant reaches.
type RecordScope string

// None grants nothing; Own reaches the records the user owns or created; Team reaches the
// records owned or created by the user or by anyone sharing a team with them; All reaches
// every record of the tenant. They are ordered: each reaches at least what the previous does.
const (
	ScopeNone RecordScope = "none"
	ScopeOwn  RecordScope = "own"
	ScopeTeam RecordScope = "team"
	ScopeAll  RecordScope = "all"
)

// Scopes lists the record scopes from the narrowest to the widest (the choices of a cell).
var Scopes = []RecordScope{ScopeNone, ScopeOwn, ScopeTeam, ScopeAll}

// KnownScope reports whether s is one of Scopes.
func KnownScope(s RecordScope) bool { return slices.Contains(Scopes, s) }

// Rank orders scopes: none (and anything unknown) 0, own 1, team 2, all 3.
func (s RecordScope) Rank() int {
	if i := slices.Index(Scopes, s); i > 0 {
		return i
	}
	return 0
}

// Granted reports whether the scope grants anything.
func (s RecordScope) Granted() bool { return s.Rank() > 0 }

// Or is the norm of "none": the empty scope reads as none.
func (s RecordScope) Or() RecordScope {
	if !s.Granted() {
		return ScopeNone
	}
	return s
}

// Grant is one role's rights on one feature: a record scope per action (EspoCRM's model).
// The zero value grants nothing.
type Grant struct {
	View   RecordScope `json:"view"`
	Create RecordScope `json:"create"`
	Update RecordScope `json:"update"`
	Delete RecordScope `json:"delete"`
	Export RecordScope `json:"export"`
	Import RecordScope `json:"import"`
}

// field points at the action's scope in g, nil for an unknown action.
func (g *Grant) field(a Action) *RecordScope {
	switch a {
	case View:
		return &g.View
	case Create:
		return &g.Create
	case Update:
		return &g.Update
	case Delete:
		return &g.Delete
	case Export:
		return &g.Export
	case Import:
		return &g.Import
	}
	return nil
}

// For is the scope the grant gives the action (none when it gives nothing).
func (g Grant) For(a Action) RecordScope {
	if p := g.field(a); p != nil {
		return p.Or()
	}
	return ScopeNone
}

// With is the grant with the action's scope set.
func (g Grant) With(a Action, s RecordScope) Grant {
	if p := g.field(a); p != nil {
		*p = s.Or()
	}
	return g
}

// Allows reports whether the grant includes the action.
func (g Grant) Allows(a Action) bool { return g.For(a).Granted() }

// Valid reports whether every action's scope is one of Scopes (or empty, for none).
func (g Grant) Valid() bool {
	for _, a := range Actions {
		if s := *g.field(a); s != "" && !KnownScope(s) {
			return false
		}
	}
	return true
}

// Any reports whether the grant includes at least one action.
func (g Grant) Any() bool {
	for _, a := range Actions {
		if g.Allows(a) {
			return true
		}
	}
	return false
}

// Normal is the grant with every action's scope spelled out (none for nothing).
func (g Grant) Normal() Grant {
	for _, a := range Actions {
		g = g.With(a, g.For(a))
	}
	return g
}

// Uniform is a grant of the actions, all with the same scope.
func Uniform(s RecordScope, actions ...Action) Grant {
	var g Grant
	for _, a := range actions {
		g = g.With(a, s)
	}
	return g
}

// Permissions is a user's grants by feature; a missing feature grants nothing.
type Permissions map[Feature]Grant

// Allows reports whether the permissions include the action on the feature.
func (p Permissions) Allows(f Feature, a Action) bool { return p[f].Allows(a) }

// ScopeFor is the record scope of the action on the feature (none when not granted).
func (p Permissions) ScopeFor(f Feature, a Action) RecordScope { return p[f].For(a) }

// Allowed lists the features with at least one action, in display order.
func (p Permissions) Allowed() []Feature {
	var out []Feature
	for _, f := range Features {
		if p[f].Any() {
			out = append(out, f)
		}
	}
	return out
}

// KnownFeature reports whether f is one of Features.
func KnownFeature(f Feature) bool { return slices.Contains(Features, f) }

// Full is the grant of the built-in Administrator role on every feature.
var Full = Uniform(ScopeAll, Actions...)
