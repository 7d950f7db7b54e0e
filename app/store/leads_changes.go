package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"crm/app/auth"
	"crm/app/validate"
)

// Journey actions recorded for a lead, besides "create", "update" and "delete".
const (
	ActionStage  = "stage"
	ActionStatus = "status"
	ActionOwner  = "owner"
)

// OwnEntryFields are the lead fields whose every change is also recorded as an entry of its
// own (stage, status, owner). An "update" entry holding only these says nothing the other
// entries do not, so the journey leaves it out: its count and its pages are what is listed.
var OwnEntryFields = []string{"lead_stage", "lead_status", "owner"}

// onlyOwnEntryFields is a condition on audit_log AS al: an "update" whose changed fields are
// all OwnEntryFields.
func onlyOwnEntryFields(d Dialect) string {
	keys := "json_object_keys(al.after) AS k(key)"
	if d == SQLite {
		keys = "json_each(al.after)"
	}
	return "(al.action = 'update' AND al.after IS NOT NULL AND NOT EXISTS (SELECT 1 FROM " + keys +
		" WHERE key NOT IN ('lead_stage', 'lead_status', 'owner')))"
}

// leadForUpdate loads a lead the scope may reach, for a change inside a transaction.
func (s Scope) leadForUpdate(ctx context.Context, id int64) (*Lead, error) {
	l := &Lead{}
	if err := s.leads(l).Where("l.id = ?", id).Scan(ctx); err != nil {
		return nil, notFound(err)
	}
	return l, nil
}

// masterName is the name of a master for the journey ("" for none).
func (s Scope) masterName(ctx context.Context, id *int64) (string, error) {
	if id == nil {
		return "", nil
	}
	m := &Master{}
	if err := s.Select(m).Column("name").Where("id = ?", *id).Scan(ctx); err != nil {
		return "", notFound(err)
	}
	return m.Name, nil
}

func (s Scope) userName(ctx context.Context, id *int64) (string, error) {
	if id == nil {
		return "", nil
	}
	u, err := s.User(ctx, *id)
	if err != nil {
		return "", err
	}
	return u.Name, nil
}

// strictMaster checks that a chosen master exists in this tenant; nil is allowed.
func (s Scope) strictMaster(ctx context.Context, kind MasterKind, id *int64, field string, errs validate.Errors) error {
	return checkRef(dbRefs{ctx, s}, kind, id, field, errs)
}

// checkOwner allows any user of the tenant as owner, except that a user limited to their
// own records of the feature cannot give one to someone else (it would vanish from their reach).
func (s Scope) checkOwner(ctx context.Context, f auth.Feature, owner *int64, errs validate.Errors) error {
	return s.checkOwnerRef(dbRefs{ctx, s}, f, owner, errs)
}

// change is one field's value before and after, as the journey shows it.
type change struct {
	field         string
	before, after any
}

// UpdateLead replaces the editable fields of a lead the scope may reach. Stage, status and
// source left empty keep their value; the journey gets one entry with every changed field
// (names, not ids, for masters and owner), and separate stage/status/owner entries.
func (s Scope) UpdateLead(ctx context.Context, id int64, in LeadInput) (*LeadView, error) {
	s = s.For(auth.Update)
	err := s.Tx(ctx, func(tx Scope) error {
		if err := tx.checkLeadEdit(dbRefs{ctx, tx}, &in); err != nil {
			return err
		}
		old, err := tx.leadForUpdate(ctx, id)
		if err != nil {
			return err
		}
		next := in.applyTo(old)
		return tx.saveLeadChange(ctx, old, &next, in.Logo)
	})
	if err != nil {
		return nil, err
	}
	return s.LeadView(ctx, id)
}

// checkLeadEdit is UpdateLead's rules for in, over the masters and users r knows: the
// input's validation (which trims it and lowercases the email; an edit has no mobile rules
// and no client id), each master named one of its kind in this tenant, the owner one the
// user may give. An import's update of a lead checks its rows with it too (importLeadUpdate).
func (s Scope) checkLeadEdit(r refChecker, in *LeadInput) error {
	in.Mobile, in.ClientID = false, ""
	errs := in.validate()
	for _, c := range []struct {
		kind  MasterKind
		id    *int64
		field string
	}{{KindStage, in.LeadStageID, "lead_stage_id"}, {KindStatus, in.LeadStatusID, "lead_status_id"},
		{KindSource, in.LeadSourceID, "lead_source_id"}, {KindType, in.LeadTypeID, "lead_type_id"},
		{KindBusinessType, in.CompanyTypeID, "company_type_id"}} {
		if err := checkRef(r, c.kind, c.id, c.field, errs); err != nil {
			return err
		}
	}
	if err := s.checkOwnerRef(r, auth.FeatureLeads, in.OwnerID, errs); err != nil {
		return err
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

func nonZero(p *int64) *int64 {
	if p == nil || *p == 0 {
		return nil
	}
	return p
}

// saveLeadChange writes next over old and records what changed.
func (s Scope) saveLeadChange(ctx context.Context, old, next *Lead, logo *Logo) error {
	next.touch()
	changes, special, err := leadDiff(old, next, func(id *int64, user bool) (string, error) {
		if user {
			return s.userName(ctx, id)
		}
		return s.masterName(ctx, id)
	})
	if err != nil {
		return err
	}
	if len(changes) == 0 && logo == nil {
		return nil
	}
	if _, err := s.Update(next).WherePK().Exec(ctx); err != nil {
		return err
	}
	if logo != nil {
		ll := &leadLogo{LeadID: next.ID, MediaType: logo.MediaType, Data: logo.Data}
		if _, err := s.Insert(ll).On("CONFLICT (tenant_id, lead_id) DO UPDATE").
			Set("media_type = EXCLUDED.media_type, data = EXCLUDED.data").Exec(ctx); err != nil {
			return err
		}
		changes = append(changes, change{"company_logo", nil, logo.MediaType})
	}
	before, after := map[string]any{}, map[string]any{}
	for _, c := range changes {
		before[c.field], after[c.field] = c.before, c.after
	}
	if err := s.Record(ctx, EntityLead, next.ID, "update", before, after); err != nil {
		return err
	}
	for _, c := range special {
		if err := s.Record(ctx, EntityLead, next.ID, c.field, c.before, c.after); err != nil {
			return err
		}
	}
	return nil
}

// touch makes a changed lead's search text and time of change.
func (l *Lead) touch() {
	l.SearchText = searchText(l)
	l.UpdatedAt = time.Now().UTC()
}

// leadDiff is what a change from old to next records in the journey: every changed field
// (masters and the owner by name, which name gives, asked for the old value then the new),
// and the changes that also get an entry of their own (stage, status, owner), in the order
// saveLeadChange records them.
func leadDiff(old, next *Lead, name func(id *int64, user bool) (string, error)) (changes, special []change, err error) {
	plain := []struct {
		field string
		a, b  any
	}{
		{"customer_title", old.CustomerTitle, next.CustomerTitle}, {"customer_name", old.CustomerName, next.CustomerName},
		{"company_name", old.CompanyName, next.CompanyName}, {"company_email", old.CompanyEmail, next.CompanyEmail},
		{"company_dial_code", old.CompanyDialCode, next.CompanyDialCode},
		{"company_phone_number", old.CompanyPhoneNumber, next.CompanyPhoneNumber},
		{"billing_address", old.BillingAddress, next.BillingAddress},
		{"shipping_address", old.ShippingAddress, next.ShippingAddress}, {"notes", old.Notes, next.Notes},
	}
	for _, p := range plain {
		if !reflect.DeepEqual(p.a, p.b) {
			changes = append(changes, change{p.field, p.a, p.b})
		}
	}
	refs := []struct {
		field, action string
		a, b          *int64
		user          bool
	}{
		{"lead_stage", ActionStage, old.LeadStageID, next.LeadStageID, false},
		{"lead_status", ActionStatus, old.LeadStatusID, next.LeadStatusID, false},
		{"lead_source", "", old.LeadSourceID, next.LeadSourceID, false},
		{"lead_type", "", old.LeadTypeID, next.LeadTypeID, false},
		{"company_type", "", old.CompanyTypeID, next.CompanyTypeID, false},
		{"owner", ActionOwner, old.OwnerID, next.OwnerID, true},
	}
	for _, r := range refs {
		if reflect.DeepEqual(r.a, r.b) {
			continue
		}
		a, err := name(r.a, r.user)
		if err != nil {
			return nil, nil, err
		}
		b, err := name(r.b, r.user)
		if err != nil {
			return nil, nil, err
		}
		changes = append(changes, change{r.field, a, b})
		if r.action != "" {
			special = append(special, change{r.action, a, b})
		}
	}
	return changes, special, nil
}

// leadChangeEntries are the journey entries saveLeadChange records for a change without a
// logo (leadDiff's), as rows to insert together with other changes' entries.
func leadChangeEntries(actor *int64, id int64, changes, special []change) ([]AuditEntry, error) {
	before, after := map[string]any{}, map[string]any{}
	for _, c := range changes {
		before[c.field], after[c.field] = c.before, c.after
	}
	entry := func(action string, before, after any) (AuditEntry, error) {
		e := AuditEntry{ActorUserID: actor, Entity: EntityLead, EntityID: id, Action: action}
		var err error
		if e.Before, err = jsonOrNil(before); err != nil {
			return e, err
		}
		e.After, err = jsonOrNil(after)
		return e, err
	}
	out := make([]AuditEntry, 0, 1+len(special))
	e, err := entry("update", before, after)
	if err != nil {
		return nil, err
	}
	out = append(out, e)
	for _, c := range special {
		e, err := entry(c.field, c.before, c.after)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// LeadField names a field a single or bulk change may set.
type LeadField string

// The fields of the quick changes: stage (the board, the stage buttons), status, owner.
const (
	FieldStage  LeadField = "lead_stage_id"
	FieldStatus LeadField = "lead_status_id"
	FieldOwner  LeadField = "owner_id"
)

// SetLeadField changes one reference of one lead the scope may reach (ErrNotFound otherwise).
func (s Scope) SetLeadField(ctx context.Context, id int64, field LeadField, value int64) error {
	_, err := s.setLeadField(ctx, []int64{id}, field, value, false)
	return err
}

// BulkSetLeadField changes one reference of many leads, each with its journey entries, in
// one transaction; leads the scope cannot reach are skipped. It returns how many changed.
func (s Scope) BulkSetLeadField(ctx context.Context, ids []int64, field LeadField, value int64) (int, error) {
	return s.setLeadField(ctx, ids, field, value, true)
}

func (s Scope) setLeadField(ctx context.Context, ids []int64, field LeadField, value int64, bulk bool) (int, error) {
	s = s.For(auth.Update)
	errs := validate.Errors{}
	if len(ids) == 0 {
		return 0, validate.Errors{"ids": validate.KeyRequired}
	}
	if len(ids) > MaxBulk {
		return 0, validate.Errors{"ids": validate.KeyMaxLength}
	}
	changed := 0
	err := s.txFor(len(ids))(ctx, func(tx Scope) error {
		v := value
		switch field {
		case FieldStage:
			if err := tx.strictMaster(ctx, KindStage, &v, string(field), errs); err != nil {
				return err
			}
		case FieldStatus:
			if err := tx.strictMaster(ctx, KindStatus, &v, string(field), errs); err != nil {
				return err
			}
		case FieldOwner:
			if err := tx.checkOwner(ctx, auth.FeatureLeads, &v, errs); err != nil {
				return err
			}
		default:
			return fmt.Errorf("store: unknown lead field %q", field)
		}
		if value == 0 {
			errs.Add(string(field), validate.KeyRequired)
		}
		if len(errs) > 0 {
			return errs
		}
		for _, id := range ids {
			old, err := tx.leadForUpdate(ctx, id)
			if errors.Is(err, ErrNotFound) && bulk {
				continue
			} else if err != nil {
				return err
			}
			next := *old
			switch field {
			case FieldStage:
				next.LeadStageID = &v
			case FieldStatus:
				next.LeadStatusID = &v
			case FieldOwner:
				next.OwnerID = &v
			}
			if reflect.DeepEqual(old, &next) {
				continue
			}
			if err := tx.saveLeadChange(ctx, old, &next, nil); err != nil {
				return err
			}
			changed++
		}
		return nil
	})
	return changed, err
}

// applyTo is old as an edit with in leaves it: every field from in, except that a stage,
// status, source or owner left out keeps its value (the form and an import update alike).
func (in *LeadInput) applyTo(old *Lead) Lead {
	next := *old
	next.CustomerTitle, next.CustomerName, next.CompanyName = in.CustomerTitle, in.CustomerName, in.CompanyName
	next.CompanyEmail, next.CompanyDialCode, next.CompanyPhoneNumber = in.CompanyEmail, in.CompanyDialCode, in.CompanyPhoneNumber
	next.BillingAddress, next.ShippingAddress, next.Notes = in.BillingAddress, in.ShippingAddress, in.Notes
	next.LeadTypeID, next.CompanyTypeID = nonZero(in.LeadTypeID), nonZero(in.CompanyTypeID)
	for _, p := range []struct{ dst, src **int64 }{{&next.LeadStageID, &in.LeadStageID},
		{&next.LeadStatusID, &in.LeadStatusID}, {&next.LeadSourceID, &in.LeadSourceID}, {&next.OwnerID, &in.OwnerID}} {
		if v := nonZero(*p.src); v != nil {
			*p.dst = v
		}
	}
	return next
}

// MaxBulk is the most leads one bulk action may change.
const MaxBulk = 500

// DeleteLeads deletes the given leads the scope may reach, each recorded; it returns the
// ids it deleted (others are skipped), ErrNotFound when none could be.
func (s Scope) DeleteLeads(ctx context.Context, ids []int64) ([]int64, error) {
	s = s.For(auth.Delete)
	return s.deleteEach(ctx, ids, Scope.DeleteLead)
}

// deleteEach is a bulk delete: del on each of ids (at most MaxBulk) in one transaction,
// skipping those out of reach; the ids deleted, or ErrNotFound when none could be.
func (s Scope) deleteEach(ctx context.Context, ids []int64, del func(Scope, context.Context, int64) error) ([]int64, error) {
	if len(ids) == 0 {
		return nil, validate.Errors{"ids": validate.KeyRequired}
	}
	if len(ids) > MaxBulk {
		return nil, validate.Errors{"ids": validate.KeyMaxLength}
	}
	var deleted []int64
	err := s.txFor(len(ids))(ctx, func(tx Scope) error {
		deleted = deleted[:0]
		for _, id := range ids {
			err := del(tx, ctx, id)
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			deleted = append(deleted, id)
		}
		if len(deleted) == 0 {
			return ErrNotFound
		}
		return nil
	})
	return deleted, err
}

// JourneyEntry is one line of a lead's history, with the name of who did it.
type JourneyEntry struct {
	AuditEntry `bun:",extend"`
	ActorName  string `bun:"actor_name,scanonly" json:"actor_name"`
}

// Journey lists a reachable lead's history, newest first. A deleted lead's journey stays
// readable to a user who may see all leads.
func (s Scope) Journey(ctx context.Context, leadID int64, page, limit int) ([]JourneyEntry, int64, error) {
	page = min(max(page, 1), MaxPage)
	if limit < 1 || limit > 100 {
		limit = 20
	}
	reachable, err := s.leads((*Lead)(nil)).Where("l.id = ?", leadID).Exists(ctx)
	if err != nil {
		return nil, 0, err
	}
	if !reachable && s.ownLeadsOnly() {
		return nil, 0, ErrNotFound
	}
	var rows []JourneyEntry
	q := s.Select(&rows).ColumnExpr("al.*, u.name AS actor_name").
		Join("LEFT JOIN users AS u ON u.tenant_id = al.tenant_id AND u.id = al.actor_user_id").
		Where("al.entity = 'lead' AND al.entity_id = ?", leadID).
		Where("NOT " + onlyOwnEntryFields(s.Dialect()))
	total, err := q.OrderExpr("al.id DESC").Limit(int64(limit)).Offset(int64((page - 1) * limit)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	if total == 0 && !reachable {
		return nil, 0, ErrNotFound
	}
	return rows, int64(total), nil
}

// LeadRef names a lead briefly, for links.
type LeadRef struct {
	ID           int64  `bun:"id" json:"id"`
	CustomerName string `bun:"customer_name" json:"customer_name"`
	CompanyName  string `bun:"company_name" json:"company_name"`
	CompanyEmail string `bun:"company_email" json:"company_email"`
	Phone        string `bun:"company_phone_number" json:"company_phone_number"`
}

// DuplicateLeads finds reachable leads with the same email or phone, other than exceptID.
func (s Scope) DuplicateLeads(ctx context.Context, email, phone string, exceptID int64) ([]LeadRef, error) {
	var out []LeadRef
	if email == "" && phone == "" {
		return out, nil
	}
	q := s.leads((*Lead)(nil)).Column("l.id", "l.customer_name", "l.company_name", "l.company_email", "l.company_phone_number").
		Where("l.id <> ?", exceptID)
	q = q.WhereGroup(" AND ", func(g *bunSelect) *bunSelect {
		if email != "" {
			g = g.WhereOr("l.company_email = ?", email)
		}
		if phone != "" {
			g = g.WhereOr("l.company_phone_number = ?", phone)
		}
		return g
	})
	err := q.OrderExpr("l.id").Limit(5).Scan(ctx, &out)
	return out, err
}
