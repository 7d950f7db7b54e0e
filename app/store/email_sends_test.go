package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"crm/app/store"
	"crm/app/store/storetest"
)

// TestEmailSend sends a template to leads: the audience's counts, then the run's: messages
// queued as bulk mail with each lead's rendered content, leads without an email and
// unsubscribed addresses skipped, another tenant's leads never included.
func TestEmailSend(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tn, u := newTenant(t, db, "Acme", "a@acme.test")
		s := db.System(tn.ID, u.ID)
		tpl, err := s.CreateEmailTemplate(ctx, store.EmailTemplateInput{Name: "News", Subject: "News for {{customer_name}}", Body: "Hello **{{customer_name}}** of {{company_name}}"})
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for i, email := range []string{"one@x.test", "two@x.test", "gone@x.test", "four@x.test"} {
			l, _, err := s.CreateLead(ctx, store.LeadInput{Contact: store.Contact{CustomerName: fmt.Sprintf("Lead %d", i), CompanyName: "Co", CompanyEmail: email}}, "", "")
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, l.ID)
		}
		// The second lead has no email (leads from other channels may not), gone@x.test
		// unsubscribed earlier.
		if _, err := s.Update((*store.Lead)(nil)).Set("company_email = ''").Where("l.id = ?", ids[1]).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		eid, err := s.EnqueueEmail(ctx, store.EmailInput{To: "GONE@x.test", Subject: "s", Text: "t", Kind: store.EmailBulk})
		if err != nil {
			t.Fatal(err)
		}
		e, _ := s.Email(ctx, eid)
		if _, err := db.Unsubscribe(ctx, e.UnsubscribeToken); err != nil {
			t.Fatal(err)
		}
		tn2, u2 := newTenant(t, db, "Other", "o@other.test")
		other, _, err := db.System(tn2.ID, u2.ID).CreateLead(ctx, store.LeadInput{Contact: store.Contact{CustomerName: "Foreign", CompanyEmail: "f@o.test"}}, "", "")
		if err != nil {
			t.Fatal(err)
		}
		all := append(append([]int64{}, ids...), other.ID+1000, other.ID)
		a, err := s.SendAudience(ctx, all)
		if err != nil {
			t.Fatal(err)
		}
		// The foreign lead's id may equal one of ours on SQLite's shared sequence: count ours.
		if a.NoEmail != 1 || a.Unsubscribed != 1 || a.Leads != 4 || a.Recipients() != 2 {
			t.Fatalf("audience %+v", a)
		}
		send, err := s.CreateEmailSend(ctx, tpl.ID, all)
		if err != nil {
			t.Fatal(err)
		}
		if send.Total != 4 {
			t.Fatalf("total %d", send.Total)
		}
		if _, err := db.System(tn2.ID, u2.ID).EmailSend(ctx, send.ID); err == nil {
			t.Fatal("another tenant sees the send")
		}
		if err := s.RunEmailSend(ctx, send.ID, nil); err != nil {
			t.Fatal(err)
		}
		send, _ = s.EmailSend(ctx, send.ID)
		if send.Status != store.SendDone || send.Queued != 2 || send.SkippedNoEmail != 1 || send.SkippedUnsubscribed != 1 || send.Processed != 4 {
			t.Fatalf("send %+v", send)
		}
		page, err := s.ListEmails(ctx, store.EmailQuery{Kind: store.EmailBulk, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]store.Email{}
		for _, e := range page.Rows {
			if e.Purpose == store.PurposeCampaign {
				got[e.ToAddress] = e
			}
		}
		if len(got) != 3 || got["f@o.test"].ID != 0 {
			t.Fatalf("messages %v", got)
		}
		one := got["one@x.test"]
		if one.Status != store.EmailQueued || one.Subject != "News for Lead 0" || !strings.Contains(one.BodyHTML, "<strong>Lead 0</strong> of Co") ||
			one.LeadID == nil || *one.LeadID != ids[0] || one.UnsubscribeToken == "" {
			t.Fatalf("message %+v", one)
		}
		if got["gone@x.test"].Status != store.EmailUnsubscribed {
			t.Fatalf("unsubscribed address: %+v", got["gone@x.test"])
		}
		// A second run does nothing more.
		if err := s.RunEmailSend(ctx, send.ID, nil); err != nil {
			t.Fatal(err)
		}
		if again, _ := s.EmailSend(ctx, send.ID); again.Queued != 2 {
			t.Fatalf("rerun %+v", again)
		}
	})
}

// TestEmailSendTenThousand measures a 10,000-recipient send: creating it and enqueuing
// every message in batches of store.SendBatch.
func TestEmailSendTenThousand(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tn, u := newTenant(t, db, "Big", "b@big.test")
		s := db.System(tn.ID, u.ID)
		tpl, err := s.CreateEmailTemplate(ctx, store.EmailTemplateInput{Name: "N", Subject: "Hi {{customer_name}}",
			Body: "Dear {{customer_name}},\n\nnews from **{{company_profile_name}}** for {{company_name}} ({{stage_name}}).\n\n{{owner_name}}"})
		if err != nil {
			t.Fatal(err)
		}
		const n = 10000
		rows := make([]store.Lead, n)
		for i := range rows {
			rows[i] = store.Lead{Contact: store.Contact{CustomerName: fmt.Sprintf("Lead %d", i), CompanyName: "Co", CompanyEmail: fmt.Sprintf("l%d@x.test", i), OwnerID: &u.ID}}
		}
		for i := 0; i < n; i += 1000 {
			chunk := rows[i : i+1000]
			if _, err := s.Insert(&chunk).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		var ids []int64
		if err := s.Select((*store.Lead)(nil)).Column("l.id").Scan(ctx, &ids); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		send, err := s.CreateEmailSend(ctx, tpl.ID, ids)
		if err != nil {
			t.Fatal(err)
		}
		created := time.Since(start)
		if err := s.RunEmailSend(ctx, send.ID, nil); err != nil {
			t.Fatal(err)
		}
		total := time.Since(start)
		send, _ = s.EmailSend(ctx, send.ID)
		if send.Queued != n || send.Status != store.SendDone {
			t.Fatalf("send %+v", send)
		}
		t.Logf("%s: 10,000-recipient send: created in %v, rendered and enqueued in %v (%.0f messages/s)", db.Dialect, created, total, n/total.Seconds())
	})
}
