package mail_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/uptrace/bun"

	"crm/app/mail"
	"crm/app/race"
	"crm/app/secret"
	"crm/app/store"
	"crm/app/store/storetest"
	"crm/app/validate"
)

const baseURL = "https://crm.example.test"

var sealer = secret.NewSealer("a test key, long enough to stand for CRM_SECRET_KEY")

// fixture is a tenant on a fresh database whose SMTP server is rv (nil: none configured).
type fixture struct {
	db *store.DB
	s  store.Scope
	rv *receiver
}

var tenants atomic.Int64

func newFixture(t *testing.T, db *store.DB, rv *receiver) *fixture {
	t.Helper()
	ctx := context.Background()
	n := tenants.Add(1)
	tn, u, err := db.CreateTenant(ctx, store.NewTenant{DefaultLocale: "en_US", Name: fmt.Sprint("Acme ", n),
		AdminEmail: fmt.Sprintf("admin%d@acme.test", n), AdminPassword: "Secret1!x"})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{db: db, s: db.System(tn.ID, u.ID), rv: rv}
	if rv != nil {
		f.configure(t, rv)
	}
	return f
}

// configure saves rv as the tenant's server, with its credentials (password sealed).
func (f *fixture) configure(t *testing.T, rv *receiver) {
	t.Helper()
	m := store.MailSettings{Host: rv.Host, Port: rv.Port, Security: store.SecurityNone, FromAddress: "crm@acme.test", FromName: "Acme CRM"}
	if rv.User != "" {
		m.Username, m.Password = rv.User, sealer.Seal(rv.Pass)
	}
	if err := f.s.SaveMailSettings(context.Background(), m); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) sender(mod ...func(*mail.Config)) *mail.Sender {
	cfg := mail.Config{DB: f.db, Sealer: sealer, BaseURL: baseURL, Backoff: time.Millisecond, MaxBackoff: time.Millisecond, Timeout: 5 * time.Second}
	for _, m := range mod {
		m(&cfg)
	}
	return mail.New(cfg)
}

func (f *fixture) enqueue(t *testing.T, in store.EmailInput) int64 {
	t.Helper()
	id, err := f.s.EnqueueEmail(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func (f *fixture) email(t *testing.T, id int64) *store.Email {
	t.Helper()
	e, err := f.s.Email(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// sweepUntil sweeps until cond holds (a retry is due a millisecond later), failing after 10 s.
func sweepUntil(t *testing.T, s *mail.Sender, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached after 10 s of sweeps")
		}
		if _, err := s.Sweep(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

func hello(to string) store.EmailInput {
	return store.EmailInput{To: to, ToName: "Ann Example", Subject: "Hello Ann", Text: "Plain hello", HTML: "<p>HTML <b>hello</b></p>", Purpose: "test"}
}

// parts reads a multipart/alternative body: content type → content.
func parts(t *testing.T, ct string, body io.Reader) map[string]string {
	t.Helper()
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "multipart/alternative" {
		t.Fatalf("Content-Type %q, want multipart/alternative", ct)
	}
	out := map[string]string{}
	r := multipart.NewReader(body, params["boundary"])
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p) // multipart decodes quoted-printable
		pt, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		out[pt] = string(b)
	}
}

func TestDeliversBothPartsAndHeaders(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		rv := newReceiver(t)
		rv.User, rv.Pass = "mailer", "s3cret pass"
		f := newFixture(t, db, rv)
		ctx := context.Background()
		tx := f.enqueue(t, hello("ann@example.test"))
		in := hello("bob@example.test")
		in.Kind, in.ToName = store.EmailBulk, "Bob"
		bulk := f.enqueue(t, in)

		st, err := f.sender().Sweep(ctx)
		if err != nil || st.Sent != 2 {
			t.Fatalf("sweep: %+v %v", st, err)
		}
		got := rv.Messages()
		if len(got) != 2 || rv.auths == 0 {
			t.Fatalf("received %d messages, %d authentications", len(got), rv.auths)
		}
		byTo := map[string]int{}
		for i, m := range got {
			byTo[m.Header.Get("To")] = i
		}
		for _, c := range []struct {
			id   int64
			to   string
			bulk bool
		}{{tx, `"Ann Example" <ann@example.test>`, false}, {bulk, `"Bob" <bob@example.test>`, true}} {
			i, ok := byTo[c.to]
			if !ok {
				t.Fatalf("nothing arrived for %s: %v", c.to, byTo)
			}
			m, e := got[i], f.email(t, c.id)
			h := m.Header
			if e.Status != store.EmailSent || e.SentAt == nil || e.Attempts != 1 || e.LastError != "" {
				t.Fatalf("stored after delivery: %+v", e)
			}
			if h.Get("From") != `"Acme CRM" <crm@acme.test>` || h.Get("Subject") != "Hello Ann" {
				t.Errorf("From %q, Subject %q", h.Get("From"), h.Get("Subject"))
			}
			if h.Get("Message-ID") == "" || h.Get("Message-ID") != e.MessageID || !strings.HasSuffix(e.MessageID, "@acme.test>") {
				t.Errorf("Message-ID %q, stored %q", h.Get("Message-ID"), e.MessageID)
			}
			if d, err := h.Date(); err != nil || time.Since(d) > time.Minute {
				t.Errorf("Date %q: %v", h.Get("Date"), err)
			}
			ps := parts(t, h.Get("Content-Type"), m.Body)
			if !strings.Contains(ps["text/plain"], "Plain hello") || !strings.Contains(ps["text/html"], "<p>HTML <b>hello</b></p>") {
				t.Errorf("parts: %q", ps)
			}
			lu, lup := h.Get("List-Unsubscribe"), h.Get("List-Unsubscribe-Post")
			if !c.bulk {
				if lu != "" || lup != "" {
					t.Errorf("transactional mail carries List-Unsubscribe %q %q", lu, lup)
				}
				continue
			}
			if lu != "<"+baseURL+"/unsubscribe/"+e.UnsubscribeToken+">" || e.UnsubscribeToken == "" || lup != "List-Unsubscribe=One-Click" {
				t.Errorf("List-Unsubscribe %q, List-Unsubscribe-Post %q (token %q)", lu, lup, e.UnsubscribeToken)
			}
		}
		// Nothing goes twice.
		if st, _ := f.sender().Sweep(ctx); st.Sent != 0 || len(rv.Messages()) != 2 {
			t.Fatalf("second sweep sent again: %+v", st)
		}
	})
}

func TestTemporaryFailureIsRetried(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		rv := newReceiver(t)
		rv.rcpt = func(n int) error {
			if n == 1 {
				return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Greylisted, try later"}
			}
			return nil
		}
		f := newFixture(t, db, rv)
		id := f.enqueue(t, hello("ann@example.test"))
		s := f.sender(func(c *mail.Config) { c.Backoff, c.MaxBackoff = time.Hour, time.Hour })
		if st, err := s.Sweep(context.Background()); err != nil || st.Retried != 1 {
			t.Fatalf("first sweep: %+v %v", st, err)
		}
		e := f.email(t, id)
		if e.Status != store.EmailQueued || e.Attempts != 1 || !strings.Contains(e.LastError, "451") ||
			!strings.Contains(e.LastError, "Greylisted") || time.Until(e.NextAttemptAt) < 50*time.Minute {
			t.Fatalf("after a 451: %+v", e)
		}
		// Not due yet: the next sweep leaves it.
		if st, _ := s.Sweep(context.Background()); st != (mail.Stats{}) {
			t.Fatalf("swept a message not due: %+v", st)
		}
		// An hour later (the row back-dated by the schema's owner), it goes.
		if err := storetest.Owner(t, db).RunInTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
			_, err := tx.NewUpdate().Table("emails").Set("next_attempt_at = ?", time.Now().UTC().Add(-time.Second)).Where("id = ?", id).Exec(ctx)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if st, err := s.Sweep(context.Background()); err != nil || st.Sent != 1 {
			t.Fatalf("sweep when due: %+v %v", st, err)
		}
		if e := f.email(t, id); e.Status != store.EmailSent || len(rv.Messages()) != 1 || e.Attempts != 2 || e.LastError != "" {
			t.Fatalf("after the retry: %d received, %+v", len(rv.Messages()), e)
		}
	})
}

func TestPermanentFailureKeepsTheAnswer(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		rv := newReceiver(t)
		rv.rcpt = func(int) error {
			return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such mailbox here"}
		}
		f := newFixture(t, db, rv)
		id := f.enqueue(t, hello("nobody@example.test"))
		ok := f.enqueue(t, hello("ann@example.test"))
		rv.rcpt = func(n int) error {
			if n == 1 {
				return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such mailbox here"}
			}
			return nil
		}
		st, err := f.sender().Sweep(context.Background())
		if err != nil || st.Failed != 1 || st.Sent != 1 {
			t.Fatalf("sweep: %+v %v", st, err)
		}
		e := f.email(t, id)
		if e.Status != store.EmailFailed || !strings.Contains(e.LastError, "550") || !strings.Contains(e.LastError, "No such mailbox here") {
			t.Fatalf("after a 550: %+v", e)
		}
		if f.email(t, ok).Status != store.EmailSent {
			t.Fatal("the message after the refused one was not sent on a new connection")
		}
		if st, _ := f.sender().Sweep(context.Background()); st != (mail.Stats{}) {
			t.Fatalf("a failed message was tried again: %+v", st)
		}
	})
}

func TestDroppedConnectionIsRetriedAndSentOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		rv := newReceiver(t)
		rv.data = func(n int, c *smtp.Conn, r io.Reader) error {
			if n == 1 { // read a little of the message, then hang up
				_, _ = io.ReadFull(r, make([]byte, 20))
				_ = c.Conn().Close()
				return errors.New("dropped")
			}
			return nil
		}
		f := newFixture(t, db, rv)
		id := f.enqueue(t, hello("ann@example.test"))
		s := f.sender()
		if st, err := s.Sweep(context.Background()); err != nil || st.Retried != 1 {
			t.Fatalf("first sweep: %+v %v", st, err)
		}
		if e := f.email(t, id); e.Status != store.EmailQueued || e.LastError == "" {
			t.Fatalf("after the drop: %+v", e)
		}
		sweepUntil(t, s, func() bool { return f.email(t, id).Status == store.EmailSent })
		if got := rv.Messages(); len(got) != 1 || got[0].Header.Get("Message-ID") != f.email(t, id).MessageID {
			t.Fatalf("received %d complete messages, want 1 with the stored Message-ID", len(got))
		}
	})
}

func TestGivesUpAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		rv := newReceiver(t)
		rv.rcpt = func(int) error { return &smtp.SMTPError{Code: 421, Message: "Service busy"} }
		f := newFixture(t, db, rv)
		id := f.enqueue(t, hello("ann@example.test"))
		s := f.sender(func(c *mail.Config) { c.MaxAttempts = 3 })
		sweepUntil(t, s, func() bool { return f.email(t, id).Status != store.EmailQueued && f.email(t, id).Attempts >= 3 })
		if e := f.email(t, id); e.Status != store.EmailFailed || e.Attempts != 3 || !strings.Contains(e.LastError, "gave up after 3 attempts") {
			t.Fatalf("%+v", e)
		}
	})
}

func TestWithoutServerMessagesWaitThenGo(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db, nil)
		id := f.enqueue(t, hello("ann@example.test"))
		s := f.sender()
		if st, err := s.Sweep(context.Background()); err != nil || st != (mail.Stats{}) {
			t.Fatalf("sweep without a server: %+v %v", st, err)
		}
		if e := f.email(t, id); e.Status != store.EmailQueued || e.LastError != store.NoMailServer || e.Attempts != 0 {
			t.Fatalf("without a server: %+v", e)
		}
		rv := newReceiver(t)
		f.configure(t, rv)
		if st, err := s.Sweep(context.Background()); err != nil || st.Sent != 1 {
			t.Fatalf("sweep once configured: %+v %v", st, err)
		}
		if e := f.email(t, id); e.Status != store.EmailSent || e.LastError != "" || len(rv.Messages()) != 1 {
			t.Fatalf("once configured: %+v", e)
		}

		// The server-wide SMTP_URL serves a tenant without a server of its own.
		g := newFixture(t, db, nil)
		rv2 := newReceiver(t)
		fb, err := mail.ParseURL(fmt.Sprintf("smtp://%s:%d?security=none&from=crm@example.test", rv2.Host, rv2.Port))
		if err != nil {
			t.Fatal(err)
		}
		id2 := g.enqueue(t, hello("bob@example.test"))
		if _, err := g.sender(func(c *mail.Config) { c.Fallback = fb }).Sweep(context.Background()); err != nil {
			t.Fatal(err)
		}
		if e := g.email(t, id2); e.Status != store.EmailSent || len(rv2.Messages()) != 1 || rv2.Messages()[0].Header.Get("From") != "<crm@example.test>" {
			t.Fatalf("through SMTP_URL: %+v", e)
		}
	})
}

func TestTwoSendersSendEachMessageOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		rv := newReceiver(t)
		f := newFixture(t, db, rv)
		const n = 120
		for i := range n {
			f.enqueue(t, hello(fmt.Sprintf("p%d@example.test", i)))
		}
		var wg sync.WaitGroup
		for range 2 {
			s := f.sender(func(c *mail.Config) { c.Batch = 7 })
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 3 {
					if _, err := s.Sweep(context.Background()); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		got := rv.Messages()
		seen := map[string]int{}
		for _, m := range got {
			seen[m.Header.Get("Message-ID")]++
		}
		if len(got) != n || len(seen) != n {
			t.Fatalf("received %d messages with %d distinct Message-IDs, want %d", len(got), len(seen), n)
		}
		page, err := f.s.ListEmails(context.Background(), store.EmailQuery{Status: store.EmailSent, Limit: 100})
		if err != nil || page.Total != n {
			t.Fatalf("sent in the history: %v %v", page.Total, err)
		}
	})
}

func TestUnsubscribedAddressGetsNoBulkMail(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		rv := newReceiver(t)
		f := newFixture(t, db, rv)
		ctx := context.Background()
		bulk := hello("Ann@Example.test")
		bulk.Kind = store.EmailBulk
		first := f.enqueue(t, bulk)
		queued := f.enqueue(t, bulk)
		tok := f.email(t, first).UnsubscribeToken
		// A token is bound to its tenant: another tenant's prefix, or a changed secret, finds nothing.
		if _, err := db.EmailByUnsubscribeToken(ctx, "999"+tok[strings.IndexByte(tok, '.'):]); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("token under another tenant: %v", err)
		}
		if _, err := db.EmailByUnsubscribeToken(ctx, tok[:len(tok)-2]+"xx"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("altered token: %v", err)
		}
		if _, err := db.Unsubscribe(ctx, tok); err != nil {
			t.Fatal(err)
		}
		later := f.enqueue(t, bulk)
		tx := f.enqueue(t, hello("ann@example.test")) // transactional mail still goes
		if _, err := f.sender().Sweep(ctx); err != nil {
			t.Fatal(err)
		}
		for _, id := range []int64{first, queued, later} {
			if e := f.email(t, id); e.Status != store.EmailUnsubscribed {
				t.Fatalf("bulk message %d to an unsubscribed address: %s", id, e.Status)
			}
		}
		if f.email(t, tx).Status != store.EmailSent || len(rv.Messages()) != 1 {
			t.Fatal("the transactional message was not sent")
		}
	})
}

func TestHeaderInjectionRefused(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db, nil)
		for field, in := range map[string]store.EmailInput{
			"subject":   {To: "a@example.test", Subject: "Hi\r\nBcc: victim@example.test", Text: "x"},
			"to":        {To: "a@example.test\r\nBcc: victim@example.test", Subject: "Hi", Text: "x"},
			"to_name":   {To: "a@example.test", ToName: "Ann\nBcc: victim@example.test", Subject: "Hi", Text: "x"},
			"from_name": {To: "a@example.test", FromName: "CRM\rX-Evil: 1", Subject: "Hi", Text: "x"},
			"from":      {To: "a@example.test", From: "crm@example.test\nBcc: v@example.test", Subject: "Hi", Text: "x"},
		} {
			_, err := f.s.EnqueueEmail(context.Background(), in)
			var ve validate.Errors
			if !errors.As(err, &ve) || ve[field] == "" {
				t.Errorf("%s with CR/LF: %v, want a field error on %s", field, err, field)
			}
		}
		err := f.s.SaveMailSettings(context.Background(), store.MailSettings{Host: "smtp.example.test", Port: 587, Security: "starttls",
			FromAddress: "crm@example.test", FromName: "CRM\r\nBcc: v@example.test"})
		var ve validate.Errors
		if !errors.As(err, &ve) || ve["from_name"] == "" {
			t.Errorf("settings' from name with CR/LF: %v", err)
		}
	})
}

func TestParseURL(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]mail.Server{
		"smtp://u:p%40ss@mail.example.test:2525?security=starttls&from=crm@example.test&from_name=CRM": {Host: "mail.example.test", Port: 2525, Security: "starttls", Username: "u", Password: "p@ss", From: "crm@example.test", FromName: "CRM"},
		"smtps://mail.example.test":           {Host: "mail.example.test", Port: 465, Security: "tls", From: "no-reply@mail.example.test"},
		"smtp://mail.example.test":            {Host: "mail.example.test", Port: 587, Security: "starttls", From: "no-reply@mail.example.test"},
		"smtp://relay.local:25?security=none": {Host: "relay.local", Port: 25, Security: "none", From: "no-reply@relay.local"},
		"smtp://mail.example.test:465":        {Host: "mail.example.test", Port: 465, Security: "tls", From: "no-reply@mail.example.test"},
	} {
		got, err := mail.ParseURL(raw)
		if err != nil || *got != want {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v", raw, got, err, want)
		}
	}
	for _, bad := range []string{"http://mail.example.test", "smtp://", "smtp://h:0", "smtp://h?security=ssl", "smtp://h?from=not-an-address", "smtp://h?from_name=a%0Db"} {
		if _, err := mail.ParseURL(bad); err == nil {
			t.Errorf("ParseURL(%q) accepted", bad)
		}
	}
}

// TestThroughput measures how many messages a second one sender delivers to the local
// in-process SMTP server (one connection per sweep batch). The figure is for
// docs/PERFORMANCE.md: go test -run Throughput -v ./app/mail/.
func TestThroughput(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		rv := newReceiver(t)
		f := newFixture(t, db, rv)
		n := 1000
		if race.Enabled { // a measure of speed; under the detector, only that one sweep sends all
			n = 100
		}
		for i := range n {
			f.enqueue(t, hello(fmt.Sprintf("p%d@example.test", i)))
		}
		start := time.Now()
		st, err := f.sender(func(c *mail.Config) { c.PerTenant = n }).Sweep(context.Background()) // one sweep, no rate limit
		elapsed := time.Since(start)
		if err != nil || st.Sent != n || len(rv.Messages()) != n {
			t.Fatalf("sent %+v, received %d: %v", st, len(rv.Messages()), err)
		}
		t.Logf("%s: %d messages in %s: %.0f messages/s", db.Dialect, n, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds())
	})
}

// A sender that claims a message and dies: the message stays sending while the lease
// holds, then another sender sends it; the dead one's claim can neither renew nor finish.
func TestExpiredLeaseIsRetriedOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		rv := newReceiver(t)
		f := newFixture(t, db, rv)
		ctx := context.Background()
		id := f.enqueue(t, hello("ann@example.test"))
		dead, err := f.s.ClaimEmails(ctx, time.Now(), time.Hour, 10)
		if err != nil || len(dead) != 1 {
			t.Fatalf("claim: %v %v", dead, err)
		}
		if st, _ := f.sender().Sweep(ctx); st != (mail.Stats{}) || f.email(t, id).Status != store.EmailSending {
			t.Fatalf("a message under a live lease was taken: %+v", st)
		}
		// The lease runs out (back-dated by the schema's owner).
		if err := storetest.Owner(t, db).RunInTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			_, err := tx.NewUpdate().Table("emails").Set("lease_until = ?", time.Now().UTC().Add(-time.Second)).Where("id = ?", id).Exec(ctx)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if st, err := f.sender().Sweep(ctx); err != nil || st.Sent != 1 {
			t.Fatalf("sweep after the lease: %+v %v", st, err)
		}
		if ok, _ := f.s.RenewEmail(ctx, id, dead[0].Claim, "<x@y>", time.Now(), time.Hour); ok {
			t.Fatal("the dead sender's claim renewed")
		}
		if err := f.s.FinishEmail(ctx, id, dead[0].Claim, store.EmailOutcome{Status: store.EmailFailed, Error: "late"}); err != nil {
			t.Fatal(err)
		}
		if e := f.email(t, id); e.Status != store.EmailSent || e.Attempts != 2 || len(rv.Messages()) != 1 {
			t.Fatalf("after the late report: %+v, %d received", e, len(rv.Messages()))
		}
	})
}

// TestPerTenantRate: a sweep sends at most PerTenant messages of a tenant; the rest go at
// the next sweeps.
func TestPerTenantRate(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		rv := newReceiver(t)
		f := newFixture(t, db, rv)
		for i := 0; i < 5; i++ {
			in := hello(fmt.Sprintf("r%d@example.test", i))
			in.Kind = store.EmailBulk
			f.enqueue(t, in)
		}
		s := f.sender(func(c *mail.Config) { c.PerTenant, c.Batch = 3, 2 })
		for _, want := range []int{3, 2, 0} {
			st, err := s.Sweep(context.Background())
			if err != nil || st.Sent != want {
				t.Fatalf("sweep sent %+v, want %d: %v", st, want, err)
			}
		}
	})
}
