package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"crm/app/jobs"
	"crm/app/store"
	"crm/app/store/storetest"
)

// TestRemindersFireExactlyOnce runs two workers at once over many due reminders: every
// reminder fires, and none fires twice.
func TestRemindersFireExactlyOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tn, u := newTenant(t, db, "Acme", "a@acme.test")
		s := db.System(tn.ID, u.ID)
		lead, _, err := s.CreateLead(ctx, store.LeadInput{Contact: store.Contact{CustomerName: "Lead", CompanyEmail: "l@acme.test"}}, "", "")
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		const n = 120
		for i := 0; i < n; i++ {
			due := now.Add(-time.Duration(i) * time.Minute)
			if i%4 == 0 {
				due = now.Add(time.Hour) // not due yet
			}
			if _, err := s.CreateReminder(ctx, lead.ID, store.ReminderInput{Title: "Call back", DueAt: due}); err != nil {
				t.Fatal(err)
			}
		}
		var mu sync.Mutex
		seen := map[int64]int{}
		var wg sync.WaitGroup
		for w := 0; w < 2; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for round := 0; round < 5; round++ {
					fired, err := db.FireDueReminders(ctx, now, 7)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					for _, f := range fired {
						seen[f.ID]++
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if _, err := jobs.FireReminders(ctx, db, now); err != nil {
			t.Fatal(err)
		}
		due, err := s.DueReminders(ctx, 500)
		if err != nil {
			t.Fatal(err)
		}
		if len(due) != n-n/4 {
			t.Fatalf("due reminders: %d, want %d", len(due), n-n/4)
		}
		for id, times := range seen {
			if times != 1 {
				t.Fatalf("reminder %d fired %d times", id, times)
			}
		}
		for _, r := range due {
			if !r.Overdue || r.FiredAt == nil {
				t.Fatalf("due reminder not marked: %+v", r)
			}
		}
		// Nothing fires twice on a later sweep.
		if fired, _ := db.FireDueReminders(ctx, now, 500); len(fired) != 0 {
			t.Fatalf("refired: %d", len(fired))
		}
	})
}
