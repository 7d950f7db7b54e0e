package store

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"crm/app/validate"
)

// Document is a file attached to a lead or a client; its bytes are in the file store.
type Document struct {
	bun.BaseModel `bun:"table:documents,alias:d"`
	Owned

	ID         int64     `bun:"id,pk,autoincrement" json:"id"`
	Entity     string    `bun:"entity,notnull" json:"entity"`
	EntityID   int64     `bun:"entity_id,notnull" json:"entity_id"`
	Name       string    `bun:"name,notnull" json:"name"`
	Tag        string    `bun:"tag,notnull" json:"tag"`
	MediaType  string    `bun:"media_type,notnull" json:"media_type"`
	SizeBytes  int64     `bun:"size_bytes,notnull" json:"size_bytes"`
	StorageKey string    `bun:"storage_key,notnull" json:"-"`
	CreatedBy  *int64    `bun:"created_by" json:"created_by"`
	CreatedAt  time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp" json:"created_at"`
}

// Reachable reports ErrNotFound unless the scope may reach the lead or client.
func (s Scope) Reachable(ctx context.Context, entity string, id int64) error {
	e := EntityNamed(entity)
	if e == nil {
		return ErrNotFound
	}
	ok, err := s.reach(e, e.model).Where(e.Alias+".id = ?", id).Exists(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return ErrNotFound
	}
	return nil
}

// AddDocuments records uploaded files (already in the file store) against a reachable
// lead or client, all in one transaction.
func (s Scope) AddDocuments(ctx context.Context, entity string, id int64, docs []Document) ([]Document, error) {
	err := s.Tx(ctx, func(tx Scope) error {
		if err := tx.Reachable(ctx, entity, id); err != nil {
			return err
		}
		for i := range docs {
			d := &docs[i]
			d.Entity, d.EntityID = entity, id
			if s.UserID != 0 {
				uid := s.UserID
				d.CreatedBy = &uid
			}
			if _, err := tx.Insert(d).Returning("id, created_at").Exec(ctx); err != nil {
				return err
			}
			if err := tx.Record(ctx, entity, id, "document", nil, map[string]any{"id": d.ID, "name": d.Name}); err != nil {
				return err
			}
		}
		return nil
	})
	return docs, err
}

// Documents lists a reachable lead's or client's documents, newest first.
func (s Scope) Documents(ctx context.Context, entity string, id int64) ([]Document, error) {
	if err := s.Reachable(ctx, entity, id); err != nil {
		return nil, err
	}
	out := []Document{}
	err := s.Select(&out).Where("entity = ? AND entity_id = ?", entity, id).OrderExpr("id DESC").Scan(ctx)
	return out, err
}

// Document loads one document whose lead or client the scope may reach.
func (s Scope) Document(ctx context.Context, entity string, id int64) (*Document, error) {
	d := &Document{}
	if err := s.Select(d).Where("id = ? AND entity = ?", id, entity).Scan(ctx); err != nil {
		return nil, notFound(err)
	}
	if err := s.Reachable(ctx, d.Entity, d.EntityID); err != nil {
		return nil, err
	}
	return d, nil
}

// UpdateDocument renames or retags a document.
func (s Scope) UpdateDocument(ctx context.Context, entity string, id int64, name, tag string) (*Document, error) {
	name, tag = strings.TrimSpace(name), strings.TrimSpace(tag)
	errs := validate.Errors{}
	errs.Check(validate.Required(name), "name", validate.KeyRequired)
	errs.Check(validate.NoHTML(name), "name", validate.KeyHTMLNotAllowed)
	errs.Check(validate.MaxLen(name, 200), "name", validate.KeyMaxLength)
	errs.Check(validate.NoHTML(tag), "tag", validate.KeyHTMLNotAllowed)
	errs.Check(validate.MaxLen(tag, 50), "tag", validate.KeyMaxLength)
	if len(errs) > 0 {
		return nil, errs
	}
	var d *Document
	err := s.Tx(ctx, func(tx Scope) error {
		var err error
		if d, err = tx.Document(ctx, entity, id); err != nil {
			return err
		}
		before := map[string]string{"name": d.Name, "tag": d.Tag}
		d.Name, d.Tag = name, tag
		if _, err := tx.Update((*Document)(nil)).Set("name = ?, tag = ?", name, tag).Where("id = ?", id).Exec(ctx); err != nil {
			return err
		}
		return tx.Record(ctx, d.Entity, d.EntityID, "document", before, map[string]string{"name": name, "tag": tag})
	})
	return d, err
}

// DeleteDocument removes a document's record and returns its storage key, for the caller
// to delete the bytes once the transaction is committed.
func (s Scope) DeleteDocument(ctx context.Context, entity string, id int64) (string, error) {
	var key string
	err := s.Tx(ctx, func(tx Scope) error {
		d, err := tx.Document(ctx, entity, id)
		if err != nil {
			return err
		}
		key = d.StorageKey
		if _, err := tx.Delete((*Document)(nil)).Where("id = ?", id).Exec(ctx); err != nil {
			return err
		}
		return tx.Record(ctx, d.Entity, d.EntityID, "document", map[string]any{"id": d.ID, "name": d.Name}, nil)
	})
	return key, err
}

// deleteDocumentsOf removes the records of an entity's documents (the bytes live under the
// entity's folder in the file store, removed by the caller after commit).
func (s Scope) deleteDocumentsOf(ctx context.Context, entity string, id int64) error {
	_, err := s.Delete((*Document)(nil)).Where("entity = ? AND entity_id = ?", entity, id).Exec(ctx)
	return err
}
