package store

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"crm/app/auth"
	"crm/app/validate"
)

// Address is a billing or shipping address, kept as JSON on the lead.
type Address struct {
	FlatNo  string `json:"flatNo"`
	Street  string `json:"street"`
	City    string `json:"city"`
	State   string `json:"state"`
	Zip     string `json:"zip"`
	Country string `json:"country"`

	// sameAsBilling marks a shipping address read as "the billing address" (address.go),
	// until Contact.AfterScanRow puts the billing address in its place.
	sameAsBilling bool
}

// Lead is a prospective customer of a tenant.
type Lead struct {
	bun.BaseModel `bun:"table:leads,alias:l"`
	Owned

	ID       int64   `bun:"id,pk,autoincrement" json:"id"`
	ClientID *string `bun:"client_id" json:"client_id"`
	Contact
	LeadTypeID   *int64    `bun:"lead_type_id" json:"lead_type_id"`
	LeadSourceID *int64    `bun:"lead_source_id" json:"lead_source_id"`
	LeadStatusID *int64    `bun:"lead_status_id" json:"lead_status_id"`
	LeadStageID  *int64    `bun:"lead_stage_id" json:"lead_stage_id"`
	CreatedBy    *int64    `bun:"created_by" json:"created_by"`
	SearchText   string    `bun:"search_text,notnull" json:"-"`
	CreatedAt    time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp" json:"created_at"`
	UpdatedAt    time.Time `bun:"updated_at,nullzero,notnull,default:current_timestamp" json:"updated_at"`
}

// LeadView is a lead with the names of what it refers to, as lists and pages show it.
type LeadView struct {
	Lead `bun:",extend"`

	LeadStageName   string `bun:"lead_stage_name,scanonly" json:"lead_stage_name"`
	LeadStatusName  string `bun:"lead_status_name,scanonly" json:"lead_status_name"`
	LeadSourceName  string `bun:"lead_source_name,scanonly" json:"lead_source_name"`
	LeadTypeName    string `bun:"lead_type_name,scanonly" json:"lead_type_name"`
	CompanyTypeName string `bun:"company_type_name,scanonly" json:"company_type_name"`
	CreatedUserName string `bun:"created_user_name,scanonly" json:"created_user_name"`
	OwnerName       string `bun:"owner_name,scanonly" json:"owner_name"`
	HasLogo         bool   `bun:"has_logo,scanonly" json:"-"`
	LeadStageIsWon  bool   `bun:"lead_stage_is_won,scanonly" json:"-"`
	LeadStageIsLost bool   `bun:"lead_stage_is_lost,scanonly" json:"-"`
}

// Logo is an image stored with a lead.
type Logo struct {
	MediaType string
	Data      []byte
}

type leadLogo struct {
	bun.BaseModel `bun:"table:lead_logos,alias:ll"`
	Owned

	LeadID    int64  `bun:"lead_id,pk"`
	MediaType string `bun:"media_type,notnull"`
	Data      []byte `bun:"data,notnull"`
}

type idempotencyKey struct {
	bun.BaseModel `bun:"table:idempotency_keys,alias:ik"`
	Owned

	Key         string    `bun:"key,pk"`
	RequestHash string    `bun:"request_hash,notnull"`
	LeadID      int64     `bun:"lead_id,notnull"`
	CreatedAt   time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp"`
}

// LeadInput is what a create (or, later, an update) of a lead may set.
type LeadInput struct {
	Contact
	ClientID     string
	LeadTypeID   *int64
	LeadSourceID *int64
	LeadStatusID *int64
	LeadStageID  *int64
	CreatedAt    *time.Time
	Logo         *Logo
	// Mobile applies the mobile form's rules: phone of exactly 10 digits, a lead type,
	// and both addresses with flat/door number, city, state and country.
	Mobile bool
}

// Field limits.
const (
	maxTextLen = 200
	maxNotes   = 10000
)

func (in *LeadInput) validate() validate.Errors {
	in.normalise()
	errs := in.Contact.check(in.Mobile)
	if in.Mobile {
		errs.Check(in.LeadTypeID != nil && *in.LeadTypeID > 0, "lead_type_id", validate.KeyRequired)
	}
	errs.Check(validate.NoHTML(in.ClientID), "client_id", validate.KeyHTMLNotAllowed)
	errs.Check(validate.MaxLen(in.ClientID, maxTextLen), "client_id", validate.KeyMaxLength)
	return errs
}

// normalise is the input as the store saves it (Contact.normalise).
func (in *LeadInput) normalise() {
	in.ClientID = strings.TrimSpace(in.ClientID)
	in.Contact.normalise()
}

func (a *Address) trim() {
	for _, p := range []*string{&a.FlatNo, &a.Street, &a.City, &a.State, &a.Zip, &a.Country} {
		*p = strings.TrimSpace(*p)
	}
}

func dialCode(s string) bool {
	s = strings.TrimPrefix(s, "+")
	if s == "" || len(s) > 4 {
		return false
	}
	_, err := strconv.Atoi(s)
	return err == nil
}

// searchText is the lowercased text a search term is matched against.
func searchText(l *Lead) string { return l.Contact.searchText() }

// ownOnly reports whether the scope's user may reach only the records of the feature they
// own or created.
func (s Scope) ownOnly(f auth.Feature) bool { return s.recordScope(f) == auth.ScopeOwn }

// ownLeadsOnly reports whether the scope's user may reach only the leads they own or created.
func (s Scope) ownLeadsOnly() bool { return s.ownOnly(auth.FeatureLeads) }

// leads starts a query on the leads this scope may reach: the tenant's, and only the
// user's own when their role says "own". Every lead query starts here.
func (s Scope) leads(model any) *bun.SelectQuery { return s.reach(LeadEntity, model) }

// LeadView loads one lead the scope may reach, with its names: its columns and the names
// in one statement (leadViewNames), read by position (leadRows).
func (s Scope) LeadView(ctx context.Context, id int64) (*LeadView, error) {
	rows := make([]LeadView, 0, 1)
	// The id travels apart from the text, which is then the same for every lead (plans.go).
	q := withLeadViewNames(selectLeadRows(s.leads((*Lead)(nil)), s.Dialect())).Where("l.id = " + s.param(1))
	if err := q.Scan(withBound(ctx, id), leadRows{rows: &rows, names: true}); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, ErrNotFound
	}
	return &rows[0], nil
}

// ErrIdempotencyMismatch: the key was used before for a different request.
var ErrIdempotencyMismatch = validate.Errors{"idempotency_key": "idempotencyMismatch"}

// CreateLead adds a lead, all or nothing, with its logo, its journey entry and its
// idempotency key. A repeat of the same idempotency key, or of the same client id, returns
// the lead first created and created=false; the same key with another request is refused.
func (s Scope) CreateLead(ctx context.Context, in LeadInput, idemKey, requestHash string) (*LeadView, bool, error) {
	if errs := in.validate(); len(errs) > 0 {
		return nil, false, errs
	}
	if v, err := s.existingLead(ctx, in.ClientID, idemKey, requestHash); v != nil || err != nil {
		return v, false, err
	}
	var id int64
	err := s.Tx(ctx, func(tx Scope) error {
		// Checked again inside the transaction, where SQLite holds the write lock.
		if v, err := tx.existingLead(ctx, in.ClientID, idemKey, requestHash); v != nil || err != nil {
			if err == nil {
				id = v.ID
				return errRepeat
			}
			return err
		}
		l, err := tx.newLead(dbRefs{ctx, tx}, in)
		if err != nil {
			return err
		}
		if _, err := tx.Insert(l).Returning("id, created_at, updated_at").Exec(ctx); err != nil {
			return err
		}
		id = l.ID
		if in.Logo != nil {
			if _, err := tx.Insert(&leadLogo{LeadID: l.ID, MediaType: in.Logo.MediaType, Data: in.Logo.Data}).Exec(ctx); err != nil {
				return err
			}
		}
		if idemKey != "" {
			if _, err := tx.Insert(&idempotencyKey{Key: idemKey, RequestHash: requestHash, LeadID: l.ID}).Exec(ctx); err != nil {
				return err
			}
		}
		return tx.Record(ctx, EntityLead, l.ID, "create", nil, l)
	})
	switch {
	case errors.Is(err, errRepeat):
		v, err := s.LeadView(ctx, id)
		return v, false, err
	case err != nil && isUniqueViolation(err):
		// A concurrent duplicate won the race: answer with its lead.
		v, err2 := s.existingLead(ctx, in.ClientID, idemKey, requestHash)
		if err2 != nil || v == nil {
			return nil, false, errors.Join(err, err2)
		}
		return v, false, nil
	case err != nil:
		return nil, false, err
	}
	v, err := s.LeadView(ctx, id)
	return v, true, err
}

var errRepeat = errors.New("repeat of an earlier create")

// existingLead finds the lead an earlier create with the same key or client id made.
func (s Scope) existingLead(ctx context.Context, clientID, idemKey, requestHash string) (*LeadView, error) {
	if idemKey != "" {
		k := &idempotencyKey{}
		err := s.Select(k).Where("key = ?", idemKey).Scan(ctx)
		switch notFound(err) {
		case nil:
			if k.RequestHash != requestHash {
				return nil, ErrIdempotencyMismatch
			}
			return s.LeadView(ctx, k.LeadID)
		case ErrNotFound:
		default:
			return nil, err
		}
	}
	if clientID != "" {
		l := &Lead{}
		err := s.Select(l).Column("id").Where("client_id = ?", clientID).Scan(ctx)
		switch notFound(err) {
		case nil:
			return s.LeadView(ctx, l.ID)
		case ErrNotFound:
		default:
			return nil, err
		}
	}
	return nil, nil
}

// newLead builds the row for a create of in (validated): masters resolved in this tenant
// (unknown stage, status and source fall back to the defaults), the creator as owner. It
// is CreateLead's rule and an import's for each new lead (importLead), over the masters
// and users r knows.
func (s Scope) newLead(r refChecker, in LeadInput) (*Lead, error) {
	l := &Lead{Contact: in.Contact}
	l.CompanyTypeID, l.OwnerID = nil, nil // resolved below
	if in.ClientID != "" {
		cid := in.ClientID
		l.ClientID = &cid
	}
	var err error
	if l.LeadStageID, err = resolveRef(r, KindStage, in.LeadStageID, true); err != nil {
		return nil, err
	}
	if l.LeadStatusID, err = resolveRef(r, KindStatus, in.LeadStatusID, true); err != nil {
		return nil, err
	}
	if l.LeadSourceID, err = resolveRef(r, KindSource, in.LeadSourceID, true); err != nil {
		return nil, err
	}
	if l.LeadTypeID, err = resolveRef(r, KindType, in.LeadTypeID, false); err != nil {
		return nil, err
	}
	if in.Mobile && l.LeadTypeID == nil {
		return nil, validate.Errors{"lead_type_id": validate.KeyInvalid}
	}
	if l.CompanyTypeID, err = resolveRef(r, KindBusinessType, in.CompanyTypeID, false); err != nil {
		return nil, err
	}
	if s.UserID != 0 {
		uid := s.UserID
		l.CreatedBy = &uid
		l.OwnerID = &uid
	}
	if in.OwnerID != nil && !s.ownLeadsOnly() {
		if ok, err := r.isUser(*in.OwnerID); err != nil || !ok { // a user that cannot be read is no owner
			return nil, validate.Errors{"owner_id": validate.KeyInvalid}
		}
		l.OwnerID = in.OwnerID
	}
	if in.CreatedAt != nil && !in.CreatedAt.IsZero() && in.CreatedAt.Before(time.Now().Add(time.Minute)) {
		l.CreatedAt = in.CreatedAt.UTC()
	}
	l.SearchText = searchText(l)
	return l, nil
}

// DeleteLead removes a lead the scope may reach, recording what it was.
func (s Scope) DeleteLead(ctx context.Context, id int64) error {
	s = s.For(auth.Delete)
	return s.Tx(ctx, func(tx Scope) error {
		l := &Lead{}
		if err := tx.leads(l).Where("l.id = ?", id).Scan(ctx); err != nil {
			return notFound(err)
		}
		// A converted client keeps its data but loses the link; documents go with the lead.
		if _, err := tx.Update((*Client)(nil)).Set("lead_id = NULL").Where("lead_id = ?", id).Exec(ctx); err != nil {
			return err
		}
		if err := tx.deleteDocumentsOf(ctx, EntityLead, id); err != nil {
			return err
		}
		if _, err := tx.Delete((*Lead)(nil)).Where("id = ?", id).Exec(ctx); err != nil {
			return err
		}
		return tx.Record(ctx, EntityLead, id, "delete", l, nil)
	})
}

// LeadLogo returns the logo of a lead the scope may reach.
func (s Scope) LeadLogo(ctx context.Context, leadID int64) (*Logo, error) {
	if exists, err := s.leads((*Lead)(nil)).Where("l.id = ?", leadID).Exists(ctx); err != nil {
		return nil, err
	} else if !exists {
		return nil, ErrNotFound
	}
	lg := &leadLogo{}
	if err := s.Select(lg).Where("lead_id = ?", leadID).Scan(ctx); err != nil {
		return nil, notFound(err)
	}
	return &Logo{MediaType: lg.MediaType, Data: lg.Data}, nil
}
