package store

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"crm/app/auth"
	"crm/app/validate"
)

// The states of a bulk send.
const (
	SendQueued  = "queued"
	SendRunning = "running"
	SendDone    = "done"
	SendFailed  = "failed"
)

// The outcomes of a send's recipient.
const (
	OutcomeQueued       = "queued"
	OutcomeNoEmail      = "no_email"
	OutcomeUnsubscribed = "unsubscribed"
	OutcomeInvalid      = "invalid"
)

// SendBatch is how many recipients a send renders and enqueues per transaction: its
// progress moves by that much at a time.
const SendBatch = 500

// MaxSendRecipients caps one bulk send.
const MaxSendRecipients = 100000

// PurposeCampaign is the purpose of a bulk send's messages in the email history.
const PurposeCampaign = "campaign"

// EmailSend is a bulk send of a template to leads, and its report.
type EmailSend struct {
	bun.BaseModel `bun:"table:email_sends,alias:es"`
	Owned

	ID                  int64      `bun:"id,pk,autoincrement" json:"id"`
	TemplateID          int64      `bun:"template_id,notnull" json:"template_id"`
	TemplateName        string     `bun:"template_name,notnull" json:"template_name"`
	CreatedBy           *int64     `bun:"created_by" json:"created_by"`
	Status              string     `bun:"status,notnull" json:"status"`
	Total               int        `bun:"total,notnull" json:"total"`
	Processed           int        `bun:"processed,notnull" json:"processed"`
	Queued              int        `bun:"queued,notnull" json:"queued"`
	SkippedNoEmail      int        `bun:"skipped_no_email,notnull" json:"skipped_no_email"`
	SkippedUnsubscribed int        `bun:"skipped_unsubscribed,notnull" json:"skipped_unsubscribed"`
	SkippedInvalid      int        `bun:"skipped_invalid,notnull" json:"skipped_invalid"`
	LastError           string     `bun:"last_error,notnull" json:"last_error"`
	CreatedAt           time.Time  `bun:"created_at,nullzero,notnull,default:current_timestamp" json:"created_at"`
	FinishedAt          *time.Time `bun:"finished_at" json:"finished_at"`
}

// Finished reports whether the send has nothing left to do.
func (e *EmailSend) Finished() bool { return e.Status == SendDone || e.Status == SendFailed }

type emailSendRecipient struct {
	bun.BaseModel `bun:"table:email_send_recipients,alias:esr"`
	Owned

	SendID  int64  `bun:"send_id,pk"`
	LeadID  int64  `bun:"lead_id,pk"`
	Outcome string `bun:"outcome,notnull"`
}

// SendAudience counts what a send to leads would do: the leads reached, those with an
// email address, and, of those without one or unsubscribed, how many are skipped.
type SendAudience struct {
	Leads        int `json:"leads"`
	WithEmail    int `json:"with_email"`
	NoEmail      int `json:"no_email"`
	Unsubscribed int `json:"unsubscribed"`
}

// Recipients is how many would get the message.
func (a SendAudience) Recipients() int { return a.WithEmail - a.Unsubscribed }

// SendAudience counts the leads of ids the scope reaches for update (a bulk email acts on
// leads, as the list's other bulk tools do), by whether they can get a bulk message.
func (s Scope) SendAudience(ctx context.Context, ids []int64) (SendAudience, error) {
	var a SendAudience
	s = s.For(auth.Update)
	for chunk := range slices.Chunk(ids, SendBatch) {
		var rows []struct {
			ID    int64  `bun:"id"`
			Email string `bun:"company_email"`
		}
		if err := s.leads((*Lead)(nil)).Column("l.id", "l.company_email").Where("l.id IN (?)", bun.In(chunk)).Scan(ctx, &rows); err != nil {
			return a, err
		}
		a.Leads += len(rows)
		var addrs []string
		for _, r := range rows {
			if e := strings.ToLower(strings.TrimSpace(r.Email)); e != "" {
				addrs = append(addrs, e)
			} else {
				a.NoEmail++
			}
		}
		a.WithEmail += len(addrs)
		gone, err := s.unsubscribedSet(ctx, addrs)
		if err != nil {
			return a, err
		}
		for _, e := range addrs {
			if gone[e] {
				a.Unsubscribed++
			}
		}
	}
	return a, nil
}

// unsubscribedSet is which of the (lower-case) addresses unsubscribed.
func (s Scope) unsubscribedSet(ctx context.Context, addrs []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(addrs) == 0 {
		return out, nil
	}
	var gone []string
	if err := s.Select((*emailUnsubscribe)(nil)).Column("eu.address").Where("eu.address IN (?)", bun.In(addrs)).Scan(ctx, &gone); err != nil {
		return nil, err
	}
	for _, a := range gone {
		out[a] = true
	}
	return out, nil
}

// CreateEmailSend records a bulk send of the template to the leads of ids the scope
// reaches for update (others are left out; none at all is refused), queued for
// RunEmailSend. The recipients are fixed now: leads added later do not get it.
func (s Scope) CreateEmailSend(ctx context.Context, templateID int64, ids []int64) (*EmailSend, error) {
	if len(ids) > MaxSendRecipients {
		return nil, validate.Errors{"ids": validate.KeyMaxLength}
	}
	s = s.For(auth.Update)
	send := &EmailSend{TemplateID: templateID, CreatedBy: optionalID(s.UserID), Status: SendQueued}
	err := s.Tx(ctx, func(tx Scope) error {
		t, err := tx.EmailTemplate(ctx, templateID)
		if errors.Is(err, ErrNotFound) {
			return validate.Errors{"template_id": validate.KeyInvalid}
		} else if err != nil {
			return err
		}
		send.TemplateName = t.Name
		if _, err := tx.Insert(send).Returning("id, created_at").Exec(ctx); err != nil {
			return err
		}
		for chunk := range slices.Chunk(ids, SendBatch) {
			var reached []int64
			if err := tx.leads((*Lead)(nil)).Column("l.id").Where("l.id IN (?)", bun.In(chunk)).Scan(ctx, &reached); err != nil {
				return err
			}
			if len(reached) == 0 {
				continue
			}
			rows := make([]emailSendRecipient, 0, len(reached))
			for _, id := range reached {
				rows = append(rows, emailSendRecipient{SendID: send.ID, LeadID: id})
			}
			if _, err := tx.Insert(&rows).On("CONFLICT DO NOTHING").Exec(ctx); err != nil {
				return err
			}
		}
		n, err := tx.Select((*emailSendRecipient)(nil)).Where("esr.send_id = ?", send.ID).Count(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return validate.Errors{"ids": validate.KeyRequired}
		}
		send.Total = int(n)
		_, err = tx.Update((*EmailSend)(nil)).Set("total = ?", n).Where("es.id = ?", send.ID).Exec(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return send, nil
}

// EmailSend loads one send of the tenant.
func (s Scope) EmailSend(ctx context.Context, id int64) (*EmailSend, error) {
	e := &EmailSend{}
	err := s.Select(e).Where("es.id = ?", id).Scan(ctx)
	return e, notFound(err)
}

// EmailSends lists the tenant's latest sends, newest first.
func (s Scope) EmailSends(ctx context.Context, limit int) ([]EmailSend, error) {
	out := []EmailSend{}
	err := s.Select(&out).OrderExpr("es.id DESC").Limit(int64(limit)).Scan(ctx)
	return out, err
}

// RunEmailSend works through a send batch by batch (SendBatch recipients a transaction,
// its progress saved with each), until it is done. A send interrupted half-way resumes
// where it stopped: a recipient's outcome is written in the batch that enqueued it.
// afterBatch, when set, runs after each batch (the sender is woken to send what it queued).
func (s Scope) RunEmailSend(ctx context.Context, id int64, afterBatch func()) error {
	for ctx.Err() == nil {
		done, err := s.RunEmailSendBatch(ctx, id)
		if afterBatch != nil {
			afterBatch()
		}
		if err != nil {
			msg := err.Error()
			_, _ = s.Update((*EmailSend)(nil)).Set("status = ?", SendFailed).Set("last_error = ?", msg).
				Set("finished_at = ?", time.Now().UTC()).Where("es.id = ?", id).Exec(context.WithoutCancel(ctx))
			return err
		}
		if done {
			return nil
		}
	}
	return ctx.Err()
}

// RunEmailSendBatch renders and enqueues the next SendBatch recipients of a send as bulk
// mail (an unsubscribed address is recorded and never sent), in one transaction; done
// when none is left.
func (s Scope) RunEmailSendBatch(ctx context.Context, id int64) (done bool, err error) {
	err = s.Tx(ctx, func(tx Scope) error {
		send, err := tx.EmailSend(ctx, id)
		if err != nil {
			return err
		}
		if send.Finished() {
			done = true
			return nil
		}
		var ids []int64
		if err := tx.Select((*emailSendRecipient)(nil)).Column("esr.lead_id").Where("esr.send_id = ? AND esr.outcome = ''", id).
			OrderExpr("esr.lead_id").Limit(SendBatch).Scan(ctx, &ids); err != nil {
			return err
		}
		if len(ids) == 0 {
			done = true
			_, err := tx.Update((*EmailSend)(nil)).Set("status = ?", SendDone).Set("finished_at = ?", time.Now().UTC()).
				Where("es.id = ?", id).Exec(ctx)
			return err
		}
		r, err := tx.EmailRenderer(ctx, send.TemplateID)
		if err != nil {
			return err
		}
		rendered, err := r.RenderMany(ctx, EntityLead, ids)
		if err != nil {
			return err
		}
		outcome := map[string][]int64{}
		var msgs []EmailInput
		var msgLeads []int64
		for _, m := range rendered {
			switch {
			case m.Err != nil:
				outcome[OutcomeInvalid] = append(outcome[OutcomeInvalid], m.ID)
			case m.Email.To == "":
				outcome[OutcomeNoEmail] = append(outcome[OutcomeNoEmail], m.ID)
			default:
				msgs = append(msgs, m.Email.Input(EmailBulk, PurposeCampaign))
				msgLeads = append(msgLeads, m.ID)
			}
		}
		statuses, err := tx.enqueueMany(ctx, msgs)
		if err != nil {
			return err
		}
		for i, st := range statuses {
			switch st {
			case EmailUnsubscribed:
				outcome[OutcomeUnsubscribed] = append(outcome[OutcomeUnsubscribed], msgLeads[i])
			case EmailQueued:
				outcome[OutcomeQueued] = append(outcome[OutcomeQueued], msgLeads[i])
			default: // refused by EnqueueEmail's checks (an invalid address)
				outcome[OutcomeInvalid] = append(outcome[OutcomeInvalid], msgLeads[i])
			}
		}
		for o, leadIDs := range outcome {
			if _, err := tx.Update((*emailSendRecipient)(nil)).Set("outcome = ?", o).
				Where("esr.send_id = ? AND esr.lead_id IN (?)", id, bun.In(leadIDs)).Exec(ctx); err != nil {
				return err
			}
		}
		_, err = tx.Update((*EmailSend)(nil)).Set("status = ?", SendRunning).
			Set("processed = processed + ?", len(ids)).
			Set("queued = queued + ?", len(outcome[OutcomeQueued])).
			Set("skipped_no_email = skipped_no_email + ?", len(outcome[OutcomeNoEmail])).
			Set("skipped_unsubscribed = skipped_unsubscribed + ?", len(outcome[OutcomeUnsubscribed])).
			Set("skipped_invalid = skipped_invalid + ?", len(outcome[OutcomeInvalid])).
			Where("es.id = ?", id).Exec(ctx)
		return err
	})
	return done, err
}

// enqueueMany is EnqueueEmail for many messages in one insert: each message's status
// (queued, unsubscribed) or "" for one its checks refused (not written).
func (s Scope) enqueueMany(ctx context.Context, in []EmailInput) ([]string, error) {
	out := make([]string, len(in))
	if len(in) == 0 {
		return out, nil
	}
	addrs := make([]string, 0, len(in))
	for i := range in {
		addrs = append(addrs, strings.ToLower(strings.TrimSpace(in[i].To)))
	}
	gone, err := s.unsubscribedSet(ctx, addrs)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	rows := make([]Email, 0, len(in))
	for i := range in {
		if errs := in[i].validate(); len(errs) > 0 {
			continue
		}
		e := Email{Kind: in[i].Kind, Purpose: in[i].Purpose, ToAddress: in[i].To, ToName: in[i].ToName, FromAddress: in[i].From,
			FromName: in[i].FromName, Subject: in[i].Subject, BodyText: in[i].Text, BodyHTML: in[i].HTML,
			LeadID: optionalID(in[i].LeadID), ClientID: optionalID(in[i].ClientID), CreatedBy: optionalID(s.UserID),
			Status: EmailQueued, NextAttemptAt: now}
		if e.Kind == EmailBulk {
			e.UnsubscribeToken, _ = auth.NewToken(s.TenantID)
			if gone[strings.ToLower(e.ToAddress)] {
				e.Status = EmailUnsubscribed
			}
		}
		out[i] = e.Status
		rows = append(rows, e)
	}
	if len(rows) == 0 {
		return out, nil
	}
	return out, s.Tx(ctx, func(tx Scope) error {
		_, err := tx.Insert(&rows).Exec(ctx)
		return err
	})
}
