package store

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"crm/app/auth"
	"crm/app/validate"
)

// Client is a customer of the tenant, often converted from a lead.
type Client struct {
	bun.BaseModel `bun:"table:clients,alias:c"`
	Owned

	ID     int64  `bun:"id,pk,autoincrement" json:"id"`
	LeadID *int64 `bun:"lead_id" json:"lead_id"`
	Contact
	CreatedBy  *int64    `bun:"created_by" json:"created_by"`
	SearchText string    `bun:"search_text,notnull" json:"-"`
	CreatedAt  time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp" json:"created_at"`
	UpdatedAt  time.Time `bun:"updated_at,nullzero,notnull,default:current_timestamp" json:"updated_at"`
}

// ClientView is a client with the names of what it refers to.
type ClientView struct {
	Client `bun:",extend"`

	CompanyTypeName string `bun:"company_type_name,scanonly" json:"company_type_name"`
	OwnerName       string `bun:"owner_name,scanonly" json:"owner_name"`
	CreatedUserName string `bun:"created_user_name,scanonly" json:"created_user_name"`
	LeadName        string `bun:"lead_name,scanonly" json:"lead_name"`
}

// ClientInput is what a create or update of a client may set.
type ClientInput struct {
	Contact
}

// validate applies the same rules as a lead created in the admin.
func (in *ClientInput) validate() validate.Errors { return in.Contact.validate(false) }

// normalise is the input as the store saves it (Contact.normalise).
func (in *ClientInput) normalise() { in.Contact.normalise() }

func clientSearchText(c *Client) string { return c.Contact.searchText() }

// clients starts a query on the clients this scope may reach (own-records rule included).
func (s Scope) clients(model any) *bun.SelectQuery { return s.reach(ClientEntity, model) }

func (s Scope) clientViews(rows any) *bun.SelectQuery {
	return s.clients(rows).ColumnExpr("c.*").
		ColumnExpr("ct.name AS company_type_name, ou.name AS owner_name, cu.name AS created_user_name, l.customer_name AS lead_name").
		Join("LEFT JOIN lead_masters AS ct ON ct.tenant_id = c.tenant_id AND ct.id = c.company_type_id").
		Join("LEFT JOIN users AS ou ON ou.tenant_id = c.tenant_id AND ou.id = c.owner_id").
		Join("LEFT JOIN users AS cu ON cu.tenant_id = c.tenant_id AND cu.id = c.created_by").
		Join("LEFT JOIN leads AS l ON l.tenant_id = c.tenant_id AND l.id = c.lead_id")
}

// ClientView loads one client the scope may reach.
func (s Scope) ClientView(ctx context.Context, id int64) (*ClientView, error) {
	v := &ClientView{}
	err := s.clientViews(v).Where("c.id = ?", id).Scan(ctx)
	return v, notFound(err)
}

// CreateClient adds a client, with its journey entry.
func (s Scope) CreateClient(ctx context.Context, in ClientInput) (*ClientView, error) {
	var id int64
	err := s.Tx(ctx, func(tx Scope) error {
		if err := tx.checkClient(dbRefs{ctx, tx}, &in); err != nil {
			return err
		}
		c := tx.newClient(in)
		if _, err := tx.Insert(c).Returning("id, created_at, updated_at").Exec(ctx); err != nil {
			return err
		}
		id = c.ID
		return tx.Record(ctx, EntityClient, c.ID, "create", nil, c)
	})
	if err != nil {
		return nil, err
	}
	return s.ClientView(ctx, id)
}

// checkClient is the rules of a client's create and edit for in, over the masters and
// users r knows: the input's validation (which trims it and lowercases the email), the
// business type one of the tenant's, the owner one the user may give. CreateClient and
// UpdateClient check with it, and an import each row that creates or updates a client
// (importClient, importClientUpdate).
func (s Scope) checkClient(r refChecker, in *ClientInput) error {
	errs := in.validate()
	if err := checkRef(r, KindBusinessType, in.CompanyTypeID, "company_type_id", errs); err != nil {
		return err
	}
	if err := s.checkOwnerRef(r, auth.FeatureClients, in.OwnerID, errs); err != nil {
		return err
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// newClient is the client a create of in (checked) makes: the creator as owner unless one is given.
func (s Scope) newClient(in ClientInput) *Client {
	c := &Client{Contact: in.Contact}
	c.CompanyTypeID, c.OwnerID = nonZero(in.CompanyTypeID), nil
	if s.UserID != 0 {
		uid := s.UserID
		c.CreatedBy, c.OwnerID = &uid, &uid
	}
	if in.OwnerID != nil && *in.OwnerID != 0 {
		c.OwnerID = in.OwnerID
	}
	c.SearchText = clientSearchText(c)
	return c
}

// UpdateClient replaces a reachable client's editable fields, recording what changed.
func (s Scope) UpdateClient(ctx context.Context, id int64, in ClientInput) (*ClientView, error) {
	s = s.For(auth.Update)
	err := s.Tx(ctx, func(tx Scope) error {
		if err := tx.checkClient(dbRefs{ctx, tx}, &in); err != nil {
			return err
		}
		old := &Client{}
		if err := tx.clients(old).Where("c.id = ?", id).Scan(ctx); err != nil {
			return notFound(err)
		}
		next := tx.editedClient(old, in)
		if _, err := tx.Update(next).WherePK().Exec(ctx); err != nil {
			return err
		}
		return tx.Record(ctx, EntityClient, id, "update", old, next)
	})
	if err != nil {
		return nil, err
	}
	return s.ClientView(ctx, id)
}

// editedClient is old as an edit with in (checked) leaves it: every field from in, the
// owner kept when in gives none. UpdateClient's rule, and an import's (importClientUpdate).
func (s Scope) editedClient(old *Client, in ClientInput) *Client {
	next := s.newClient(in)
	next.Owned, next.ID, next.LeadID, next.CreatedBy, next.CreatedAt = old.Owned, old.ID, old.LeadID, old.CreatedBy, old.CreatedAt
	if in.OwnerID == nil || *in.OwnerID == 0 {
		next.OwnerID = old.OwnerID
	}
	next.UpdatedAt = time.Now().UTC()
	return next
}

// DeleteClient removes a reachable client, recording what it was.
func (s Scope) DeleteClient(ctx context.Context, id int64) error {
	s = s.For(auth.Delete)
	return s.Tx(ctx, func(tx Scope) error {
		c := &Client{}
		if err := tx.clients(c).Where("c.id = ?", id).Scan(ctx); err != nil {
			return notFound(err)
		}
		if _, err := tx.Delete((*Client)(nil)).Where("id = ?", id).Exec(ctx); err != nil {
			return err
		}
		if err := tx.deleteDocumentsOf(ctx, EntityClient, id); err != nil {
			return err
		}
		return tx.Record(ctx, EntityClient, id, "delete", c, nil)
	})
}

// ErrAlreadyConverted refuses a second conversion of the same lead.
var ErrAlreadyConverted error = &ruleError{text: "lead already converted", msgID: "clients.alreadyConverted"}

// ConvertLead makes a client from a reachable lead in one transaction: the client takes the
// lead's fields (addresses included) and its documents and is linked to it (its reminders
// stay the lead's and show on the client's page), the lead moves to the won stage and the
// converted status, and both journeys record it. A lead converts once.
func (s Scope) ConvertLead(ctx context.Context, leadID int64) (*ClientView, error) {
	var clientID int64
	err := s.countedTx(ctx, func(tx Scope) error {
		l, err := tx.leadForUpdate(ctx, leadID)
		if err != nil {
			return err
		}
		if done, err := tx.Select((*Client)(nil)).Where("lead_id = ?", leadID).Exists(ctx); err != nil {
			return err
		} else if done {
			return ErrAlreadyConverted
		}
		c := &Client{LeadID: &l.ID, Contact: l.Contact}
		if s.UserID != 0 {
			uid := s.UserID
			c.CreatedBy = &uid
		}
		c.SearchText = clientSearchText(c)
		if _, err := tx.Insert(c).Returning("id, created_at, updated_at").Exec(ctx); err != nil {
			if isUniqueViolation(err) {
				return ErrAlreadyConverted
			}
			return err
		}
		clientID = c.ID
		if err := tx.Record(ctx, EntityClient, c.ID, "create", map[string]any{"lead_id": l.ID}, c); err != nil {
			return err
		}
		settings, err := tx.StageSettings(ctx)
		if err != nil {
			return err
		}
		// The lead is won and converted: its stage and its status say so together.
		next := *l
		if settings.WonStageID != 0 {
			won := settings.WonStageID
			next.LeadStageID = &won
		}
		var converted []int64
		if err := tx.Select((*Master)(nil)).Column("id").Where("kind = ? AND is_converted", KindStatus).
			OrderExpr("sort_order, id").Limit(1).Scan(ctx, &converted); err != nil {
			return err
		}
		if len(converted) == 1 {
			next.LeadStatusID = &converted[0]
		}
		if err := tx.saveLeadChange(ctx, l, &next, nil); err != nil {
			return err
		}
		// The lead's documents go with it: the client holds them from now on (the files keep
		// their keys; only the record they belong to changes).
		if _, err := tx.Update((*Document)(nil)).Set("entity = ?", EntityClient).Set("entity_id = ?", c.ID).
			Where("d.entity = ? AND d.entity_id = ?", EntityLead, l.ID).Exec(ctx); err != nil {
			return err
		}
		// Its keep-in-touch plans follow it to the client (app/store/kit.go).
		if _, err := tx.Update((*KeepInTouch)(nil)).Set("lead_id = NULL").Set("client_id = ?", c.ID).
			Where("lead_id = ?", l.ID).Exec(ctx); err != nil {
			return err
		}
		return tx.Record(ctx, EntityLead, l.ID, "convert", nil, map[string]any{"client_id": c.ID})
	})
	if err != nil {
		return nil, err
	}
	return s.ClientView(ctx, clientID)
}

// ClientOfLead returns the client a lead was converted to, if any.
func (s Scope) ClientOfLead(ctx context.Context, leadID int64) (*Client, error) {
	c := &Client{}
	err := s.Select(c).Where("lead_id = ?", leadID).Scan(ctx)
	return c, notFound(err)
}
