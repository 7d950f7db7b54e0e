package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"crm/app/store"
	"crm/app/store/storetest"
)

func TestKitOccurrence(t *testing.T) {
	t.Parallel()
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	at := func(loc *time.Location, y int, m time.Month, d, hh, mm int) time.Time {
		return time.Date(y, m, d, hh, mm, 0, 0, loc)
	}
	for _, c := range []struct {
		name     string
		start    time.Time
		interval store.KitInterval
		n        int
		want     time.Time
		none     bool
	}{
		{"once, first", at(time.UTC, 2026, 5, 4, 9, 0), store.IntervalOnce, 0, at(time.UTC, 2026, 5, 4, 9, 0), false},
		{"once, no second", at(time.UTC, 2026, 5, 4, 9, 0), store.IntervalOnce, 1, time.Time{}, true},
		{"daily", at(time.UTC, 2026, 12, 30, 9, 0), store.IntervalDaily, 3, at(time.UTC, 2027, 1, 2, 9, 0), false},
		{"weekly", at(time.UTC, 2026, 12, 28, 9, 0), store.IntervalWeekly, 1, at(time.UTC, 2027, 1, 4, 9, 0), false},
		{"monthly from the 31st: February's last day", at(time.UTC, 2027, 1, 31, 9, 0), store.IntervalMonthly, 1, at(time.UTC, 2027, 2, 28, 9, 0), false},
		{"monthly from the 31st: back to the 31st", at(time.UTC, 2027, 1, 31, 9, 0), store.IntervalMonthly, 2, at(time.UTC, 2027, 3, 31, 9, 0), false},
		{"monthly from the 31st: April's 30th", at(time.UTC, 2027, 1, 31, 9, 0), store.IntervalMonthly, 3, at(time.UTC, 2027, 4, 30, 9, 0), false},
		{"monthly from the 31st: leap February", at(time.UTC, 2028, 1, 31, 9, 0), store.IntervalMonthly, 1, at(time.UTC, 2028, 2, 29, 9, 0), false},
		{"monthly from the 30th over the year's end", at(time.UTC, 2026, 11, 30, 9, 0), store.IntervalMonthly, 3, at(time.UTC, 2027, 2, 28, 9, 0), false},
		{"quarterly from the 30th of November", at(time.UTC, 2026, 11, 30, 9, 0), store.IntervalQuarterly, 1, at(time.UTC, 2027, 2, 28, 9, 0), false},
		{"quarterly does not drift", at(time.UTC, 2026, 11, 30, 9, 0), store.IntervalQuarterly, 2, at(time.UTC, 2027, 5, 30, 9, 0), false},
		{"yearly from 29 February", at(time.UTC, 2028, 2, 29, 9, 0), store.IntervalYearly, 1, at(time.UTC, 2029, 2, 28, 9, 0), false},
		{"yearly from 29 February, next leap year", at(time.UTC, 2028, 2, 29, 9, 0), store.IntervalYearly, 4, at(time.UTC, 2032, 2, 29, 9, 0), false},
		// Paris moves to summer time on 29 March 2026: 09:00 stays 09:00 on the wall clock (08:00 → 07:00 UTC).
		{"weekly across spring DST keeps the wall clock", at(paris, 2026, 3, 23, 9, 0), store.IntervalWeekly, 1, at(paris, 2026, 3, 30, 9, 0), false},
		{"daily across spring DST", at(paris, 2026, 3, 28, 9, 0), store.IntervalDaily, 1, at(paris, 2026, 3, 29, 9, 0), false},
		// New York falls back on 1 November 2026.
		{"daily across autumn DST", at(ny, 2026, 10, 31, 18, 30), store.IntervalDaily, 2, at(ny, 2026, 11, 2, 18, 30), false},
		{"monthly across DST", at(paris, 2026, 1, 15, 9, 0), store.IntervalMonthly, 5, at(paris, 2026, 6, 15, 9, 0), false},
		// 02:30 does not exist on 29 March 2026 in Paris; the day after it does again.
		{"a time the gap skips comes back the next day", at(paris, 2026, 3, 28, 2, 30), store.IntervalDaily, 2, at(paris, 2026, 3, 30, 2, 30), false},
	} {
		got, ok := store.KitOccurrence(c.start.UTC(), c.interval, c.start.Location(), c.n)
		if c.none {
			if ok {
				t.Errorf("%s: got %v, want none", c.name, got)
			}
			continue
		}
		if !ok || !got.Equal(c.want) {
			t.Errorf("%s: got %v (%v), want %v", c.name, got, ok, c.want)
		}
		if ok && got.In(c.start.Location()).Hour() != c.want.Hour() {
			t.Errorf("%s: wall clock %v, want %v", c.name, got.In(c.start.Location()), c.want)
		}
	}
	// The wall clock is kept, so the UTC time moves with DST.
	a, _ := store.KitOccurrence(at(paris, 2026, 3, 23, 9, 0), store.IntervalWeekly, paris, 0)
	b, _ := store.KitOccurrence(at(paris, 2026, 3, 23, 9, 0), store.IntervalWeekly, paris, 1)
	if a.UTC().Hour() != 8 || b.UTC().Hour() != 7 {
		t.Errorf("UTC hours %d and %d, want 8 and 7", a.UTC().Hour(), b.UTC().Hour())
	}
}

// kitEnv is a tenant with a lead (with an email), an email template and a user in Paris.
type kitEnv struct {
	db       *store.DB
	s        store.Scope
	tenantID int64
	ownerID  int64
	leadID   int64
	tmplID   int64
}

func newKitEnv(t *testing.T, db *store.DB, name string) kitEnv {
	t.Helper()
	ctx := context.Background()
	tn, u := newTenant(t, db, name, "boss@"+name+".test")
	s := db.System(tn.ID, u.ID)
	lead, _, err := s.CreateLead(ctx, store.LeadInput{Contact: store.Contact{CustomerName: "Ada " + name, CompanyEmail: "ada@" + name + ".test"}}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := s.CreateEmailTemplate(ctx, store.EmailTemplateInput{Name: "Hello", Subject: "Hello {{customer_name}}", Body: "Dear {{customer_name}}, how are you?"})
	if err != nil {
		t.Fatal(err)
	}
	return kitEnv{db: db, s: s, tenantID: tn.ID, ownerID: u.ID, leadID: lead.ID, tmplID: tmpl.ID}
}

func (e kitEnv) plan(t *testing.T, typ store.KitType, interval store.KitInterval, start time.Time) *store.KeepInTouchView {
	t.Helper()
	in := store.KeepInTouchInput{Entity: store.EntityLead, RecordID: e.leadID, Type: typ, Interval: interval,
		Start: start.UTC().Format(store.KitStartLayout)}
	if typ == store.KitEmail {
		in.TemplateID = e.tmplID
	}
	p, err := e.s.CreateKeepInTouch(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (e kitEnv) emails(t *testing.T) []store.Email {
	t.Helper()
	page, err := e.s.ListEmails(context.Background(), store.EmailQuery{LeadID: e.leadID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return page.Rows
}

func (e kitEnv) kitReminders(t *testing.T) []store.ReminderView {
	t.Helper()
	rows, err := e.s.Reminders(context.Background(), e.leadID)
	if err != nil {
		t.Fatal(err)
	}
	var out []store.ReminderView
	for _, r := range rows {
		if r.KitID != nil {
			out = append(out, r)
		}
	}
	return out
}

// TestKitWorkerProducesEachOccurrenceOnce runs two workers at once over due plans of two
// tenants: every due occurrence is produced, none twice, and the plans move on.
func TestKitWorkerProducesEachOccurrenceOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		envs := []kitEnv{newKitEnv(t, db, "acme"), newKitEnv(t, db, "globex")}
		start := time.Now().Add(time.Hour).Truncate(time.Minute)
		for _, e := range envs {
			for i := 0; i < 6; i++ {
				e.plan(t, store.KitCall, store.IntervalWeekly, start)
				e.plan(t, store.KitEmail, store.IntervalDaily, start)
			}
			e.plan(t, store.KitMeeting, store.IntervalWeekly, start.Add(48*time.Hour)) // not due
		}
		due := start.Add(time.Minute) // one occurrence of each plan but the last is due
		var wg sync.WaitGroup
		var mu sync.Mutex
		total := 0
		for w := 0; w < 2; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := db.ProduceDueKit(ctx, due, store.KitHooks{})
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				total += n
				mu.Unlock()
			}()
		}
		wg.Wait()
		if n, err := db.ProduceDueKit(ctx, due, store.KitHooks{}); err != nil || n != 0 {
			t.Fatalf("a third sweep produced %d (%v), want 0", n, err)
		}
		if total != 24 {
			t.Fatalf("produced %d occurrences, want 24", total)
		}
		for _, e := range envs {
			if got := len(e.kitReminders(t)); got != 6 {
				t.Errorf("tenant %d: %d reminders, want 6", e.tenantID, got)
			}
			mails := e.emails(t)
			if len(mails) != 6 {
				t.Fatalf("tenant %d: %d emails, want 6", e.tenantID, len(mails))
			}
			for _, m := range mails {
				if m.Subject != "Hello Ada "+map[int64]string{envs[0].tenantID: "acme", envs[1].tenantID: "globex"}[e.tenantID] ||
					m.Kind != store.EmailBulk || m.Status != store.EmailQueued || m.ToAddress == "" {
					t.Errorf("email %+v", m)
				}
			}
			plans, _, err := e.s.KeepInTouchList(ctx, store.KitFilter{Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range plans {
				if p.Type == store.KitMeeting {
					if p.Seq != 0 {
						t.Errorf("the plan not due moved: %+v", p.KeepInTouch)
					}
					continue
				}
				step := 7 * 24 * time.Hour
				if p.Type == store.KitEmail {
					step = 24 * time.Hour
				}
				if p.Seq != 1 || p.NextAt == nil || !p.NextAt.Equal(start.Add(step).UTC()) || p.LastAt == nil {
					t.Errorf("plan %d: seq %d next %v, want 1 and %v", p.ID, p.Seq, p.NextAt, start.Add(step))
				}
			}
		}
	})
}

// TestKitWorkerKilledAfterClaim stops the worker between its claim of a plan and the
// production of the occurrence: nothing is produced, the plan stays due, and the next sweep
// produces it once.
func TestKitWorkerKilledAfterClaim(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newKitEnv(t, db, "initech")
		start := time.Now().Add(time.Hour).Truncate(time.Minute)
		mail := e.plan(t, store.KitEmail, store.IntervalMonthly, start)
		call := e.plan(t, store.KitCall, store.IntervalMonthly, start)
		due := start.Add(time.Minute)

		for range 2 { // killed twice in a row: still nothing produced
			ctx, cancel := context.WithCancel(context.Background())
			claimed := 0
			_, err := db.ProduceDueKit(ctx, due, store.KitHooks{AfterClaim: func(context.Context, *store.KeepInTouch) {
				claimed++
				cancel()
			}})
			cancel()
			if err == nil || claimed != 1 {
				t.Fatalf("killed worker: err %v after %d claims, want an error after 1", err, claimed)
			}
			if n := len(e.emails(t)) + len(e.kitReminders(t)); n != 0 {
				t.Fatalf("a killed worker produced %d occurrences", n)
			}
			for _, id := range []int64{mail.ID, call.ID} {
				p, err := e.s.KeepInTouch(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				if p.Seq != 0 || !p.NextAt.Equal(start.UTC()) {
					t.Fatalf("a killed worker moved plan %d: %+v", id, p.KeepInTouch)
				}
			}
		}
		// Restarted: each occurrence once.
		if n, err := db.ProduceDueKit(context.Background(), due, store.KitHooks{}); err != nil || n != 2 {
			t.Fatalf("restart produced %d (%v), want 2", n, err)
		}
		if n, err := db.ProduceDueKit(context.Background(), due, store.KitHooks{}); err != nil || n != 0 {
			t.Fatalf("another sweep produced %d (%v), want 0", n, err)
		}
		if len(e.emails(t)) != 1 || len(e.kitReminders(t)) != 1 {
			t.Fatalf("%d emails and %d reminders, want 1 and 1", len(e.emails(t)), len(e.kitReminders(t)))
		}
		rm := e.kitReminders(t)[0]
		if rm.AssigneeID != e.ownerID || !rm.DueAt.Equal(start.UTC()) || rm.Title != "Call: Ada initech" {
			t.Errorf("reminder %+v", rm.Reminder)
		}
	})
}

// TestKitSendNow produces the next email at once and moves the schedule by one
// occurrence: the worker does not send it again, and the next one comes on time.
func TestKitSendNow(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newKitEnv(t, db, "umbrella")
		start := time.Now().Add(time.Hour).Truncate(time.Minute)
		p := e.plan(t, store.KitEmail, store.IntervalWeekly, start)
		got, err := e.s.SendKeepInTouchNow(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(e.emails(t)) != 1 {
			t.Fatalf("%d emails, want 1", len(e.emails(t)))
		}
		if got.Seq != 1 || !got.NextAt.Equal(start.Add(7*24*time.Hour).UTC()) {
			t.Fatalf("after send now: seq %d next %v, want 1 and a week after the start", got.Seq, got.NextAt)
		}
		if n, err := db.ProduceDueKit(ctx, start.Add(time.Minute), store.KitHooks{}); err != nil || n != 0 {
			t.Fatalf("the worker produced %d (%v) at the sent occurrence's time, want 0", n, err)
		}
		if n, err := db.ProduceDueKit(ctx, start.Add(7*24*time.Hour+time.Minute), store.KitHooks{}); err != nil || n != 1 {
			t.Fatalf("the worker produced %d (%v) a week later, want 1", n, err)
		}
		if len(e.emails(t)) != 2 {
			t.Fatalf("%d emails, want 2", len(e.emails(t)))
		}
		// A one-off plan sent now is finished: a second send is refused.
		once := e.plan(t, store.KitEmail, store.IntervalOnce, start)
		if _, err := e.s.SendKeepInTouchNow(ctx, once.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := e.s.SendKeepInTouchNow(ctx, once.ID); !errors.Is(err, store.ErrKitFinished) {
			t.Fatalf("second send of a one-off plan: %v, want finished", err)
		}
	})
}

// TestKitPlansFollowConversionAndStopWithTheLead: converting a lead moves its plans to the
// client; deleting a lead deletes its plans, so the worker produces nothing for it.
func TestKitPlansFollowConversionAndStopWithTheLead(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newKitEnv(t, db, "hooli")
		start := time.Now().Add(time.Hour).Truncate(time.Minute)
		p := e.plan(t, store.KitCall, store.IntervalWeekly, start)
		c, err := e.s.ConvertLead(ctx, e.leadID)
		if err != nil {
			t.Fatal(err)
		}
		moved, err := e.s.KeepInTouch(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if moved.LeadID != nil || moved.ClientID == nil || *moved.ClientID != c.ID {
			t.Fatalf("after conversion: lead %v client %v, want the client %d", moved.LeadID, moved.ClientID, c.ID)
		}
		// The client's call reminder goes to the client itself; the lead it came from gets none.
		if n, err := db.ProduceDueKit(ctx, start.Add(time.Minute), store.KitHooks{}); err != nil || n != 1 {
			t.Fatalf("produced %d (%v), want 1", n, err)
		}
		if len(e.kitReminders(t)) != 0 {
			t.Fatalf("%d reminders on the lead, want 0", len(e.kitReminders(t)))
		}
		if rows, err := e.s.RemindersOf(ctx, store.EntityClient, c.ID); err != nil || len(rows) != 1 || rows[0].KitID == nil || *rows[0].KitID != p.ID {
			t.Fatalf("reminders on the client: %+v %v, want the plan's one", rows, err)
		}

		other, _, err := e.s.CreateLead(ctx, store.LeadInput{Contact: store.Contact{CustomerName: "Gone", CompanyEmail: "gone@hooli.test"}}, "", "")
		if err != nil {
			t.Fatal(err)
		}
		gone, err := e.s.CreateKeepInTouch(ctx, store.KeepInTouchInput{Entity: store.EntityLead, RecordID: other.ID, Type: store.KitEmail,
			TemplateID: e.tmplID, Interval: store.IntervalDaily, Start: start.UTC().Format(store.KitStartLayout)})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.s.DeleteLead(ctx, other.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := e.s.KeepInTouch(ctx, gone.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the deleted lead's plan: %v, want not found", err)
		}
		if n, err := db.ProduceDueKit(ctx, start.Add(2*time.Hour), store.KitHooks{}); err != nil || n != 0 {
			t.Fatalf("produced %d (%v) after the lead was deleted, want 0", n, err)
		}
	})
}

// TestKitScheduleFromNow: a plan whose start is past begins at its first occurrence from
// now, in the owner's time zone; a one-off in the past is refused.
func TestKitScheduleFromNow(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newKitEnv(t, db, "wayne")
		if _, err := e.s.UpdateProfile(ctx, store.ProfileInput{Name: "Boss", TimeZone: "Asia/Tokyo"}); err != nil {
			t.Fatal(err)
		}
		tokyo, _ := time.LoadLocation("Asia/Tokyo")
		past := time.Now().In(tokyo).AddDate(0, -3, 0)
		// The first occurrence may be in the minute of now (the store counts from now to
		// the minute), which has passed by the check below if now was the minute's end.
		minute := time.Now().Truncate(time.Minute)
		p, err := e.s.CreateKeepInTouch(ctx, store.KeepInTouchInput{Entity: store.EntityLead, RecordID: e.leadID, Type: store.KitCall,
			Interval: store.IntervalMonthly, Start: past.Format(store.KitStartLayout)})
		if err != nil {
			t.Fatal(err)
		}
		if p.TimeZone != "Asia/Tokyo" || p.NextAt == nil || p.NextAt.Before(minute) || p.NextAt.After(time.Now().AddDate(0, 1, 1)) {
			t.Fatalf("plan %+v: want the next monthly occurrence from now, in Tokyo", p.KeepInTouch)
		}
		if p.NextAt.In(tokyo).Format("15:04") != past.Format("15:04") || p.StartLocal != past.Format(store.KitStartLayout) {
			t.Errorf("next %v, start %q: want Tokyo's %s", p.NextAt.In(tokyo), p.StartLocal, past.Format(store.KitStartLayout))
		}
		_, err = e.s.CreateKeepInTouch(ctx, store.KeepInTouchInput{Entity: store.EntityLead, RecordID: e.leadID, Type: store.KitCall,
			Interval: store.IntervalOnce, Start: past.Format(store.KitStartLayout)})
		if err == nil {
			t.Fatal("a one-off plan in the past was accepted")
		}
	})
}

// TestKitClientWithoutLeadGetsItsReminder: a call plan on a client created without a lead
// gives the plan's owner a reminder on the client itself when due, which the reminder worker
// fires into the owner's notifications.
func TestKitClientWithoutLeadGetsItsReminder(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newKitEnv(t, db, "initech")
		c, err := e.s.CreateClient(ctx, store.ClientInput{Contact: store.Contact{CustomerName: "Bob Direct", CompanyEmail: "bob@initech.test"}})
		if err != nil {
			t.Fatal(err)
		}
		if c.LeadID != nil {
			t.Fatalf("client has a lead: %v", *c.LeadID)
		}
		start := time.Now().Add(time.Hour).Truncate(time.Minute)
		p, err := e.s.CreateKeepInTouch(ctx, store.KeepInTouchInput{Entity: store.EntityClient, RecordID: c.ID, Type: store.KitCall,
			Interval: store.IntervalWeekly, Start: start.UTC().Format(store.KitStartLayout), Subject: "Check in"})
		if err != nil {
			t.Fatal(err)
		}
		due := start.Add(time.Minute)
		if n, err := db.ProduceDueKit(ctx, due, store.KitHooks{}); err != nil || n != 1 {
			t.Fatalf("produced %d (%v), want 1", n, err)
		}
		rows, err := e.s.RemindersOf(ctx, store.EntityClient, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 {
			t.Fatalf("%d reminders on the client, want 1", len(rows))
		}
		rm := rows[0]
		if rm.ClientID == nil || *rm.ClientID != c.ID || rm.LeadID != nil || rm.AssigneeID != e.ownerID || rm.KitID == nil || *rm.KitID != p.ID ||
			!rm.DueAt.Equal(start.UTC()) || rm.ClientName != "Bob Direct" || rm.Title != "Call: Check in" {
			t.Fatalf("reminder %+v", rm)
		}
		if h, err := e.s.History(ctx, store.EntityClient, c.ID, 10); err != nil || len(h) == 0 {
			t.Fatalf("client history: %v %v", h, err)
		}
		// Not yet a notification; fired, it is the owner's.
		if got, err := e.s.DueReminders(ctx, 10); err != nil || len(got) != 0 {
			t.Fatalf("notifications before firing: %v %v", got, err)
		}
		if _, err := db.FireDueReminders(ctx, due, 100); err != nil {
			t.Fatal(err)
		}
		got, err := e.s.DueReminders(ctx, 10)
		if err != nil || len(got) != 1 || got[0].ID != rm.ID || got[0].ClientID == nil || *got[0].ClientID != c.ID {
			t.Fatalf("notifications after firing: %+v %v", got, err)
		}
	})
}
