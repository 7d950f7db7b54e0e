package store

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"crm/app/auth"
	"crm/app/validate"
)

// KitType is what a keep-in-touch plan produces at each occurrence: an email to the
// record, or a reminder to its owner to call or meet.
type KitType string

// The kinds of plan.
const (
	KitEmail   KitType = "email"
	KitCall    KitType = "call"
	KitMeeting KitType = "meeting"
)

// KitTypes lists the kinds in the order the dropdown shows them.
var KitTypes = []KitType{KitEmail, KitCall, KitMeeting}

func (t KitType) valid() bool { return t == KitEmail || t == KitCall || t == KitMeeting }

// KeepInTouch is a plan to keep in touch with a lead or a client (exactly one of the two).
// NextAt is its next occurrence (nil once a one-off plan is done); Seq counts the
// occurrences produced, each computed from StartAt in TimeZone (KitOccurrence).
type KeepInTouch struct {
	bun.BaseModel `bun:"table:keep_in_touch,alias:k"`
	Owned

	ID          int64       `bun:"id,pk,autoincrement" json:"id"`
	LeadID      *int64      `bun:"lead_id" json:"lead_id"`
	ClientID    *int64      `bun:"client_id" json:"client_id"`
	Type        KitType     `bun:"kit_type,notnull" json:"type"`
	EventTypeID *int64      `bun:"event_type_id" json:"event_type_id"`
	Interval    KitInterval `bun:"interval_type,notnull" json:"interval_type"`
	StartAt     time.Time   `bun:"start_at,notnull" json:"start_at"`
	TimeZone    string      `bun:"time_zone,notnull" json:"time_zone"`
	TemplateID  *int64      `bun:"template_id" json:"template_id"`
	Subject     string      `bun:"subject,notnull" json:"subject"`
	Note        string      `bun:"note,notnull" json:"note"`
	OwnerID     int64       `bun:"owner_id,notnull" json:"owner_id"`
	Active      bool        `bun:"active,notnull" json:"active"`
	Seq         int         `bun:"seq,notnull" json:"occurrences"`
	NextAt      *time.Time  `bun:"next_at" json:"next_at"`
	LastAt      *time.Time  `bun:"last_at" json:"last_at"`
	CreatedBy   *int64      `bun:"created_by" json:"created_by"`
	CreatedAt   time.Time   `bun:"created_at,nullzero,notnull,default:current_timestamp" json:"created_at"`
	UpdatedAt   time.Time   `bun:"updated_at,nullzero,notnull,default:current_timestamp" json:"updated_at"`
}

// Entity is the kind of record the plan keeps in touch with.
func (k *KeepInTouch) Entity() (*Entity, int64) {
	if k.LeadID != nil {
		return LeadEntity, *k.LeadID
	}
	if k.ClientID != nil {
		return ClientEntity, *k.ClientID
	}
	return nil, 0
}

// KeepInTouchView is a plan with the names a page shows.
type KeepInTouchView struct {
	KeepInTouch `bun:",extend"`

	RecordName    string `bun:"record_name,scanonly" json:"record_name"`
	RecordEmail   string `bun:"record_email,scanonly" json:"record_email"`
	OwnerName     string `bun:"owner_name,scanonly" json:"owner_name"`
	EventTypeName string `bun:"event_type_name,scanonly" json:"event_type_name"`
	// StartLocal is the start on the owner's wall clock ("2026-11-25T09:00"), as forms show it.
	StartLocal string `bun:"-" json:"start_local"`
}

// Href is the page of the plan's record.
func (v *KeepInTouchView) Href() string {
	e, id := v.Entity()
	if e == nil {
		return ""
	}
	return e.Href(id)
}

// KeepInTouchInput is what a create or an update sets. Start is the owner's wall clock
// ("2006-01-02T15:04"), read in the owner's time zone.
type KeepInTouchInput struct {
	Entity      string
	RecordID    int64
	Type        KitType
	EventTypeID int64
	Interval    KitInterval
	Start       string
	TemplateID  int64
	Subject     string
	Note        string
	OwnerID     int64
	Active      *bool
}

// KitStartLayout is the layout of a plan's start as forms and the API give it.
const KitStartLayout = "2006-01-02T15:04"

func (in *KeepInTouchInput) validate() validate.Errors {
	in.Subject, in.Note, in.Start = strings.TrimSpace(in.Subject), strings.TrimSpace(in.Note), strings.TrimSpace(in.Start)
	errs := validate.Errors{}
	errs.Check(in.Type.valid(), "type", validate.KeyInvalid)
	errs.Check(in.Interval.valid(), "interval_type", validate.KeyInvalid)
	errs.Check(validate.Required(in.Start), "start_at", validate.KeyRequired)
	errs.Check(validate.NoHTML(in.Subject), "subject", validate.KeyHTMLNotAllowed)
	errs.Check(validate.MaxLen(in.Subject, maxTextLen), "subject", validate.KeyMaxLength)
	errs.Check(validate.NoHTML(in.Note), "note", validate.KeyHTMLNotAllowed)
	errs.Check(validate.MaxLen(in.Note, maxNotes), "note", validate.KeyMaxLength)
	if in.Type == KitEmail {
		errs.Check(in.TemplateID != 0, "template_id", validate.KeyRequired)
	}
	return errs
}

// mayOn refuses (ErrForbidden) what the scope's role does not allow on the kind of record
// a plan belongs to: the kit routes admit a caller with the action on leads or on clients,
// and the plan's record says which one counts.
func (s Scope) mayOn(e *Entity, a auth.Action) error {
	if s.system || s.perms.Allows(e.Feature, a) {
		return nil
	}
	return ErrForbidden
}

// kitRecord checks the scope may act (a) on the record and returns its entity.
func (s Scope) kitRecord(ctx context.Context, entity string, id int64, a auth.Action) (*Entity, error) {
	e := EntityNamed(entity)
	if e == nil {
		return nil, validate.Errors{"entity": validate.KeyInvalid}
	}
	if err := s.mayOn(e, a); err != nil {
		return nil, err
	}
	if err := s.For(a).Reachable(ctx, entity, id); err != nil {
		return nil, err
	}
	return e, nil
}

// kitViews selects plans with their names, limited to the records the scope reaches (for
// its action) on the kinds its role lets it see.
func (s Scope) kitViews(rows any) *bun.SelectQuery {
	q := s.Select(rows).ColumnExpr("k.*").
		ColumnExpr("COALESCE(l.customer_name, c.customer_name, '') AS record_name").
		ColumnExpr("COALESCE(l.company_email, c.company_email, '') AS record_email").
		ColumnExpr("COALESCE(u.name, '') AS owner_name, COALESCE(m.name, '') AS event_type_name").
		Join("LEFT JOIN leads AS l ON l.tenant_id = k.tenant_id AND l.id = k.lead_id").
		Join("LEFT JOIN clients AS c ON c.tenant_id = k.tenant_id AND c.id = k.client_id").
		Join("LEFT JOIN users AS u ON u.tenant_id = k.tenant_id AND u.id = k.owner_id").
		Join("LEFT JOIN lead_masters AS m ON m.tenant_id = k.tenant_id AND m.id = k.event_type_id")
	a := s.action
	if a == "" {
		a = auth.View
	}
	var parts []string
	var args []any
	for _, e := range Entities {
		if s.mayOn(e, a) != nil {
			continue
		}
		col := "k.lead_id"
		if e == ClientEntity {
			col = "k.client_id"
		}
		cond, cargs := s.whose(e.Feature, e.Alias+".owner_id", e.Alias+".created_by")
		if cond == "" {
			parts = append(parts, col+" IS NOT NULL")
		} else {
			parts = append(parts, "("+col+" IS NOT NULL AND "+cond+")")
			args = append(args, cargs...)
		}
	}
	if len(parts) == 0 {
		return q.Where("1 = 0")
	}
	return q.Where("("+strings.Join(parts, " OR ")+")", args...)
}

func finishKitViews(rows []KeepInTouchView) {
	for i := range rows {
		rows[i].StartLocal = rows[i].StartAt.In(kitLocation(rows[i].TimeZone)).Format(KitStartLayout)
	}
}

// KeepInTouch loads one plan whose record the scope may see (404 otherwise, and for
// another tenant's; 403 when the scope's role does not let it see that kind of record).
func (s Scope) KeepInTouch(ctx context.Context, id int64) (*KeepInTouchView, error) {
	// The plan's kind of record first: a role without that kind's permission is refused
	// (403), as the documents of that kind would be; then whether the record is reached.
	k := &KeepInTouch{}
	if err := s.Select(k).Where("k.id = ?", id).Scan(ctx); err != nil {
		return nil, notFound(err)
	}
	a := s.action
	if a == "" {
		a = auth.View
	}
	if e, _ := k.Entity(); e == nil || s.mayOn(e, a) != nil {
		return nil, ErrForbidden
	}
	var rows []KeepInTouchView
	if err := s.kitViews(&rows).Where("k.id = ?", id).Limit(1).Scan(ctx); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, ErrNotFound
	}
	finishKitViews(rows)
	return &rows[0], nil
}

// kitForChange loads a plan for an action on it: 404 when the scope cannot see it, 403 when
// its role does not allow the action on the plan's kind of record, 404 when the action's
// record scope does not reach the record.
func (s Scope) kitForChange(ctx context.Context, id int64, a auth.Action) (*KeepInTouchView, error) {
	v, err := s.KeepInTouch(ctx, id)
	if err != nil {
		return nil, err
	}
	e, rid := v.Entity()
	if _, err := s.kitRecord(ctx, e.Name, rid, a); err != nil {
		return nil, err
	}
	return v, nil
}

// kitSchedule fills a plan's start, time zone and next occurrence from the input, from
// now on: occurrences before now are not produced.
func (s Scope) kitSchedule(ctx context.Context, k *KeepInTouch, in KeepInTouchInput, errs validate.Errors, now time.Time) error {
	owner, err := s.User(ctx, k.OwnerID)
	if err != nil || !owner.Active {
		errs.Add("owner_id", validate.KeyInvalid)
		return nil
	}
	k.TimeZone = owner.TimeZone
	loc := kitLocation(k.TimeZone)
	start, perr := time.ParseInLocation(KitStartLayout, in.Start, loc)
	if perr != nil {
		if in.Start != "" {
			errs.Add("start_at", validate.KeyInvalidDate)
		}
		return nil
	}
	k.StartAt = start.UTC()
	if !k.Interval.valid() {
		return nil // refused for its interval already
	}
	k.rescheduleFrom(now)
	if k.NextAt == nil && k.Active {
		errs.Add("start_at", validate.KeyInvalidDate)
	}
	return nil
}

// rescheduleFrom sets the plan's next occurrence to its first at or after from.
func (k *KeepInTouch) rescheduleFrom(from time.Time) {
	n, at, ok := kitSeqFrom(k.StartAt, k.Interval, kitLocation(k.TimeZone), from.Truncate(time.Minute))
	k.Seq = n
	if ok {
		at = at.UTC()
		k.NextAt = &at
	} else {
		k.NextAt = nil
	}
}

func (s Scope) kitRefs(ctx context.Context, k *KeepInTouch, in KeepInTouchInput, errs validate.Errors) error {
	if in.EventTypeID != 0 {
		if _, err := s.Master(ctx, KindEventType, in.EventTypeID); err != nil {
			errs.Add("event_type_id", validate.KeyInvalid)
		}
		k.EventTypeID = &in.EventTypeID
	} else {
		k.EventTypeID = nil
	}
	k.TemplateID = nil
	if k.Type == KitEmail && in.TemplateID != 0 {
		ok, err := s.kitTemplateExists(ctx, in.TemplateID)
		if err != nil {
			return err
		}
		if !ok {
			errs.Add("template_id", validate.KeyInvalid)
		}
		k.TemplateID = &in.TemplateID
	}
	return nil
}

// CreateKeepInTouch adds a plan to a lead or a client the scope may update; with no owner
// it is the caller's.
func (s Scope) CreateKeepInTouch(ctx context.Context, in KeepInTouchInput) (*KeepInTouchView, error) {
	errs := in.validate()
	var id int64
	err := s.Tx(ctx, func(tx Scope) error {
		e, err := tx.kitRecord(ctx, in.Entity, in.RecordID, auth.Update)
		if err != nil {
			return err
		}
		k := &KeepInTouch{Type: in.Type, Interval: in.Interval, Subject: in.Subject, Note: in.Note, OwnerID: in.OwnerID, Active: in.Active == nil || *in.Active}
		rid := in.RecordID
		if e == LeadEntity {
			k.LeadID = &rid
		} else {
			k.ClientID = &rid
		}
		if k.OwnerID == 0 {
			k.OwnerID = s.UserID
		}
		if s.UserID != 0 {
			uid := s.UserID
			k.CreatedBy = &uid
		}
		if err := tx.kitSchedule(ctx, k, in, errs, time.Now()); err != nil {
			return err
		}
		if err := tx.kitRefs(ctx, k, in, errs); err != nil {
			return err
		}
		if len(errs) > 0 {
			return errs
		}
		if _, err := tx.Insert(k).Returning("id, created_at, updated_at").Exec(ctx); err != nil {
			return err
		}
		id = k.ID
		return tx.Record(ctx, e.Name, rid, "keep_in_touch", nil, k)
	})
	if err != nil {
		return nil, err
	}
	return s.KeepInTouch(ctx, id)
}

// UpdateKeepInTouch changes a plan. A change of its schedule (start, interval, owner) or
// resuming a paused plan counts its next occurrence from now: missed ones are not produced.
func (s Scope) UpdateKeepInTouch(ctx context.Context, id int64, in KeepInTouchInput) (*KeepInTouchView, error) {
	errs := in.validate()
	err := s.Tx(ctx, func(tx Scope) error {
		old, err := tx.kitForChange(ctx, id, auth.Update)
		if err != nil {
			return err
		}
		k := old.KeepInTouch
		k.Type, k.Interval, k.Subject, k.Note = in.Type, in.Interval, in.Subject, in.Note
		if in.OwnerID != 0 {
			k.OwnerID = in.OwnerID
		}
		if in.Active != nil {
			k.Active = *in.Active
		}
		if err := tx.kitSchedule(ctx, &k, in, errs, time.Now()); err != nil {
			return err
		}
		if err := tx.kitRefs(ctx, &k, in, errs); err != nil {
			return err
		}
		if len(errs) > 0 {
			return errs
		}
		_, err = tx.Update(&k).Column("kit_type", "event_type_id", "interval_type", "start_at", "time_zone", "template_id",
			"subject", "note", "owner_id", "active", "seq", "next_at").Set("updated_at = ?", time.Now().UTC()).
			Where("id = ?", id).Exec(ctx)
		if err != nil {
			return err
		}
		e, rid := k.Entity()
		return tx.Record(ctx, e.Name, rid, "keep_in_touch", &old.KeepInTouch, &k)
	})
	if err != nil {
		return nil, err
	}
	return s.KeepInTouch(ctx, id)
}

// SetKeepInTouchActive pauses or resumes a plan (resuming counts from now).
func (s Scope) SetKeepInTouchActive(ctx context.Context, id int64, active bool) (*KeepInTouchView, error) {
	err := s.Tx(ctx, func(tx Scope) error {
		old, err := tx.kitForChange(ctx, id, auth.Update)
		if err != nil {
			return err
		}
		k := old.KeepInTouch
		if k.Active == active {
			return nil
		}
		k.Active = active
		if active && k.NextAt != nil {
			k.rescheduleFrom(time.Now())
		}
		if _, err := tx.Update(&k).Column("active", "seq", "next_at").Set("updated_at = ?", time.Now().UTC()).Where("id = ?", id).Exec(ctx); err != nil {
			return err
		}
		e, rid := k.Entity()
		return tx.Record(ctx, e.Name, rid, "keep_in_touch", map[string]any{"id": id, "active": !active}, map[string]any{"id": id, "active": active})
	})
	if err != nil {
		return nil, err
	}
	return s.KeepInTouch(ctx, id)
}

// DeleteKeepInTouch removes a plan (the reminders and emails it produced stay).
func (s Scope) DeleteKeepInTouch(ctx context.Context, id int64) error {
	return s.Tx(ctx, func(tx Scope) error {
		old, err := tx.kitForChange(ctx, id, auth.Update)
		if err != nil {
			return err
		}
		if _, err := tx.Delete((*KeepInTouch)(nil)).Where("id = ?", id).Exec(ctx); err != nil {
			return err
		}
		e, rid := old.Entity()
		return tx.Record(ctx, e.Name, rid, "keep_in_touch", &old.KeepInTouch, nil)
	})
}

// KitFilter narrows the list of plans.
type KitFilter struct {
	Entity   string // "lead", "client" or "" for both
	RecordID int64  // with Entity: one record's plans
	Type     KitType
	OwnerID  int64
	Active   *bool
	Page     int // from 1
	Limit    int
}

// KeepInTouchList lists the plans the scope may see, the next occurrence first (finished
// plans last), with their total.
func (s Scope) KeepInTouchList(ctx context.Context, f KitFilter) ([]KeepInTouchView, int64, error) {
	if f.Entity != "" {
		e := EntityNamed(f.Entity)
		if e == nil {
			return nil, 0, validate.Errors{"entity": validate.KeyInvalid}
		}
		if f.RecordID != 0 {
			if err := s.Reachable(ctx, f.Entity, f.RecordID); err != nil {
				return nil, 0, err
			}
		}
	}
	if f.Type != "" && !f.Type.valid() {
		return nil, 0, validate.Errors{"type": validate.KeyInvalid}
	}
	out := []KeepInTouchView{}
	q := s.kitViews(&out)
	switch f.Entity {
	case EntityLead:
		q = q.Where("k.lead_id IS NOT NULL")
		if f.RecordID != 0 {
			q = q.Where("k.lead_id = ?", f.RecordID)
		}
	case EntityClient:
		q = q.Where("k.client_id IS NOT NULL")
		if f.RecordID != 0 {
			q = q.Where("k.client_id = ?", f.RecordID)
		}
	}
	if f.Type != "" {
		q = q.Where("k.kit_type = ?", f.Type)
	}
	if f.OwnerID != 0 {
		q = q.Where("k.owner_id = ?", f.OwnerID)
	}
	if f.Active != nil {
		q = q.Where("k.active = ?", *f.Active)
	}
	if f.Limit <= 0 {
		f.Limit = 25
	}
	if f.Page <= 0 {
		f.Page = 1
	}
	q = q.OrderExpr("CASE WHEN k.next_at IS NULL THEN 1 ELSE 0 END, k.next_at, k.id").
		Limit(int64(f.Limit)).Offset(int64((f.Page - 1) * f.Limit))
	total, err := q.ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	finishKitViews(out)
	return out, int64(total), nil
}
