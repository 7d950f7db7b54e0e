package store

import (
	"context"
	"errors"

	"crm/app/auth"
	"crm/app/validate"
)

// refChecker answers what the create and update rules ask about the tenant's masters and
// users. A single create or edit asks the database (dbRefs), a query each; an import batch
// asks what it read once for all its rows (refSet). The rules themselves (newLead,
// checkLeadEdit, checkClient) are written once, over either.
type refChecker interface {
	// isMaster reports whether id is one of the tenant's masters of the kind.
	isMaster(kind MasterKind, id int64) (bool, error)
	// defaultOf is the kind's default entry, else its first; nil when the list is empty.
	defaultOf(kind MasterKind) (*int64, error)
	// isUser reports whether id is one of the tenant's users.
	isUser(id int64) (bool, error)
}

// dbRefs asks the database, as one create or edit does.
type dbRefs struct {
	ctx context.Context
	s   Scope
}

func (r dbRefs) isMaster(kind MasterKind, id int64) (bool, error) {
	_, err := r.s.Master(r.ctx, kind, id)
	return found(err)
}

func (r dbRefs) defaultOf(kind MasterKind) (*int64, error) { return r.s.defaultMaster(r.ctx, kind) }

func (r dbRefs) isUser(id int64) (bool, error) {
	_, err := r.s.User(r.ctx, id)
	return found(err)
}

// found turns a lookup's ErrNotFound into false.
func found(err error) (bool, error) {
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// refSet is the tenant's masters (and each kind's default) and its users, read once for a
// batch of an import or of its undo; with their names, for the journey.
type refSet struct {
	masters     map[MasterKind]map[int64]bool
	defaults    map[MasterKind]*int64
	users       map[int64]bool
	masterNames map[int64]string
	userNames   map[int64]string
}

func (r *refSet) isMaster(kind MasterKind, id int64) (bool, error) { return r.masters[kind][id], nil }
func (r *refSet) defaultOf(kind MasterKind) (*int64, error)        { return r.defaults[kind], nil }
func (r *refSet) isUser(id int64) (bool, error)                    { return r.users[id], nil }

// loadRefs reads the tenant's masters and users once, for a batch.
func (s Scope) loadRefs(ctx context.Context) (*refSet, error) {
	var ms []Master
	if err := s.Select(&ms).OrderExpr("m.kind, m.is_default DESC, m.sort_order, m.id").Scan(ctx); err != nil {
		return nil, err
	}
	r := &refSet{masters: map[MasterKind]map[int64]bool{}, defaults: map[MasterKind]*int64{}, users: map[int64]bool{},
		masterNames: map[int64]string{}, userNames: map[int64]string{}}
	for _, m := range ms {
		if r.masters[m.Kind] == nil {
			r.masters[m.Kind] = map[int64]bool{}
			id := m.ID // the first in defaultMaster's order
			r.defaults[m.Kind] = &id
		}
		r.masters[m.Kind][m.ID] = true
		r.masterNames[m.ID] = m.Name
	}
	var users []User
	if err := s.Select(&users).Column("id", "name").Scan(ctx); err != nil {
		return nil, err
	}
	for _, u := range users {
		r.users[u.ID] = true
		r.userNames[u.ID] = u.Name
	}
	return r, nil
}

// name is the journey's name of a master or a user (masterName and userName), from the
// batch's; one it does not know is asked of the database, as those would.
func (s Scope) name(ctx context.Context, r *refSet, id *int64, user bool) (string, error) {
	if id == nil {
		return "", nil
	}
	names := r.masterNames
	if user {
		names = r.userNames
	}
	if n, ok := names[*id]; ok {
		return n, nil
	}
	if user {
		return s.userName(ctx, id)
	}
	return s.masterName(ctx, id)
}

// resolveRef keeps id if it names a master of the kind in this tenant; otherwise it falls
// back to the kind's default when fallback is set, or to none.
func resolveRef(r refChecker, kind MasterKind, id *int64, fallback bool) (*int64, error) {
	if id != nil && *id > 0 {
		if ok, err := r.isMaster(kind, *id); err != nil {
			return nil, err
		} else if ok {
			return id, nil
		}
	}
	if !fallback {
		return nil, nil
	}
	return r.defaultOf(kind)
}

// checkRef adds field's refusal to errs unless a chosen master (nil or 0: none) is one of
// the kind in this tenant.
func checkRef(r refChecker, kind MasterKind, id *int64, field string, errs validate.Errors) error {
	if id == nil || *id == 0 {
		return nil
	}
	ok, err := r.isMaster(kind, *id)
	if err != nil {
		return err
	}
	if !ok {
		errs.Add(field, validate.KeyInvalid)
	}
	return nil
}

// checkOwnerRef allows any user of the tenant as owner (nil: none given), except that a
// user limited to their own records of the feature cannot give one to someone else (it
// would vanish from their reach).
func (s Scope) checkOwnerRef(r refChecker, f auth.Feature, owner *int64, errs validate.Errors) error {
	if owner == nil {
		return nil
	}
	if s.ownOnly(f) && *owner != s.UserID {
		errs.Add("owner_id", validate.KeyInvalid)
		return nil
	}
	ok, err := r.isUser(*owner)
	if err != nil {
		return err
	}
	if !ok {
		errs.Add("owner_id", validate.KeyInvalid)
	}
	return nil
}
