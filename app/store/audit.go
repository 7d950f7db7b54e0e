package store

import (
	"context"
	"encoding/json"
)

// Record writes an audit entry for a change made by the scope's user. Call it inside the
// same transaction as the change, so the record and the change land together or not at all.
func (s Scope) Record(ctx context.Context, entity string, entityID int64, action string, before, after any) error {
	e := &AuditEntry{Entity: entity, EntityID: entityID, Action: action}
	if s.UserID != 0 {
		uid := s.UserID
		e.ActorUserID = &uid
	}
	var err error
	if e.Before, err = jsonOrNil(before); err != nil {
		return err
	}
	if e.After, err = jsonOrNil(after); err != nil {
		return err
	}
	_, err = s.Insert(e).Exec(ctx)
	return err
}

// History lists the audit entries of one entity, newest first.
func (s Scope) History(ctx context.Context, entity string, entityID int64, limit int) ([]AuditEntry, error) {
	var out []AuditEntry
	err := s.Select(&out).Where("entity = ? AND entity_id = ?", entity, entityID).
		OrderExpr("id DESC").Limit(int64(limit)).Scan(ctx)
	return out, err
}

func jsonOrNil(v any) (*string, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	s := string(b)
	return &s, nil
}
