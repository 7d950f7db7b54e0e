package store_test

import (
	"context"
	"fmt"
	"testing"

	"crm/app/store"
	"crm/app/store/storetest"
)

// A lead view is one text for every lead, its id sent apart: PostgreSQL prepares it once
// the server has seen it (not on its first run, which a text that never comes back would
// waste), SQLite compiles it once; and each view still answers with its own lead. Page 1
// of a list, asked again, is prepared too, and on PostgreSQL the rows and names of every
// page are one text each; writes are never kept.
func TestRepeatedReadsArePreparedOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		db.SetMaxOpenConns(1) // one connection, so its kept statements are all of them
		tn, u := newTenant(t, db, "Prepared", "prepared@example.test")
		s := db.System(tn.ID, u.ID)
		if err := s.SeedLeads(ctx, 5, nil); err != nil {
			t.Fatal(err)
		}
		kept := func(part string) int {
			t.Helper()
			n, err := db.KeptStatements(ctx, part)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		view := "(l.id = $1)"
		if db.Dialect == store.SQLite {
			view = "(l.id = +$1)"
		}
		page, err := s.ListLeads(ctx, store.LeadQuery{Page: 1, Limit: 20})
		if err != nil || len(page.Rows) != 5 {
			t.Fatalf("list: %v, %d rows", err, len(page.Rows))
		}
		first := page.Rows[0]
		v, err := s.LeadView(ctx, first.ID)
		if err != nil || v.ID != first.ID || v.CustomerName != first.CustomerName {
			t.Fatalf("view of %d (%s): %+v, %v", first.ID, first.CustomerName, v, err)
		}
		want := 1 // SQLite compiles the text it runs and keeps it
		if db.Dialect == store.Postgres {
			want = 0 // PostgreSQL has seen it once: not prepared yet
		}
		if n := kept(view); n != want {
			t.Fatalf("after one view: %d statements of the view kept, want %d", n, want)
		}
		// SQLite: the views after the first compile nothing, not even anew for another id
		// (the seed's ANALYZE left the statistics that tempt the planner to read the id).
		var compiles func() int64
		var before int64
		if db.Dialect == store.SQLite {
			if compiles, err = db.CountCompiles(ctx); err != nil {
				t.Fatal(err)
			}
			// Setting the authorizer has SQLite compile its statements again, once.
			if _, err := s.LeadView(ctx, first.ID); err != nil {
				t.Fatal(err)
			}
			before = compiles()
		}
		for range 2 {
			for _, l := range page.Rows {
				v, err := s.LeadView(ctx, l.ID)
				if err != nil || v.ID != l.ID || v.CustomerName != l.CustomerName {
					t.Fatalf("view of %d (%s): %+v, %v", l.ID, l.CustomerName, v, err)
				}
			}
		}
		if compiles != nil {
			if n := compiles() - before; n != 0 {
				t.Fatalf("ten views of five leads compiled %d SELECTs, want 0: the kept statement was compiled again", n)
			}
		}
		if n := kept(view); n != 1 {
			t.Fatalf("after ten views of five leads: %d statements of the view kept, want 1", n)
		}
		if _, err := s.LeadView(ctx, 987654321); err == nil {
			t.Fatal("a missing lead was found")
		}

		const pageIDs = "ORDER BY l.id DESC LIMIT 21"
		if _, err := s.ListLeads(ctx, store.LeadQuery{Page: 1, Limit: 20}); err != nil {
			t.Fatal(err)
		}
		if n := kept(pageIDs); n != 1 {
			t.Fatalf("page 1 asked twice: %d statements of its ids kept, want 1", n)
		}
		// Every page's rows and names: one text each, their ids sent apart (SQLite: compiled
		// once, nothing compiled again for the pages after).
		{
			seen := map[int64]bool{}
			if compiles != nil {
				before = compiles()
			}
			for range 2 {
				for p := 1; p <= 3; p++ {
					page, err := s.ListLeads(ctx, store.LeadQuery{Page: p, Limit: 2})
					if err != nil {
						t.Fatal(err)
					}
					for _, l := range page.Rows {
						seen[l.ID] = true
					}
				}
			}
			if len(seen) != 5 {
				t.Fatalf("pages of 2 showed %d leads, want the 5", len(seen))
			}
			parts := []string{"l.id = ANY($1)", "ll.lead_id = ANY($1)"}
			if db.Dialect == store.SQLite {
				parts = []string{"l.id IN (SELECT value FROM json_each(+$1))", "ll.lead_id IN (SELECT value FROM json_each(+$1))"}
				// The three pages' id reads are three texts, compiled once each; the rows'
				// and the names' statements are compiled at most once more (for the
				// authorizer), not for every page. Their ids written in: 21.
				if n := compiles() - before; n > 5 {
					t.Fatalf("six pages compiled %d SELECTs, want at most 5: their rows and names were compiled again", n)
				}
			}
			for _, part := range parts {
				if n := kept(part); n != 1 {
					t.Fatalf("six pages: %d statements with %q kept, want 1", n, part)
				}
			}
		}
		// A client list's pages read their rows by ids sent apart too: one text.
		clients := make([]store.Client, 5)
		for i := range clients {
			clients[i] = store.Client{Contact: store.Contact{CustomerName: fmt.Sprintf("Client %d", i)}, SearchText: fmt.Sprintf("client %d", i)}
		}
		if _, err := s.Insert(&clients).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		seenClients := map[int64]bool{}
		for range 2 {
			for p := 1; p <= 3; p++ {
				page, err := s.ListClients(ctx, store.ClientQuery{Page: p, Limit: 2})
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range page.Rows {
					seenClients[c.ID] = true
				}
			}
		}
		clientRows := "c.id = ANY($1)"
		if db.Dialect == store.SQLite {
			clientRows = "c.id IN (SELECT value FROM json_each(+$1))"
		}
		if n := kept(clientRows); len(seenClients) != 5 || n != 1 {
			t.Fatalf("six pages of clients showed %d of 5, and %d statements of their rows kept, want 1", len(seenClients), n)
		}

		if err := s.SeedLeads(ctx, 2, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.SeedLeads(ctx, 2, nil); err != nil {
			t.Fatal(err)
		}
		for _, w := range []string{"INSERT", "UPDATE", "DELETE"} {
			if n := kept(w + " "); n != 0 {
				t.Fatalf("%d statements with %s kept", n, w)
			}
		}
	})
}
