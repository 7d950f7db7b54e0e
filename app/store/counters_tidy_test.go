package store

import (
	"context"
	"fmt"
	"maps"
	"slices"
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
