package store_test

import (
	"context"
	"io/fs"
	"slices"
	"testing"

	"github.com/uptrace/bun"

	"crm/app/store"
	"crm/app/store/storetest"
	migrations "crm/sql"
)

// TestSearchIndexFollowsEditsAndDeletes: a lead or client is found under its new text after
// an edit, not under its old, and not at all once deleted. On SQLite the search index keeps
// no copy of the text and forgets a record by its id (contentless_delete), so this is what
// shows a delete or an edit reached it.
func TestSearchIndexFollowsEditsAndDeletes(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		tn, admin := newTenant(t, db, "Acme", "boss@acme.test")
		s := db.System(tn.ID, admin.ID)
		leadsFound := func(term string) []int64 {
			t.Helper()
			p, err := s.ListLeads(ctx, store.LeadQuery{Search: term, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			return ids(p.Rows)
		}
		clientsFound := func(term string) []int64 {
			t.Helper()
			return clientIDs(listClients(t, s, store.ClientQuery{Search: term, Limit: 100}).Rows)
		}

		keep, _, err := s.CreateLead(ctx, store.LeadInput{Contact: store.Contact{CustomerName: "Quintus Other", CompanyEmail: "qo@other.test"}}, "", "")
		if err != nil {
			t.Fatal(err)
		}
		l, _, err := s.CreateLead(ctx, store.LeadInput{Contact: store.Contact{CustomerName: "Quintus Arbogast", CompanyEmail: "qa@arbogast.test"}}, "", "")
		if err != nil {
			t.Fatal(err)
		}
		if got := leadsFound("arbogast"); !slices.Equal(got, []int64{l.ID}) {
			t.Fatalf("new lead: %v", got)
		}
		in := store.LeadInput{Contact: l.Contact}
		in.CustomerName = "Ottoline Brandt"
		if _, err := s.UpdateLead(ctx, l.ID, in); err != nil {
			t.Fatal(err)
		}
		if got := leadsFound("arbogast quintus"); len(got) != 0 {
			t.Errorf("renamed lead found under its old name: %v", got)
		}
		if got := leadsFound("ottoline"); !slices.Equal(got, []int64{l.ID}) {
			t.Errorf("renamed lead under its new name: %v", got)
		}
		if got := leadsFound("qa@arbogast"); !slices.Equal(got, []int64{l.ID}) {
			t.Errorf("renamed lead under its unchanged email: %v", got)
		}
		if err := s.DeleteLead(ctx, l.ID); err != nil {
			t.Fatal(err)
		}
		// The next lead may take the deleted one's id (SQLite reuses the highest): it must not
		// be found by the deleted lead's text.
		next, _, err := s.CreateLead(ctx, store.LeadInput{Contact: store.Contact{CustomerName: "Zebedee Newcomb", CompanyEmail: "zn@newcomb.test"}}, "", "")
		if err != nil {
			t.Fatal(err)
		}
		for _, term := range []string{"ottoline", "qa@arbogast"} {
			if got := leadsFound(term); len(got) != 0 {
				t.Errorf("deleted lead found by %q: %v (the next lead is %d)", term, got, next.ID)
			}
		}
		if got := leadsFound("quintus"); !slices.Equal(got, []int64{keep.ID}) || !slices.Equal(leadsFound("zebedee"), []int64{next.ID}) {
			t.Errorf("the other lead: %v", got)
		}

		c, err := s.CreateClient(ctx, store.ClientInput{Contact: store.Contact{CustomerName: "Perpetua Vance", CompanyEmail: "pv@vance.test"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := clientsFound("perpetua"); !slices.Equal(got, []int64{c.ID}) {
			t.Fatalf("new client: %v", got)
		}
		if err := s.DeleteClient(ctx, c.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateClient(ctx, store.ClientInput{Contact: store.Contact{CustomerName: "Ignatius Roe", CompanyEmail: "ir@roe.test"}}); err != nil {
			t.Fatal(err)
		}
		if got := clientsFound("perpetua"); len(got) != 0 {
			t.Errorf("deleted client found: %v", got)
		}
	})
}

// TestContentlessSearchMigrationIndexesEveryRecord replays SQLite's latest migration of the
// search indexes (contentless, each record under its id doubled) over a tenant's records:
// each is found afterwards, as before it, under its id doubled, the triggers it makes keep
// the index current, and no delete rewrites a segment whole.
func TestContentlessSearchMigrationIndexesEveryRecord(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite) // PostgreSQL's search index is over the table itself
	ctx := context.Background()
	tn, admin := newTenant(t, db, "Acme", "boss@acme.test")
	s := db.System(tn.ID, admin.ID)
	var leads []int64
	for _, name := range []string{"Severin Ashdown", "Severin Blackwood", "Marisol Ashdown"} {
		l, _, err := s.CreateLead(ctx, store.LeadInput{Contact: store.Contact{CustomerName: name, CompanyEmail: "x@" + name[:3] + ".test"}}, "", "")
		if err != nil {
			t.Fatal(err)
		}
		leads = append(leads, l.ID)
	}
	c, err := s.CreateClient(ctx, store.ClientInput{Contact: store.Contact{CustomerName: "Severin Clientson", CompanyEmail: "sc@clientson.test"}})
	if err != nil {
		t.Fatal(err)
	}
	src, err := fs.ReadFile(migrations.FS, "sqlite/20261128600000_search_index_ids_doubled.tx.up.sql")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.RunInTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, string(src))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	found := func(term string) []int64 {
		t.Helper()
		p, err := s.ListLeads(ctx, store.LeadQuery{Search: term, Sort: store.SortID, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return ids(p.Rows)
	}
	if got := found("severin"); !slices.Equal(got, leads[:2]) {
		t.Errorf("severin after the migration: %v, want %v", got, leads[:2])
	}
	if got := found("ashdown"); !slices.Equal(got, []int64{leads[0], leads[2]}) {
		t.Errorf("ashdown after the migration: %v", got)
	}
	if got := clientIDs(listClients(t, s, store.ClientQuery{Search: "clientson"}).Rows); !slices.Equal(got, []int64{c.ID}) {
		t.Errorf("client after the migration: %v", got)
	}
	// Each record is in the index under its id doubled, the ids' order kept with a gap
	// between neighbours (searchRowidScale): the leads', and the client's.
	for _, c := range []struct {
		table, term string
		want        []int64
	}{
		{"leads_fts", "severin", leads[:2]},
		{"leads_fts", "marisol ashdown", leads[2:]},
		{"clients_fts", "clientson", []int64{c.ID}},
	} {
		var rowids []int64
		if err := db.Raw("SELECT rowid FROM "+c.table+" WHERE "+c.table+" MATCH ? ORDER BY rowid", `"`+c.term+`"`).Scan(ctx, &rowids); err != nil {
			t.Fatal(err)
		}
		want := make([]int64, len(c.want))
		for i, id := range c.want {
			want[i] = id * store.SearchRowidScale
		}
		if store.SearchRowidScale < 2 || !slices.Equal(rowids, want) {
			t.Errorf("%s rows of %q: %v, want the ids %v times %d", c.table, c.term, rowids, c.want, store.SearchRowidScale)
		}
	}
	// A segment is never rewritten whole inside a write because some of it was deleted.
	for _, table := range []string{"leads_fts", "clients_fts"} {
		var deleteMerge int
		if err := db.Raw("SELECT v FROM "+table+"_config WHERE k = 'deletemerge'").Scan(ctx, &deleteMerge); err != nil {
			t.Fatalf("%s's deletemerge: %v", table, err)
		}
		if deleteMerge != 0 {
			t.Errorf("%s's deletemerge is %d, want 0", table, deleteMerge)
		}
	}
	if err := s.DeleteLead(ctx, leads[0]); err != nil {
		t.Fatal(err)
	}
	if got := found("ashdown"); !slices.Equal(got, leads[2:]) {
		t.Errorf("ashdown after a delete: %v", got)
	}
}
