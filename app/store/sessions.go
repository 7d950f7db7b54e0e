package store

import (
	"context"
	"log/slog"
	"time"

	"github.com/uptrace/bun"
)

type session struct {
	bun.BaseModel `bun:"table:sessions"`

	Token    string `bun:"token,pk"`
	Data     []byte `bun:"data,notnull"`
	ExpiryMS int64  `bun:"expiry_ms,notnull"`
}

// SessionStore keeps scs sessions in the database, so they survive restarts and are
// shared by every instance. It implements scs.Store and scs.CtxStore.
type SessionStore struct{ db *DB }

// Sessions returns the database session store.
func (db *DB) Sessions() *SessionStore { return &SessionStore{db: db} }

// FindCtx returns the session data for a live token.
func (s *SessionStore) FindCtx(ctx context.Context, token string) ([]byte, bool, error) {
	row := &session{}
	err := s.db.bun.NewSelect().Model(row).Where("token = ? AND expiry_ms > ?", token, time.Now().UnixMilli()).Scan(ctx)
	if err != nil {
		if notFound(err) == ErrNotFound {
			return nil, false, nil
		}
		return nil, false, err
	}
	return row.Data, true, nil
}

// CommitCtx saves (or replaces) a session.
func (s *SessionStore) CommitCtx(ctx context.Context, token string, b []byte, expiry time.Time) error {
	row := &session{Token: token, Data: b, ExpiryMS: expiry.UnixMilli()}
	_, err := s.db.bun.NewInsert().Model(row).
		On("CONFLICT (token) DO UPDATE").Set("data = EXCLUDED.data, expiry_ms = EXCLUDED.expiry_ms").Exec(ctx)
	return err
}

// DeleteCtx removes a session.
func (s *SessionStore) DeleteCtx(ctx context.Context, token string) error {
	_, err := s.db.bun.NewDelete().Model((*session)(nil)).Where("token = ?", token).Exec(ctx)
	return err
}

// Find is the context-free form scs also requires.
func (s *SessionStore) Find(token string) ([]byte, bool, error) {
	return s.FindCtx(context.Background(), token)
}

// Commit is the context-free form scs also requires.
func (s *SessionStore) Commit(token string, b []byte, expiry time.Time) error {
	return s.CommitCtx(context.Background(), token, b, expiry)
}

// Delete is the context-free form scs also requires.
func (s *SessionStore) Delete(token string) error { return s.DeleteCtx(context.Background(), token) }

// Sweep deletes expired sessions every interval until ctx ends.
func (s *SessionStore) Sweep(ctx context.Context, interval time.Duration, log *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_, err := s.db.bun.NewDelete().Model((*session)(nil)).Where("expiry_ms <= ?", time.Now().UnixMilli()).Exec(ctx)
			if err != nil && ctx.Err() == nil {
				log.Warn("session sweep failed", "err", err)
			}
		}
	}
}
