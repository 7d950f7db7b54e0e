package store

import (
	"context"
	"errors"
	"time"

	"crm/app/auth"
	"crm/app/i18n"
	"crm/app/validate"
)

// KitHooks let a test stop the worker at a chosen point.
type KitHooks struct {
	// AfterClaim runs once a plan is claimed, before its occurrence is produced (in the
	// claim's transaction, on its context).
	AfterClaim func(ctx context.Context, plan *KeepInTouch)
}

// ErrKitFinished refuses to send a plan that has no occurrence left.
var ErrKitFinished error = &ruleError{text: "keep-in-touch plan finished", msgID: "kit.finishedRefusal"}

// ErrKitNoEmail refuses to send a plan whose record has no email address.
var ErrKitNoEmail error = &ruleError{text: "record has no email", msgID: "kit.noEmail"}

// ErrKitNoTemplate refuses to send an email plan whose template is gone.
var ErrKitNoTemplate error = &ruleError{text: "email template not found", msgID: "kit.noTemplate"}

// kitSkippable are the failures of one occurrence that its plan cannot get over by waiting
// (no address, no template, a template that renders invalid): the worker records the
// occurrence as failed in the record's journey and moves on rather than retry it forever.
func kitSkippable(err error) bool {
	var verr validate.Errors
	return errors.Is(err, ErrKitNoEmail) || errors.Is(err, ErrKitNoTemplate) || errors.As(err, &verr)
}

// ProduceDueKit produces the occurrences of every plan due by now, across tenants, one
// tenant at a time under its row-level security, and returns how many it produced. Each
// plan is claimed, its occurrence produced (a reminder or a queued email) and its next
// occurrence set in one transaction: a worker stopped anywhere in between leaves the plan
// due and nothing produced, and a plan claimed by one instance is skipped by the others
// (FOR UPDATE SKIP LOCKED on PostgreSQL; SQLite has one writer, and the advance is
// conditional on the occurrence counter read, so a second producer changes nothing).
func (db *DB) ProduceDueKit(ctx context.Context, now time.Time, hooks KitHooks) (int, error) {
	tenants, err := db.tenantIDs(ctx)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, tid := range tenants {
		for {
			done, err := db.produceOneDue(ctx, tid, now.UTC(), hooks)
			if err != nil {
				return total, err
			}
			if !done {
				break
			}
			total++
		}
	}
	return total, nil
}

// produceOneDue produces one due plan of the tenant; false when none is due.
func (db *DB) produceOneDue(ctx context.Context, tenantID int64, now time.Time, hooks KitHooks) (bool, error) {
	s := db.System(tenantID, 0)
	var produced bool
	err := s.Tx(ctx, func(tx Scope) error {
		var ids []int64
		q := tx.Select((*KeepInTouch)(nil)).Column("k.id").Where("k.active AND k.next_at IS NOT NULL AND k.next_at <= ?", now).
			OrderExpr("k.next_at, k.id").Limit(1)
		if db.Dialect == Postgres {
			q = q.For("UPDATE SKIP LOCKED")
		}
		if err := q.Scan(ctx, &ids); err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		k := &KeepInTouch{}
		if err := tx.Select(k).Where("k.id = ?", ids[0]).Scan(ctx); err != nil {
			return err
		}
		if hooks.AfterClaim != nil {
			hooks.AfterClaim(ctx, k)
		}
		if err := tx.produceKit(ctx, k, *k.NextAt, true); err != nil {
			return err
		}
		produced = true
		return nil
	})
	return produced, err
}

// produceKit produces the plan's occurrence due at `at` and advances it to the next one, on
// a transaction's scope; the advance is conditional on the counter read with the plan, so
// the occurrence is produced once even if two producers raced to it.
// With skipFailed, an occurrence that cannot be produced (kitSkippable) is recorded as
// failed and the plan advances all the same.
func (s Scope) produceKit(ctx context.Context, k *KeepInTouch, at time.Time, skipFailed bool) error {
	if k.NextAt == nil {
		return ErrKitFinished
	}
	produced := map[string]any{"id": k.ID, "type": k.Type, "at": at}
	action := "keep_in_touch_sent"
	var err error
	switch k.Type {
	case KitEmail:
		produced["email_id"], err = s.kitEmail(ctx, k)
	default:
		produced["reminder_id"], err = s.kitReminder(ctx, k, at)
	}
	if err != nil {
		if !skipFailed || !kitSkippable(err) {
			return err
		}
		produced["error"], action = err.Error(), "keep_in_touch_failed"
	}
	next := k.Seq + 1
	var nextAt *time.Time
	if t, ok := KitOccurrence(k.StartAt, k.Interval, kitLocation(k.TimeZone), next); ok {
		t = t.UTC()
		nextAt = &t
	}
	now := time.Now().UTC()
	res, err := s.Update((*KeepInTouch)(nil)).Set("seq = ?, next_at = ?, last_at = ?, updated_at = ?", next, nextAt, now, now).
		Where("id = ? AND seq = ?", k.ID, k.Seq).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return ErrConflict // another producer got there first: roll this one back
	}
	k.Seq, k.NextAt, k.LastAt = next, nextAt, &now
	e, rid := k.Entity()
	return s.Record(ctx, e.Name, rid, action, nil, produced)
}

// kitLocalizer speaks the tenant's default language (the worker has no caller). It reads
// through the scope, the producing transaction: a read on another connection while the
// transaction holds one would wait forever when the pool has no other left.
func (s Scope) kitLocalizer(ctx context.Context) (*i18n.Localizer, error) {
	var locale string
	if err := s.idb.NewSelect().Table("tenants").Column("default_locale").Where("id = ?", s.TenantID).Scan(ctx, &locale); err != nil {
		return nil, err
	}
	return masterNames(locale)
}

// kitReminder gives the plan's owner a reminder due at the occurrence, on the plan's own
// record: a lead's plan on the lead, a client's plan on the client (whether or not it came
// from a lead). The reminder worker fires it, which makes it a notification.
func (s Scope) kitReminder(ctx context.Context, k *KeepInTouch, at time.Time) (int64, error) {
	var leadID, clientID *int64
	name := ""
	if k.LeadID != nil {
		l := &Lead{}
		if err := s.Select(l).Where("l.id = ?", *k.LeadID).Scan(ctx); err != nil {
			return 0, notFound(err)
		}
		id := l.ID
		leadID, name = &id, l.CustomerName
	} else if k.ClientID != nil {
		c := &Client{}
		if err := s.Select(c).Where("c.id = ?", *k.ClientID).Scan(ctx); err != nil {
			return 0, notFound(err)
		}
		id := c.ID
		clientID, name = &id, c.CustomerName
	} else {
		return 0, nil
	}
	loc, err := s.kitLocalizer(ctx)
	if err != nil {
		return 0, err
	}
	label := loc.T("kit.type." + string(k.Type))
	if k.EventTypeID != nil {
		m := &Master{}
		if err := s.Select(m).Where("id = ?", *k.EventTypeID).Scan(ctx); err == nil {
			label = m.Name
		}
	}
	title := loc.T("kit.reminderTitle", "Type", label, "Name", name)
	if k.Subject != "" {
		title = label + ": " + k.Subject
	}
	kitID := k.ID
	r := &Reminder{LeadID: leadID, ClientID: clientID, Title: truncate(title, maxTextLen), Note: k.Note, DueAt: at.UTC().Truncate(time.Second),
		AssigneeID: k.OwnerID, KitID: &kitID}
	if _, err := s.Insert(r).Returning("id, created_at, updated_at").Exec(ctx); err != nil {
		return 0, err
	}
	return r.ID, nil
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// kitEmail queues the plan's email to its record, rendered from its template against the
// record (Scope.RenderTemplate: the owner's language, merge fields). It is bulk mail, like a
// campaign: recurring mail the recipient did not ask for carries List-Unsubscribe, and an
// address that unsubscribed gets none.
func (s Scope) kitEmail(ctx context.Context, k *KeepInTouch) (int64, error) {
	if k.TemplateID == nil {
		return 0, ErrKitNoTemplate
	}
	e, rid := k.Entity()
	m, err := s.RenderTemplate(ctx, *k.TemplateID, MergeTarget{Entity: e.Name, ID: rid})
	if errors.Is(err, ErrNotFound) {
		return 0, ErrKitNoTemplate
	}
	if err != nil {
		return 0, err
	}
	if m.To == "" {
		return 0, ErrKitNoEmail
	}
	in := m.Input(EmailBulk, "keep-in-touch")
	if k.Subject != "" {
		in.Subject = k.Subject
	}
	return s.EnqueueEmail(ctx, in)
}

// kitTemplateExists reports whether the tenant has the email template.
func (s Scope) kitTemplateExists(ctx context.Context, id int64) (bool, error) {
	_, err := s.EmailTemplate(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// SendKeepInTouchNow produces the plan's next occurrence at once (its email queued now, or
// its reminder due now) and advances the plan past it: the occurrence is not produced again
// when its time comes, and the schedule moves by one occurrence, not two.
func (s Scope) SendKeepInTouchNow(ctx context.Context, id int64) (*KeepInTouchView, error) {
	err := s.Tx(ctx, func(tx Scope) error {
		if _, err := tx.kitForChange(ctx, id, auth.Update); err != nil {
			return err
		}
		k := &KeepInTouch{}
		q := tx.Select(k).Where("k.id = ?", id)
		if s.db.Dialect == Postgres {
			q = q.For("UPDATE")
		}
		if err := q.Scan(ctx); err != nil {
			return notFound(err)
		}
		return tx.produceKit(ctx, k, time.Now().UTC(), false)
	})
	if err != nil {
		return nil, err
	}
	return s.KeepInTouch(ctx, id)
}
