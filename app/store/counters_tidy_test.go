package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

// zeroCounters counts the counters at 0 of a tenant in each counter table (read as the
// tenant: on PostgreSQL the test's role is bound by row-level security).
func zeroCounters(t *testing.T, db *DB, tenantID int64) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range []string{"lead_counts", "lead_user_counts", "lead_day_counts", "lead_month_counts", "client_day_counts"} {
		var n int
		q := db.bun.NewRaw("SELECT count(*) FROM "+table+" WHERE tenant_id = ? AND n = 0", tenantID)
		if err := q.Scan(withTenant(context.Background(), tenantID), &n); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

// TestDropEmptyCountersKeepsEveryCount: leads and clients created and deleted leave
// counters at 0 in every counter table; DropEmptyCounters deletes those of its tenant only,
// and every counter still agrees with a recount, after it and after the same leads are
// created again.
func TestDropEmptyCountersKeepsEveryCount(t *testing.T) {
	t.Parallel()
	eachImportDB(t, func(t *testing.T, db *DB, s Scope, admin, rep *User) {
		ctx := context.Background()
		ids := masterIDs(t, s)
		stage, status, source := ids[KindStage], ids[KindStatus], ids[KindSource]
		other, otherAdmin, err := db.CreateTenant(ctx, NewTenant{DefaultLocale: "en_US", Name: "Other", AdminEmail: "o@x.test", AdminPassword: "Secret1!x"})
		if err != nil {
			t.Fatal(err)
		}
		create := func(sc Scope, i int, owner *int64) int64 {
			at := time.Date(2025, time.Month(1+i%3), 1+i%5, 10, 0, 0, 0, time.UTC)
			v, _, err := sc.CreateLead(ctx, LeadInput{Contact: Contact{CustomerName: fmt.Sprintf("Lead %d", i),
				CompanyEmail: fmt.Sprintf("l%d-%d@x.test", sc.TenantID, i), OwnerID: owner},
				LeadStageID: &stage[i%len(stage)], LeadStatusID: &status[i%len(status)], LeadSourceID: &source[i%len(source)],
				CreatedAt: &at}, "", "")
			if err != nil {
				t.Fatal(err)
			}
			return v.ID
		}
		var mine, theirs []int64
		for i := range 9 {
			owner := &admin.ID
			if i%2 == 0 {
				owner = &rep.ID
			}
			mine = append(mine, create(db.System(s.TenantID, rep.ID), i, owner))
			theirs = append(theirs, create(db.System(other.ID, otherAdmin.ID), i, nil))
		}
		client, err := s.CreateClient(ctx, ClientInput{Contact: Contact{CustomerName: "Client", CompanyEmail: "c@x.test"}})
		if err != nil {
			t.Fatal(err)
		}
		// Every lead but one of each tenant goes, and the client: their counters drop to 0.
		if _, err := s.DeleteLeads(ctx, mine[1:]); err != nil {
			t.Fatal(err)
		}
		if _, err := db.System(other.ID, otherAdmin.ID).DeleteLeads(ctx, theirs[1:]); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteClient(ctx, client.ID); err != nil {
			t.Fatal(err)
		}
		checkCounters(t, db, "deleted")
		if zeros := zeroCounters(t, db, s.TenantID); slices.Contains(slices.Collect(maps.Values(zeros)), 0) {
			t.Fatalf("deleted: a counter table with no counter at 0, the test would show nothing: %v", zeros)
		}
		otherZeros := zeroCounters(t, db, other.ID)

		dropped, err := db.DropEmptyCounters(ctx, s.TenantID)
		if err != nil {
			t.Fatal(err)
		}
		if dropped == 0 {
			t.Fatal("dropped no counter")
		}
		for table, n := range zeroCounters(t, db, s.TenantID) {
			if n != 0 {
				t.Errorf("%s: %d counters at 0 left", table, n)
			}
		}
		if got := zeroCounters(t, db, other.ID); fmt.Sprint(got) != fmt.Sprint(otherZeros) {
			t.Errorf("the other tenant's counters at 0 went from %v to %v", otherZeros, got)
		}
		checkCounters(t, db, "dropped")
		page, err := s.ListLeads(ctx, LeadQuery{Limit: 1})
		if err != nil || page.Total != 1 {
			t.Fatalf("list after the drop: total %v, %v", page, err)
		}

		// The same leads again: their counters come back.
		for i := 1; i < 9; i++ {
			create(db.System(s.TenantID, rep.ID), i, &admin.ID)
		}
		checkCounters(t, db, "created again")
		if page, err := s.ListLeads(ctx, LeadQuery{Limit: 1}); err != nil || page.Total != 9 {
			t.Fatalf("list after creating again: %v, %v", page, err)
		}
	})
}

// TestCountersUnderConcurrentWrites: sales users creating, moving, converting and deleting
// leads of one tenant at the same time all write the tenant's counters of the same stages
// and statuses (lead_user_counts' user 0 and lead_day_counts' and lead_month_counts' are one
// row a stage and status for everyone): every write succeeds — no deadlock between the
// counters' locks — and every counter still agrees with a recount.
func TestCountersUnderConcurrentWrites(t *testing.T) {
	t.Parallel()
	eachImportDB(t, func(t *testing.T, db *DB, s Scope, admin, rep *User) {
		ctx := context.Background()
		ids := masterIDs(t, s)
		stage, status := ids[KindStage], ids[KindStatus]
		users := []int64{admin.ID, rep.ID}
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(w), 7))
				sc := db.System(s.TenantID, users[w%2])
				var mine []int64
				for i := range 12 {
					owner := users[r.IntN(2)]
					// Days of one month: a month's counter gathers the day counters of its days.
					at := time.Date(2025, 3, 1+r.IntN(4), 9, 0, 0, 0, time.UTC)
					v, _, err := sc.CreateLead(ctx, LeadInput{Contact: Contact{CustomerName: fmt.Sprintf("W%d L%d", w, i),
						CompanyEmail: fmt.Sprintf("w%d-%d@x.test", w, i), OwnerID: &owner},
						LeadStageID: &stage[r.IntN(len(stage))], LeadStatusID: &status[r.IntN(len(status))], CreatedAt: &at}, "", "")
					if err != nil {
						errs <- fmt.Errorf("create: %w", err)
						return
					}
					mine = append(mine, v.ID)
					pick := func() int64 { return mine[r.IntN(len(mine))] }
					var step error
					switch i % 4 {
					case 0:
						step = sc.SetLeadField(ctx, pick(), FieldStage, stage[r.IntN(len(stage))])
					case 1:
						_, step = sc.BulkSetLeadField(ctx, []int64{pick(), pick()}, FieldStatus, status[r.IntN(len(status))])
					case 2:
						_, step = sc.ConvertLead(ctx, pick())
						if errors.Is(step, ErrAlreadyConverted) {
							step = nil
						}
					case 3:
						id := pick()
						mine = slices.DeleteFunc(mine, func(x int64) bool { return x == id })
						step = sc.DeleteLead(ctx, id)
					}
					if step != nil {
						errs <- fmt.Errorf("step %d: %w", i, step)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		checkCounters(t, db, "after concurrent writes")
	})
}
