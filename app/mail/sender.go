package mail

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	gomail "github.com/wneessen/go-mail"

	"crm/app/secret"
	"crm/app/store"
)

// Config is what a Sender needs; zero durations and counts take the defaults.
type Config struct {
	DB       *store.DB
	Sealer   *secret.Sealer // opens tenants' SMTP passwords (nil: no CRM_SECRET_KEY)
	Fallback *Server        // the server-wide SMTP_URL (nil: none)
	BaseURL  string         // the public address of the CRM, for unsubscribe links ("https://crm.example.com")
	Log      *slog.Logger

	Interval    time.Duration // between sweeps (default 5 s); Wake starts one at once
	Lease       time.Duration // how long a claim holds a message (default 10 min)
	Timeout     time.Duration // of an SMTP connection's every step (default 30 s)
	Backoff     time.Duration // the first retry's delay, doubled each attempt (default 1 min)
	MaxBackoff  time.Duration // the longest delay (default 6 h)
	MaxAttempts int           // attempts before a temporary failure becomes failed (default 8)
	Batch       int           // messages claimed at once per tenant (default 50)
	// PerTenant is the per-tenant rate: at most this many messages of one tenant a sweep
	// (default DefaultPerTenant), so a tenant's bulk send of 10,000 goes out over several
	// sweeps — about PerTenant per Interval — and never holds up other tenants' mail.
	PerTenant int
	TLSConfig *tls.Config // nil: the system's roots (tests give their own CA)
}

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&c.Interval, 5*time.Second)
	def(&c.Lease, 10*time.Minute)
	def(&c.Timeout, 30*time.Second)
	def(&c.Backoff, time.Minute)
	def(&c.MaxBackoff, 6*time.Hour)
	if c.MaxAttempts == 0 {
		c.MaxAttempts = 8
	}
	if c.Batch == 0 {
		c.Batch = 50
	}
	if c.PerTenant == 0 {
		c.PerTenant = DefaultPerTenant
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	return c
}

// DefaultPerTenant is the default per-tenant rate: messages of one tenant a sweep (every
// 5 s by default, so up to 200 a tenant every 5 s, 144,000 an hour).
const DefaultPerTenant = 200

// Sender delivers the outbox. Several may run against one PostgreSQL database (one per
// instance): a message is claimed by one of them at a time (store.ClaimEmails).
type Sender struct {
	cfg  Config
	wake chan struct{}
	stop context.CancelFunc
	done sync.WaitGroup
}

// New is a sender; Start runs it.
func New(cfg Config) *Sender {
	return &Sender{cfg: cfg.withDefaults(), wake: make(chan struct{}, 1)}
}

// Start sweeps the outbox every interval (and whenever woken) until Close or ctx ends.
func (s *Sender) Start(ctx context.Context) {
	ctx, s.stop = context.WithCancel(ctx)
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		t := time.NewTicker(s.cfg.Interval)
		defer t.Stop()
		for {
			if _, err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
				s.cfg.Log.Warn("mail sweep failed", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			case <-s.wake:
			}
		}
	}()
}

// Close stops the sweeps and waits for the one under way (its messages are recorded).
func (s *Sender) Close() {
	if s.stop != nil {
		s.stop()
	}
	s.done.Wait()
}

// Wake asks for a sweep now (a message was just queued); it never blocks.
func (s *Sender) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Stats counts what a sweep did.
type Stats struct {
	Sent, Retried, Failed, Unsubscribed int
}

// Sweep delivers every message due now, tenant by tenant, each under its tenant (row-level
// security on PostgreSQL): a tenant without a server has its queued messages noted
// store.NoMailServer and left queued.
func (s *Sender) Sweep(ctx context.Context) (Stats, error) {
	var st Stats
	tenants, err := s.cfg.DB.TenantIDs(ctx)
	if err != nil {
		return st, err
	}
	var errs []error
	for _, id := range tenants {
		if ctx.Err() != nil {
			break
		}
		if err := s.sweepTenant(ctx, s.cfg.DB.System(id, 0), &st); err != nil {
			errs = append(errs, err)
		}
	}
	return st, errors.Join(errs...)
}

func (s *Sender) sweepTenant(ctx context.Context, sc store.Scope, st *Stats) error {
	srv, err := ServerFor(ctx, sc, s.cfg.Sealer, s.cfg.Fallback)
	if errors.Is(err, errUnreadable) {
		return sc.HoldEmails(ctx, err.Error())
	}
	if err != nil {
		return err
	}
	if srv == nil {
		return sc.HoldEmails(ctx, store.NoMailServer)
	}
	for left := s.cfg.PerTenant; ctx.Err() == nil && left > 0; {
		batch := min(s.cfg.Batch, left)
		msgs, err := sc.ClaimEmails(ctx, time.Now(), s.cfg.Lease, batch)
		if err != nil || len(msgs) == 0 {
			return err
		}
		left -= len(msgs)
		if err := s.deliver(ctx, sc, srv, msgs, st); err != nil {
			return err
		}
		if len(msgs) < batch {
			return nil
		}
	}
	return nil
}

// deliver sends claimed messages over one connection, dialled when first needed and again
// after any failure (the connection may be broken).
func (s *Sender) deliver(ctx context.Context, sc store.Scope, srv *Server, msgs []store.Email, st *Stats) error {
	var c *gomail.Client
	defer func() {
		if c != nil {
			_ = c.Close()
		}
	}()
	for _, m := range msgs {
		if ctx.Err() != nil {
			return nil // still ours until the lease runs out; the next sweep retries them
		}
		out := store.EmailOutcome{MessageID: m.MessageID, From: m.FromAddress, FromName: m.FromName}
		if out.From == "" {
			out.From, out.FromName = srv.From, srv.FromName
		}
		if out.MessageID == "" {
			out.MessageID = newMessageID(out.From)
		}
		if m.Kind == store.EmailBulk {
			gone, err := sc.Unsubscribed(ctx, m.ToAddress)
			if err != nil {
				return err
			}
			if gone {
				out.Status = store.EmailUnsubscribed
				st.Unsubscribed++
				if err := sc.FinishEmail(ctx, m.ID, m.Claim, out); err != nil {
					return err
				}
				continue
			}
		}
		// Still ours? (A sender slower than its lease lost the message to another.) The
		// Message-ID is stored before sending, so a resend after a crash carries the same.
		ok, err := sc.RenewEmail(ctx, m.ID, m.Claim, out.MessageID, time.Now(), s.cfg.Lease)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		msg, err := s.build(m, out)
		if err != nil {
			out.Status, out.Error = store.EmailFailed, err.Error()
			st.Failed++
		} else {
			if c == nil {
				c, err = s.dial(ctx, srv)
			}
			if err == nil {
				err = c.Send(msg)
			}
			if err != nil && c != nil {
				_ = c.Close()
				c = nil
			}
			s.outcome(&out, m, err, st)
		}
		if err := sc.FinishEmail(ctx, m.ID, m.Claim, out); err != nil {
			return err
		}
	}
	return nil
}

// outcome classifies a delivery's error: none is sent; a 5xx answer (or a message the
// client cannot send at all) failed for good; anything else — a 4xx answer, a refused,
// dropped or timed-out connection — is retried with exponential backoff, until MaxAttempts.
func (s *Sender) outcome(out *store.EmailOutcome, m store.Email, err error, st *Stats) {
	if err == nil {
		out.Status = store.EmailSent
		st.Sent++
		return
	}
	out.Error = truncate(err.Error(), 1000)
	if permanent(err) {
		out.Status = store.EmailFailed
		st.Failed++
		return
	}
	if m.Attempts >= s.cfg.MaxAttempts {
		out.Status, out.Error = store.EmailFailed, truncate("gave up after "+strconv.Itoa(m.Attempts)+" attempts: "+err.Error(), 1000)
		st.Failed++
		return
	}
	out.Status = store.EmailQueued
	out.NextAttempt = time.Now().Add(s.backoff(m.Attempts))
	st.Retried++
}

// backoff is the delay after the n-th failed attempt: Backoff, doubled each time, at most MaxBackoff.
func (s *Sender) backoff(n int) time.Duration {
	d := s.cfg.Backoff
	for i := 1; i < n && d < s.cfg.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, s.cfg.MaxBackoff)
}

// permanent reports a refusal that trying again will not change.
func permanent(err error) bool {
	var se *gomail.SendError
	if !errors.As(err, &se) {
		return false
	}
	if code := se.ErrorCode(); code >= 500 && code < 600 {
		return true
	}
	switch se.Reason {
	case gomail.ErrGetSender, gomail.ErrGetRcpts, gomail.ErrNoUnencoded:
		return true
	}
	return false
}

// dial connects (and authenticates) to the server.
func (s *Sender) dial(ctx context.Context, srv *Server) (*gomail.Client, error) {
	opts := []gomail.Option{gomail.WithPort(srv.Port), gomail.WithTimeout(s.cfg.Timeout), gomail.WithHELO(domain(srv.From))}
	switch srv.Security {
	case store.SecurityTLS:
		opts = append(opts, gomail.WithSSL())
	case store.SecurityNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if s.cfg.TLSConfig != nil {
		tc := s.cfg.TLSConfig.Clone()
		tc.ServerName = srv.Host
		opts = append(opts, gomail.WithTLSConfig(tc))
	}
	if srv.Username != "" {
		auth := gomail.SMTPAuthAutoDiscover
		if srv.Security == store.SecurityNone {
			auth = gomail.SMTPAuthPlainNoEnc // the operator chose an unencrypted server
		}
		opts = append(opts, gomail.WithSMTPAuth(auth), gomail.WithUsername(srv.Username), gomail.WithPassword(srv.Password))
	}
	c, err := gomail.NewClient(srv.Host, opts...)
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	if err := c.DialWithContext(dctx); err != nil {
		return nil, err
	}
	return c, nil
}

// build is the message as sent: From, To, Subject, Date, Message-ID, the text and HTML
// parts (multipart/alternative when both), and for bulk mail List-Unsubscribe (the one-click
// https link) with List-Unsubscribe-Post (RFC 8058).
func (s *Sender) build(m store.Email, out store.EmailOutcome) (*gomail.Msg, error) {
	msg := gomail.NewMsg()
	if err := msg.FromFormat(out.FromName, out.From); err != nil {
		return nil, err
	}
	if err := msg.AddToFormat(m.ToName, m.ToAddress); err != nil {
		return nil, err
	}
	msg.Subject(m.Subject)
	msg.SetDateWithValue(time.Now())
	msg.SetMessageIDWithValue(strings.Trim(out.MessageID, "<>"))
	switch {
	case m.BodyText != "" && m.BodyHTML != "":
		msg.SetBodyString(gomail.TypeTextPlain, m.BodyText)
		msg.AddAlternativeString(gomail.TypeTextHTML, m.BodyHTML)
	case m.BodyHTML != "":
		msg.SetBodyString(gomail.TypeTextHTML, m.BodyHTML)
	default:
		msg.SetBodyString(gomail.TypeTextPlain, m.BodyText)
	}
	if m.Kind == store.EmailBulk && m.UnsubscribeToken != "" {
		msg.SetGenHeaderPreformatted(gomail.HeaderListUnsubscribe, "<"+s.UnsubscribeURL(m.UnsubscribeToken)+">")
		msg.SetGenHeaderPreformatted(gomail.HeaderListUnsubscribePost, "List-Unsubscribe=One-Click")
	}
	return msg, nil
}

// UnsubscribeURL is the one-click unsubscribe page of a token.
func (s *Sender) UnsubscribeURL(token string) string { return s.cfg.BaseURL + "/unsubscribe/" + token }

// newMessageID is a fresh Message-ID (with its angle brackets) in the sender's domain. It
// is stored with the message, so a retry sends the same one.
func newMessageID(from string) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "<" + hex.EncodeToString(b) + "@" + domain(from) + ">"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
