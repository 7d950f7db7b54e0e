package jobs

import (
	"context"
	"log/slog"
	"time"

	"crm/app/store"
)

// KeepInTouch produces the due occurrences of keep-in-touch plans every interval until ctx
// ends: a reminder for a call or a meeting, a queued email for an email plan (wake, when
// set, asks the mail sender to deliver at once). Several instances may run against one
// PostgreSQL database, and a worker may stop anywhere: each occurrence is produced exactly
// once (store.DB.ProduceDueKit claims, produces and advances a plan in one transaction).
func KeepInTouch(ctx context.Context, db *store.DB, interval time.Duration, wake func(), log *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		n, err := db.ProduceDueKit(ctx, time.Now(), store.KitHooks{})
		if err != nil && ctx.Err() == nil {
			log.Warn("keep-in-touch sweep failed", "err", err)
		}
		if n > 0 && wake != nil {
			wake()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
