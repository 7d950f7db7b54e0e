// Package jobs runs the background work of the server: the reminder worker and the
// keep-in-touch worker.
package jobs

import (
	"context"
	"log/slog"
	"time"

	"crm/app/store"
)

// Reminders marks due reminders as fired every interval until ctx ends. Several instances
// may run against one PostgreSQL database: each reminder fires exactly once.
func Reminders(ctx context.Context, db *store.DB, interval time.Duration, log *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := FireReminders(ctx, db, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("reminder sweep failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// FireReminders fires every reminder due by now, in batches, and returns how many fired.
func FireReminders(ctx context.Context, db *store.DB, now time.Time) (int, error) {
	total := 0
	for {
		fired, err := db.FireDueReminders(ctx, now, 500)
		if err != nil {
			return total, err
		}
		total += len(fired)
		if len(fired) < 500 {
			return total, nil
		}
	}
}
