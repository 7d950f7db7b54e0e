package store

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"crm/app/auth"
	"crm/app/validate"
)

// Reminder asks a user to follow a lead or a client up at a due time: it belongs to exactly
// one of them (LeadID or ClientID).
type Reminder struct {
	bun.BaseModel `bun:"table:reminders,alias:rm"`
	Owned

	ID         int64      `bun:"id,pk,autoincrement" json:"id"`
	LeadID     *int64     `bun:"lead_id" json:"lead_id"`
	ClientID   *int64     `bun:"client_id" json:"client_id"`
	Title      string     `bun:"title,notnull" json:"title"`
	Note       string     `bun:"note,notnull" json:"note"`
	DueAt      time.Time  `bun:"due_at,notnull" json:"due_at"`
	AssigneeID int64      `bun:"assignee_id,notnull" json:"assignee_id"`
	FiredAt    *time.Time `bun:"fired_at" json:"fired_at"`
	DoneAt     *time.Time `bun:"done_at" json:"done_at"`
	CreatedBy  *int64     `bun:"created_by" json:"created_by"`
	CreatedAt  time.Time  `bun:"created_at,nullzero,notnull,default:current_timestamp" json:"created_at"`
	UpdatedAt  time.Time  `bun:"updated_at,nullzero,notnull,default:current_timestamp" json:"updated_at"`
	// KitID is the keep-in-touch plan that produced the reminder (app/store/kit.go), if any.
	KitID *int64 `bun:"kit_id" json:"-"`
}

// ReminderView is a reminder with the names a list shows.
type ReminderView struct {
	Reminder `bun:",extend"`

	AssigneeName string `bun:"assignee_name,scanonly" json:"assignee_name"`
	LeadName     string `bun:"lead_name,scanonly" json:"lead_name"`
	ClientName   string `bun:"client_name,scanonly" json:"client_name"`
	Overdue      bool   `bun:"-" json:"overdue"`
}

// ReminderInput is what a create or update of a reminder sets.
type ReminderInput struct {
	Title      string
	Note       string
	DueAt      time.Time
	AssigneeID int64
	Done       bool
}

func (in *ReminderInput) validate() validate.Errors {
	in.Title, in.Note = strings.TrimSpace(in.Title), strings.TrimSpace(in.Note)
	errs := validate.Errors{}
	errs.Check(validate.Required(in.Title), "title", validate.KeyRequired)
	errs.Check(validate.NoHTML(in.Title), "title", validate.KeyHTMLNotAllowed)
	errs.Check(validate.MaxLen(in.Title, maxTextLen), "title", validate.KeyMaxLength)
	errs.Check(validate.NoHTML(in.Note), "note", validate.KeyHTMLNotAllowed)
	errs.Check(validate.MaxLen(in.Note, maxNotes), "note", validate.KeyMaxLength)
	errs.Check(!in.DueAt.IsZero(), "due_at", validate.KeyInvalidDate)
	return errs
}

// Entity is the kind of record the reminder belongs to, and the record's id.
func (r *Reminder) Entity() (*Entity, int64) {
	if r.ClientID != nil {
		return ClientEntity, *r.ClientID
	}
	if r.LeadID != nil {
		return LeadEntity, *r.LeadID
	}
	return nil, 0
}

// reminderViews selects the reminders the scope reaches: those of the leads and clients it
// reaches, and those assigned to its user.
func (s Scope) reminderViews(rows any) *bun.SelectQuery {
	q := s.Select(rows).ColumnExpr("rm.*, u.name AS assignee_name, l.customer_name AS lead_name, c.customer_name AS client_name").
		Join("LEFT JOIN leads AS l ON l.tenant_id = rm.tenant_id AND l.id = rm.lead_id").
		Join("LEFT JOIN clients AS c ON c.tenant_id = rm.tenant_id AND c.id = rm.client_id").
		Join("LEFT JOIN users AS u ON u.tenant_id = rm.tenant_id AND u.id = rm.assignee_id")
	leadCond, leadArgs := s.whose(auth.FeatureLeads, "l.owner_id", "l.created_by")
	clientCond, clientArgs := s.whose(auth.FeatureClients, "c.owner_id", "c.created_by")
	if leadCond == "" && clientCond == "" {
		return q
	}
	if leadCond == "" {
		leadCond = "1 = 1"
	}
	if clientCond == "" {
		clientCond = "1 = 1"
	}
	args := append(append(leadArgs, clientArgs...), s.UserID)
	return q.Where("((rm.lead_id IS NOT NULL AND "+leadCond+") OR (rm.client_id IS NOT NULL AND "+clientCond+") OR rm.assignee_id = ?)", args...)
}

func markOverdue(rows []ReminderView, now time.Time) {
	for i := range rows {
		rows[i].Overdue = rows[i].DoneAt == nil && rows[i].DueAt.Before(now)
	}
}

// CreateReminder adds a reminder to a reachable lead; with no assignee it is the creator's.
func (s Scope) CreateReminder(ctx context.Context, leadID int64, in ReminderInput) (*ReminderView, error) {
	return s.CreateReminderOn(ctx, EntityLead, leadID, in)
}

// CreateReminderOn adds a reminder to a reachable lead or client (entity EntityLead or
// EntityClient); with no assignee it is the creator's. A role that may not create records of
// that kind is refused (ErrForbidden).
func (s Scope) CreateReminderOn(ctx context.Context, entity string, recordID int64, in ReminderInput) (*ReminderView, error) {
	e := EntityNamed(entity)
	if e == nil {
		return nil, ErrNotFound
	}
	if err := s.mayOn(e, auth.Create); err != nil {
		return nil, err
	}
	errs := in.validate()
	var id int64
	err := s.Tx(ctx, func(tx Scope) error {
		if err := tx.Reachable(ctx, entity, recordID); err != nil {
			return err
		}
		if in.AssigneeID == 0 {
			in.AssigneeID = s.UserID
		}
		if _, err := tx.User(ctx, in.AssigneeID); err != nil {
			errs.Add("assignee_id", validate.KeyInvalid)
		}
		if len(errs) > 0 {
			return errs
		}
		r := &Reminder{Title: in.Title, Note: in.Note, DueAt: in.DueAt.UTC().Truncate(time.Second), AssigneeID: in.AssigneeID}
		rid := recordID
		if e == ClientEntity {
			r.ClientID = &rid
		} else {
			r.LeadID = &rid
		}
		if s.UserID != 0 {
			uid := s.UserID
			r.CreatedBy = &uid
		}
		if _, err := tx.Insert(r).Returning("id, created_at, updated_at").Exec(ctx); err != nil {
			return err
		}
		id = r.ID
		return tx.Record(ctx, entity, recordID, "reminder", nil, map[string]any{"id": r.ID, "title": r.Title, "due_at": r.DueAt})
	})
	if err != nil {
		return nil, err
	}
	return s.ReminderView(ctx, id)
}

// ReminderView loads one reminder the scope reaches; a role that may not view records of
// its kind (lead or client) is refused (ErrForbidden).
func (s Scope) ReminderView(ctx context.Context, id int64) (*ReminderView, error) {
	return s.reminderFor(ctx, id, auth.View)
}

// reminderFor loads a reminder the scope reaches and checks its role may act (a) on the kind
// of record the reminder belongs to.
func (s Scope) reminderFor(ctx context.Context, id int64, a auth.Action) (*ReminderView, error) {
	// The record's kind first: a role without the action on that kind is refused (403)
	// before the reach of its records is applied (a 404 for a record it does not reach).
	rec := &Reminder{}
	if err := s.Select(rec).Column("lead_id", "client_id").Where("id = ?", id).Scan(ctx); err != nil {
		return nil, notFound(err)
	}
	e, _ := rec.Entity()
	if e == nil {
		return nil, ErrNotFound
	}
	if err := s.mayOn(e, a); err != nil {
		return nil, err
	}
	v := &ReminderView{}
	if err := s.reminderViews(v).Where("rm.id = ?", id).Scan(ctx); err != nil {
		return nil, notFound(err)
	}
	v.Overdue = v.DoneAt == nil && v.DueAt.Before(time.Now())
	return v, nil
}

// UpdateReminder changes a reminder; moving its due time forward lets it fire again.
func (s Scope) UpdateReminder(ctx context.Context, id int64, in ReminderInput) (*ReminderView, error) {
	errs := in.validate()
	err := s.Tx(ctx, func(tx Scope) error {
		old, err := tx.reminderFor(ctx, id, auth.Update)
		if err != nil {
			return err
		}
		if in.AssigneeID == 0 {
			in.AssigneeID = old.AssigneeID
		}
		if _, err := tx.User(ctx, in.AssigneeID); err != nil {
			errs.Add("assignee_id", validate.KeyInvalid)
		}
		if len(errs) > 0 {
			return errs
		}
		due := in.DueAt.UTC().Truncate(time.Second)
		q := tx.Update((*Reminder)(nil)).Where("id = ?", id).
			Set("title = ?, note = ?, due_at = ?, assignee_id = ?, updated_at = ?", in.Title, in.Note, due, in.AssigneeID, time.Now().UTC())
		if !due.Equal(old.DueAt) {
			q = q.Set("fired_at = NULL")
		}
		switch {
		case in.Done && old.DoneAt == nil:
			q = q.Set("done_at = ?", time.Now().UTC())
		case !in.Done:
			q = q.Set("done_at = NULL")
		}
		if _, err := q.Exec(ctx); err != nil {
			return err
		}
		e, rid := old.Entity()
		return tx.Record(ctx, e.Name, rid, "reminder",
			map[string]any{"id": id, "title": old.Title, "due_at": old.DueAt, "done": old.DoneAt != nil},
			map[string]any{"id": id, "title": in.Title, "due_at": due, "done": in.Done})
	})
	if err != nil {
		return nil, err
	}
	return s.ReminderView(ctx, id)
}

// DeleteReminder removes a reminder of a reachable lead.
func (s Scope) DeleteReminder(ctx context.Context, id int64) error {
	return s.Tx(ctx, func(tx Scope) error {
		old, err := tx.reminderFor(ctx, id, auth.Delete)
		if err != nil {
			return err
		}
		if _, err := tx.Delete((*Reminder)(nil)).Where("id = ?", id).Exec(ctx); err != nil {
			return err
		}
		e, rid := old.Entity()
		return tx.Record(ctx, e.Name, rid, "reminder", map[string]any{"id": id, "title": old.Title}, nil)
	})
}

// Reminders lists a reachable lead's reminders by due time.
func (s Scope) Reminders(ctx context.Context, leadID int64) ([]ReminderView, error) {
	return s.RemindersOf(ctx, EntityLead, leadID)
}

// RemindersOf lists a reachable lead's or client's reminders by due time.
func (s Scope) RemindersOf(ctx context.Context, entity string, recordID int64) ([]ReminderView, error) {
	e := EntityNamed(entity)
	if e == nil {
		return nil, ErrNotFound
	}
	if err := s.mayOn(e, auth.View); err != nil {
		return nil, err
	}
	if err := s.Reachable(ctx, entity, recordID); err != nil {
		return nil, err
	}
	col := "rm.lead_id"
	if entity == EntityClient {
		col = "rm.client_id"
	}
	out := []ReminderView{}
	if err := s.reminderViews(&out).Where(col+" = ?", recordID).OrderExpr("rm.due_at, rm.id").Scan(ctx); err != nil {
		return nil, err
	}
	markOverdue(out, time.Now())
	return out, nil
}

// DueReminders lists the scope user's fired reminders that are not done: the notifications.
func (s Scope) DueReminders(ctx context.Context, limit int) ([]ReminderView, error) {
	out := []ReminderView{}
	err := s.reminderViews(&out).Where("rm.assignee_id = ? AND rm.fired_at IS NOT NULL AND rm.done_at IS NULL", s.UserID).
		OrderExpr("rm.due_at, rm.id").Limit(int64(limit)).Scan(ctx)
	markOverdue(out, time.Now())
	return out, err
}

// FiredReminder names a reminder the worker has just fired.
type FiredReminder struct {
	TenantID int64 `bun:"tenant_id"`
	ID       int64 `bun:"id"`
}

// FireDueReminders marks up to batch reminders due by now as fired and returns them. It is
// the worker's sweep across all tenants. Each reminder is returned by exactly one call, even
// with several instances sweeping at once: on PostgreSQL rows are claimed with
// FOR UPDATE SKIP LOCKED, and SQLite has a single writer.
//
// On PostgreSQL the sweep goes one tenant at a time, with that tenant set like any request's:
// row-level security gives the server's role no way to read across tenants, and the worker
// needs none (the cost is one indexed probe per tenant per sweep).
func (db *DB) FireDueReminders(ctx context.Context, now time.Time, batch int) ([]FiredReminder, error) {
	now = now.UTC()
	var out []FiredReminder
	if db.Dialect != Postgres {
		err := db.bun.NewRaw(`UPDATE reminders SET fired_at = ?0
WHERE id IN (SELECT id FROM reminders WHERE fired_at IS NULL AND due_at <= ?0 ORDER BY due_at LIMIT ?1)
RETURNING tenant_id, id`, now, batch).Scan(ctx, &out)
		return out, err
	}
	tenants, err := db.tenantIDs(ctx)
	if err != nil {
		return nil, err
	}
	for _, id := range tenants {
		if len(out) >= batch {
			break
		}
		var fired []FiredReminder
		err := db.System(id, 0).idb.NewRaw(`UPDATE reminders AS r SET fired_at = ?0
FROM (SELECT tenant_id, id FROM reminders WHERE tenant_id = ?2 AND fired_at IS NULL AND due_at <= ?0
      ORDER BY due_at LIMIT ?1 FOR UPDATE SKIP LOCKED) AS d
WHERE r.tenant_id = d.tenant_id AND r.id = d.id
RETURNING r.tenant_id, r.id`, now, batch-len(out), id).Scan(ctx, &fired)
		if err != nil {
			return out, err
		}
		out = append(out, fired...)
	}
	return out, nil
}
