package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"crm/app/auth"
	"crm/app/validate"
)

// The kinds of a message: transactional (one person asked for it: an invitation, a test)
// or bulk (sent to many: keep-in-touch mail, campaigns), which carries List-Unsubscribe
// and is not sent to an address that unsubscribed.
const (
	EmailTransactional = "transactional"
	EmailBulk          = "bulk"
)

// The states of a message in the outbox.
const (
	EmailQueued       = "queued"       // waiting for its next attempt (next_attempt_at)
	EmailSending      = "sending"      // claimed by a sender until lease_until
	EmailSent         = "sent"         // the SMTP server accepted it
	EmailFailed       = "failed"       // refused for good (5xx), or out of attempts; last_error says why
	EmailUnsubscribed = "unsubscribed" // bulk mail to an address that unsubscribed: not sent
)

// EmailStatuses lists the states in display order.
var EmailStatuses = []string{EmailQueued, EmailSending, EmailSent, EmailFailed, EmailUnsubscribed}

// NoMailServer is the reason a queued message shows while its tenant has no SMTP server
// and the server has no SMTP_URL.
const NoMailServer = "no mail server configured"

// Email is a message of the outbox, which is also the email history.
type Email struct {
	bun.BaseModel `bun:"table:emails,alias:em"`
	Owned

	ID               int64      `bun:"id,pk,autoincrement" json:"id"`
	Kind             string     `bun:"kind,notnull" json:"kind"`
	Purpose          string     `bun:"purpose,notnull" json:"purpose"`
	ToAddress        string     `bun:"to_address,notnull" json:"to_address"`
	ToName           string     `bun:"to_name,notnull" json:"to_name"`
	FromAddress      string     `bun:"from_address,notnull" json:"from_address"`
	FromName         string     `bun:"from_name,notnull" json:"from_name"`
	Subject          string     `bun:"subject,notnull" json:"subject"`
	BodyText         string     `bun:"body_text,notnull" json:"body_text"`
	BodyHTML         string     `bun:"body_html,notnull" json:"body_html"`
	MessageID        string     `bun:"message_id,notnull" json:"message_id"`
	UnsubscribeToken string     `bun:"unsubscribe_token,notnull" json:"-"`
	LeadID           *int64     `bun:"lead_id" json:"lead_id"`
	ClientID         *int64     `bun:"client_id" json:"client_id"`
	CreatedBy        *int64     `bun:"created_by" json:"created_by"`
	Status           string     `bun:"status,notnull" json:"status"`
	Attempts         int        `bun:"attempts,notnull" json:"attempts"`
	NextAttemptAt    time.Time  `bun:"next_attempt_at,notnull" json:"next_attempt_at"`
	LeaseUntil       *time.Time `bun:"lease_until" json:"-"`
	Claim            string     `bun:"claim,notnull" json:"-"`
	LastError        string     `bun:"last_error,notnull" json:"last_error"`
	SentAt           *time.Time `bun:"sent_at" json:"sent_at"`
	CreatedAt        time.Time  `bun:"created_at,nullzero,notnull,default:current_timestamp" json:"created_at"`
	UpdatedAt        time.Time  `bun:"updated_at,nullzero,notnull,default:current_timestamp" json:"updated_at"`
}

// EmailInput is a message to enqueue. From may be left empty: the tenant's configured
// sender is used at delivery. At least one of Text and HTML is required.
type EmailInput struct {
	To, ToName     string
	From, FromName string
	Subject        string
	Text, HTML     string
	Kind           string // EmailTransactional (default) or EmailBulk
	Purpose        string // what caused it: "invite", "reset", "test", "keep-in-touch" …
	LeadID         int64  // the lead it is about (0: none)
	ClientID       int64  // the client it is about (0: none)
}

// Header fields: one line each. validate.Text refuses CR, LF and every other control
// character, which is what keeps header injection out.
func (in *EmailInput) validate() validate.Errors {
	in.To, in.From = strings.TrimSpace(in.To), strings.TrimSpace(in.From)
	in.ToName, in.FromName, in.Subject = strings.TrimSpace(in.ToName), strings.TrimSpace(in.FromName), strings.TrimSpace(in.Subject)
	in.Purpose = strings.TrimSpace(in.Purpose)
	if in.Kind == "" {
		in.Kind = EmailTransactional
	}
	errs := validate.Errors{}
	for field, v := range map[string]string{"to": in.To, "to_name": in.ToName, "from": in.From, "from_name": in.FromName,
		"subject": in.Subject, "purpose": in.Purpose} {
		errs.Check(validate.Text(v, false), field, validate.KeyInvalidCharacters)
		errs.Check(validate.MaxLen(v, maxTextLen), field, validate.KeyMaxLength)
	}
	errs.Check(validate.Required(in.To), "to", validate.KeyRequired)
	errs.Check(in.To == "" || validate.Email(in.To), "to", validate.KeyInvalidEmail)
	errs.Check(in.From == "" || validate.Email(in.From), "from", validate.KeyInvalidEmail)
	errs.Check(validate.Required(in.Subject), "subject", validate.KeyRequired)
	errs.Check(in.Text != "" || in.HTML != "", "body_text", validate.KeyRequired)
	errs.Check(validate.Text(in.Text, true), "body_text", validate.KeyInvalidCharacters)
	errs.Check(validate.Text(in.HTML, true), "body_html", validate.KeyInvalidCharacters)
	errs.Check(in.Kind == EmailTransactional || in.Kind == EmailBulk, "kind", validate.KeyInvalid)
	return errs
}

// optionalID is nil for 0.
func optionalID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

// EnqueueEmail writes a message to the outbox, queued for the sender, and returns its id.
// Called on a scope bound to a transaction (inside s.Tx), the message is written in that
// transaction: it exists, and will be sent, only if whatever causes it commits. A bulk
// message gets its unsubscribe token; to an address that unsubscribed it is recorded as
// unsubscribed and never sent.
func (s Scope) EnqueueEmail(ctx context.Context, in EmailInput) (int64, error) {
	if errs := in.validate(); len(errs) > 0 {
		return 0, errs
	}
	e := &Email{Kind: in.Kind, Purpose: in.Purpose, ToAddress: in.To, ToName: in.ToName, FromAddress: in.From,
		FromName: in.FromName, Subject: in.Subject, BodyText: in.Text, BodyHTML: in.HTML,
		LeadID: optionalID(in.LeadID), ClientID: optionalID(in.ClientID), CreatedBy: optionalID(s.UserID),
		Status: EmailQueued, NextAttemptAt: time.Now().UTC()}
	err := s.Tx(ctx, func(tx Scope) error {
		if e.Kind == EmailBulk {
			e.UnsubscribeToken, _ = auth.NewToken(s.TenantID)
			gone, err := tx.Unsubscribed(ctx, e.ToAddress)
			if err != nil {
				return err
			}
			if gone {
				e.Status = EmailUnsubscribed
			}
		}
		_, err := tx.Insert(e).Returning("id").Exec(ctx)
		return err
	})
	return e.ID, err
}

// Email loads one message of the tenant.
func (s Scope) Email(ctx context.Context, id int64) (*Email, error) {
	e := &Email{}
	err := s.Select(e).Where("em.id = ?", id).Scan(ctx)
	return e, notFound(err)
}

// EmailQuery filters and pages the email history (newest first, keyset on the id).
type EmailQuery struct {
	Status   string
	Kind     string
	LeadID   int64
	ClientID int64
	Search   string // part of the recipient's address or of the subject
	After    int64  // the page after this id (older)
	Before   int64  // the page before this id (newer)
	Limit    int
}

// EmailPage is one page of the email history: its rows, the total (counted up to a cap),
// and the cursors of the pages around it (0: none).
type EmailPage struct {
	Rows   []Email
	Total  int64
	Capped bool
	Next   int64 // older page: After=Next
	Prev   int64 // newer page: Before=Prev
}

// emailCountCap stops counting the history there ("10,000+").
const emailCountCap = 10000

// ListEmails is a page of the tenant's email history.
func (s Scope) ListEmails(ctx context.Context, q EmailQuery) (*EmailPage, error) {
	if q.Limit <= 0 || q.Limit > 100 {
		q.Limit = 20
	}
	filter := func(sq *bun.SelectQuery) *bun.SelectQuery {
		if q.Status != "" {
			sq = sq.Where("em.status = ?", q.Status)
		}
		if q.Kind != "" {
			sq = sq.Where("em.kind = ?", q.Kind)
		}
		if q.LeadID != 0 {
			sq = sq.Where("em.lead_id = ?", q.LeadID)
		}
		if q.ClientID != 0 {
			sq = sq.Where("em.client_id = ?", q.ClientID)
		}
		if t := strings.ToLower(strings.TrimSpace(q.Search)); t != "" {
			like := "%" + escapeLike(t) + "%"
			sq = sq.Where("(lower(em.to_address) LIKE ? ESCAPE '\\' OR lower(em.subject) LIKE ? ESCAPE '\\')", like, like)
		}
		return sq
	}
	rows := []Email{}
	sq := filter(s.Select(&rows)).Limit(int64(q.Limit + 1))
	switch {
	case q.Before != 0:
		sq = sq.Where("em.id > ?", q.Before).OrderExpr("em.id ASC")
	case q.After != 0:
		sq = sq.Where("em.id < ?", q.After).OrderExpr("em.id DESC")
	default:
		sq = sq.OrderExpr("em.id DESC")
	}
	if err := sq.Scan(ctx); err != nil {
		return nil, err
	}
	more := len(rows) > q.Limit
	if more {
		rows = rows[:q.Limit]
	}
	if q.Before != 0 { // read upwards: put newest first again
		for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
			rows[i], rows[j] = rows[j], rows[i]
		}
	}
	p := &EmailPage{Rows: rows}
	if len(rows) > 0 {
		if more || q.Before != 0 {
			p.Next = rows[len(rows)-1].ID
		}
		if q.After != 0 || (q.Before != 0 && more) {
			p.Prev = rows[0].ID
		}
	}
	var n int64
	inner := filter(s.Select((*Email)(nil)).Column("em.id")).Limit(emailCountCap + 1)
	if err := s.idb.NewSelect().TableExpr("(?) AS c", inner).ColumnExpr("count(*)").Scan(ctx, &n); err != nil {
		return nil, err
	}
	p.Total, p.Capped = min(n, emailCountCap), n > emailCountCap
	return p, nil
}

// Unsubscribed reports whether the address unsubscribed from the tenant's bulk mail.
func (s Scope) Unsubscribed(ctx context.Context, address string) (bool, error) {
	return s.Select((*emailUnsubscribe)(nil)).Where("eu.address = ?", strings.ToLower(strings.TrimSpace(address))).Exists(ctx)
}

type emailUnsubscribe struct {
	bun.BaseModel `bun:"table:email_unsubscribes,alias:eu"`
	Owned

	Address   string    `bun:"address,pk"`
	EmailID   *int64    `bun:"email_id"`
	CreatedAt time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp"`
}

// EmailByUnsubscribeToken is the bulk message an unsubscribe link names. The token is
// "<tenant>.<secret>": the message is looked up in that tenant only (so under its
// row-level security), and an unknown or malformed token is ErrNotFound.
func (db *DB) EmailByUnsubscribeToken(ctx context.Context, token string) (*Email, error) {
	tenantID, _, err := auth.ParseToken(token)
	if err != nil {
		return nil, ErrNotFound
	}
	e := &Email{}
	err = db.System(tenantID, 0).Select(e).Where("em.unsubscribe_token = ?", token).Scan(ctx)
	return e, notFound(err)
}

// Unsubscribe records the address of the token's message as unsubscribed from its
// tenant's bulk mail (again is harmless), and skips the bulk messages still queued to it.
func (db *DB) Unsubscribe(ctx context.Context, token string) (*Email, error) {
	e, err := db.EmailByUnsubscribeToken(ctx, token)
	if err != nil {
		return nil, err
	}
	addr := strings.ToLower(e.ToAddress)
	err = db.System(e.TenantID, 0).Tx(ctx, func(tx Scope) error {
		u := &emailUnsubscribe{Address: addr, EmailID: &e.ID}
		if _, err := tx.Insert(u).On("CONFLICT (tenant_id, address) DO NOTHING").Exec(ctx); err != nil {
			return err
		}
		_, err := tx.Update((*Email)(nil)).Set("status = ?, updated_at = ?", EmailUnsubscribed, time.Now().UTC()).
			Where("em.kind = ? AND em.status = ? AND lower(em.to_address) = ?", EmailBulk, EmailQueued, addr).Exec(ctx)
		return err
	})
	return e, err
}

// TenantIDs lists every tenant, for the background work that visits them one at a time.
func (db *DB) TenantIDs(ctx context.Context) ([]int64, error) { return db.tenantIDs(ctx) }

// ClaimEmails claims up to batch messages due by now (queued and due, or sending with an
// expired lease: a sender that died mid-way) for one sender: each becomes sending until
// now+lease, with a fresh claim token, and its attempts go up by one. Several senders on
// one PostgreSQL database never claim the same message (FOR UPDATE SKIP LOCKED); SQLite has
// a single writer.
func (s Scope) ClaimEmails(ctx context.Context, now time.Time, lease time.Duration, batch int) ([]Email, error) {
	now = now.UTC()
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	claim := hex.EncodeToString(b)
	var out []Email
	due := `tenant_id = ?0 AND ((status = 'queued' AND next_attempt_at <= ?1) OR (status = 'sending' AND lease_until <= ?1))`
	var q string
	if s.db.Dialect == Postgres {
		// The due rows are chosen once, in a CTE: as a subquery of the UPDATE's FROM the
		// planner may run the LIMIT … SKIP LOCKED scan more than once and claim more than
		// batch messages (seen with batch 2: all 5 due were claimed).
		q = `WITH d AS MATERIALIZED (SELECT tenant_id, id FROM emails WHERE ` + due + ` ORDER BY next_attempt_at, id LIMIT ?4 FOR UPDATE SKIP LOCKED)
UPDATE emails AS e SET status = 'sending', lease_until = ?2, claim = ?3, attempts = e.attempts + 1, updated_at = ?1
FROM d WHERE e.tenant_id = d.tenant_id AND e.id = d.id
RETURNING e.*`
	} else {
		q = `UPDATE emails SET status = 'sending', lease_until = ?2, claim = ?3, attempts = attempts + 1, updated_at = ?1
WHERE tenant_id = ?0 AND id IN (SELECT id FROM emails WHERE ` + due + ` ORDER BY next_attempt_at, id LIMIT ?4)
RETURNING *`
	}
	err := s.idb.NewRaw(q, s.TenantID, now, now.Add(lease), claim, batch).Scan(ctx, &out)
	if len(out) == 0 && err != nil && strings.Contains(err.Error(), "no rows") {
		err = nil
	}
	return out, err
}

// HoldEmails notes on the tenant's queued messages why they wait (NoMailServer), without
// claiming them: they go out at the first sweep after a server is configured.
func (s Scope) HoldEmails(ctx context.Context, reason string) error {
	_, err := s.Update((*Email)(nil)).Set("last_error = ?", reason).
		Where("em.status = ? AND em.last_error <> ?", EmailQueued, reason).Exec(ctx)
	return err
}

// RenewEmail extends the lease of a claimed message just before it is handed to the SMTP
// server, stores the Message-ID it is sent with, and reports whether the claim is still
// this sender's (false: its lease ran out and another sender took it, so this one must not
// send it).
func (s Scope) RenewEmail(ctx context.Context, id int64, claim, messageID string, now time.Time, lease time.Duration) (bool, error) {
	res, err := s.Update((*Email)(nil)).Set("lease_until = ?, message_id = ?", now.UTC().Add(lease), messageID).
		Where("em.id = ? AND em.claim = ? AND em.status = ?", id, claim, EmailSending).Exec(ctx)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// EmailOutcome is what became of a delivery attempt.
type EmailOutcome struct {
	Status      string    // EmailSent, EmailQueued (retry at NextAttempt), EmailFailed or EmailUnsubscribed
	Error       string    // the SMTP server's answer or the connection's error ("" when sent)
	NextAttempt time.Time // for a retry
	MessageID   string    // the Message-ID sent
	From        string    // the sender address and name used
	FromName    string
}

// FinishEmail records the outcome of the attempt of the claim (nothing when the claim is
// no longer current).
func (s Scope) FinishEmail(ctx context.Context, id int64, claim string, o EmailOutcome) error {
	now := time.Now().UTC()
	q := s.Update((*Email)(nil)).Where("em.id = ? AND em.claim = ?", id, claim).
		Set("status = ?, last_error = ?, lease_until = NULL, updated_at = ?", o.Status, o.Error, now)
	if o.MessageID != "" {
		q = q.Set("message_id = ?", o.MessageID)
	}
	if o.From != "" {
		q = q.Set("from_address = ?, from_name = ?", o.From, o.FromName)
	}
	switch o.Status {
	case EmailSent:
		q = q.Set("sent_at = ?", now)
	case EmailQueued:
		q = q.Set("next_attempt_at = ?", o.NextAttempt.UTC())
	}
	_, err := q.Exec(ctx)
	return err
}
