package store

import (
	"context"
	"slices"
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

// searchIndex is the SQLite FTS5 table over the entity's search text ("leads_fts").
func (e *Entity) searchIndex() string { return e.Table + "_fts" }

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
// only those its record scope for the kind's feature gives (whose).
func (s Scope) reach(e *Entity, model any) *bun.SelectQuery { return s.whoseOnly(e, s.Select(model)) }

// reachBatch is reach for an import batch's records, found by key or id (batchTenant).
func (s Scope) reachBatch(e *Entity, model any) *bun.SelectQuery {
	return s.whoseOnly(e, s.batchSelect(model))
}

// whoseOnly limits q to the records the scope's record scope for the kind gives (whose).
func (s Scope) whoseOnly(e *Entity, q *bun.SelectQuery) *bun.SelectQuery {
	if cond, args := s.whose(e.Feature, e.Alias+".owner_id", e.Alias+".created_by"); cond != "" {
		q = q.Where(cond, args...)
	}
	return q
}

// recordScope is what the scope reaches of the feature's records for its action (view
// unless For says otherwise): everything for the system; own for a scope without
// permissions or an action its role does not grant (the most restrictive, as the routes
// refuse those callers before); else the role's scope of the action.
func (s Scope) recordScope(f auth.Feature) auth.RecordScope {
	if s.system {
		return auth.ScopeAll
	}
	a := s.action
	if a == "" {
		a = auth.View
	}
	if sc := s.perms.ScopeFor(f, a); sc.Granted() {
		return sc
	}
	return auth.ScopeOwn
}

// teamSQL selects the users whose records a team scope reaches: the user and everyone who
// shares a team with them (team_members_user_idx finds the user's teams, the primary key
// their members).
const teamSQL = "SELECT tm.user_id FROM team_members AS tm WHERE tm.tenant_id = ? AND tm.team_id IN " +
	"(SELECT mine.team_id FROM team_members AS mine WHERE mine.tenant_id = ? AND mine.user_id = ?) UNION SELECT ?"

// whose is the condition on a row's owner and creator columns that the scope's record
// scope for the feature puts on it ("" for all): own is owner or creator = me; team is
// owner or creator among me and my teams' members.
func (s Scope) whose(f auth.Feature, owner, creator string) (string, []any) {
	switch s.recordScope(f) {
	case auth.ScopeAll:
		return "", nil
	case auth.ScopeTeam:
		team := []any{s.TenantID, s.TenantID, s.UserID, s.UserID}
		return "(" + owner + " IN (" + teamSQL + ") OR " + creator + " IN (" + teamSQL + "))", append(team, team...)
	}
	return "(" + owner + " = ? OR " + creator + " = ?)", []any{s.UserID, s.UserID}
}

// Team lists the users a team scope of the scope's user reaches: the user and everyone
// sharing a team with them.
func (s Scope) Team(ctx context.Context) ([]int64, error) {
	var ids []int64
	err := s.idb.NewRaw(teamSQL, s.TenantID, s.TenantID, s.UserID, s.UserID).Scan(ctx, &ids)
	return ids, err
}

// reacher is reach's rule in memory, for records already read (team: the team read once).
type reacher func(owner, creator *int64) bool

// reacher returns reach's rule for the kind as a function of a record's owner and creator.
func (s Scope) reacher(ctx context.Context, e *Entity) (reacher, error) {
	switch s.recordScope(e.Feature) {
	case auth.ScopeAll:
		return func(_, _ *int64) bool { return true }, nil
	case auth.ScopeTeam:
		ids, err := s.Team(ctx)
		if err != nil {
			return nil, err
		}
		return func(owner, creator *int64) bool {
			return owner != nil && slices.Contains(ids, *owner) || creator != nil && slices.Contains(ids, *creator)
		}, nil
	}
	return func(owner, creator *int64) bool {
		return owner != nil && *owner == s.UserID || creator != nil && *creator == s.UserID
	}, nil
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
