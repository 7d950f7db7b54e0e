package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"crm/app/store"
	"crm/app/store/storetest"
)

// searchWords are the words of TestSearchCountsAndPagesEveryMatch's companies and how many
// of its 1,500 leads (and clients) carry each: a common word (past the count's cap, and
// common enough that PostgreSQL's planner sends it to the probe), a rarer one past the cap
// (PostgreSQL collects it through the trigram index), one under the cap, and one in no row.
var searchWords = []struct {
	word string
	n    int
}{{"quokka", 700}, {"wombat", 150}, {"numbat", 60}, {"dingo", 0}}

// searchCompany is the company of the i-th generated row: a word of searchWords for the
// first n of every 1,500, in turn, else a plain name.
func searchCompany(i int) string {
	k := i % 1500
	for _, w := range searchWords {
		if k < w.n {
			return fmt.Sprintf("%s Trading %d", strings.ToUpper(w.word[:1])+w.word[1:], i)
		}
		k -= w.n
	}
	return fmt.Sprintf("Plain Company %d", i)
}

// analyze refreshes the statistics the planner's estimates come from (as autovacuum would),
// and moves PostgreSQL's GIN pending lists into the indexes.
func analyze(t *testing.T, db *store.DB) {
	t.Helper()
	stmts := []string{"ANALYZE"}
	if db.Dialect == store.Postgres {
		stmts = []string{"ANALYZE leads, clients", "SELECT gin_clean_pending_list('leads_search_idx'::regclass)",
			"SELECT gin_clean_pending_list('clients_search_idx'::regclass)"}
	}
	if err := storetest.Owner(t, db).RunInTx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		for _, stmt := range stmts {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// searchCast is who a search test needs: a tenant seen by its system scope s, an
// "own records" sales user (leads) and rep (clients) in it, and another tenant whose rows
// must never show.
type searchCast struct {
	s, ownLeads, ownClients, other        store.Scope
	adminID, salesID, repID, otherAdminID int64
}

// newSearchCast makes the cast in a tenant named name, its users at domain (.test).
func newSearchCast(t *testing.T, db *store.DB, name, domain string) searchCast {
	t.Helper()
	tn, admin := newTenant(t, db, name, "boss@"+domain+".test")
	c := searchCast{s: db.System(tn.ID, admin.ID), adminID: admin.ID}
	c.ownLeads, c.salesID = salesScope(t, db, c.s, "sales@"+domain+".test")
	c.ownClients, c.repID = ownScope(t, db, c.s, "rep@"+domain+".test")
	otn, oadmin := newTenant(t, db, "Elsewhere", "boss@elsewhere-"+domain+".test")
	c.other, c.otherAdminID = db.System(otn.ID, oadmin.ID), oadmin.ID
	return c
}

// TestSearchCountsAndPagesEveryMatch: a search's count is exact up to SearchCountCap and
// SearchCountCap with TotalCapped beyond, on every page, whichever way it was counted (the
// probe of the newest matches, the matches collected through the search index); and paging
// by keyset reaches every match exactly once, newest first and by name, forwards and (clients)
// backwards, for an "all records" administrator and an "own records" user.
func TestSearchCountsAndPagesEveryMatch(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		// Another tenant (other) has the same words: none of its rows may show.
		c := newSearchCast(t, db, "Search", "search")
		s, ownLeads, ownClients, other := c.s, c.ownLeads, c.ownClients, c.other
		salesID, repID, adminID, oadminID := c.salesID, c.repID, c.adminID, c.otherAdminID

		const n = 1500
		base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		insert := func(s store.Scope, n int, leadOwner, clientOwner func(i int) int64) {
			leads := make([]store.Lead, 0, n)
			clients := make([]store.Client, 0, n)
			for i := range n {
				c := store.Contact{CustomerName: fmt.Sprintf("Person %s %04d", string(rune('a'+(i*7)%26)), i), CompanyName: searchCompany(i),
					CompanyEmail: fmt.Sprintf("p%04d@example.test", i), CompanyDialCode: "+91", CompanyPhoneNumber: fmt.Sprintf("98%08d", i)}
				text := strings.ToLower(strings.Join([]string{c.CustomerName, c.CompanyName, c.CompanyEmail, c.CompanyDialCode + c.CompanyPhoneNumber}, " "))
				at := base.Add(time.Duration(i) * time.Hour)
				lo, co := leadOwner(i), clientOwner(i)
				lc, cc := c, c
				lc.OwnerID, cc.OwnerID = &lo, &co
				leads = append(leads, store.Lead{Contact: lc, CreatedBy: &lo, SearchText: text, CreatedAt: at, UpdatedAt: at})
				clients = append(clients, store.Client{Contact: cc, CreatedBy: &co, SearchText: text, CreatedAt: at, UpdatedAt: at})
			}
			if _, err := s.Insert(&leads).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Insert(&clients).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		// One row in three is the "own" users'.
		insert(s, n, func(i int) int64 {
			if i%3 == 0 {
				return salesID
			}
			return adminID
		}, func(i int) int64 {
			if i%3 == 0 {
				return repID
			}
			return adminID
		})
		insert(other, 300, func(int) int64 { return oadminID }, func(int) int64 { return oadminID })
		analyze(t, db)

		// Every lead and client each scope reaches, read without a search, by company.
		reach := func(leads bool, sc store.Scope) map[int64]string {
			out := map[int64]string{}
			for page := 1; ; page++ {
				if leads {
					p := list(t, sc, store.LeadQuery{Page: page, Limit: store.MaxLeadLimit})
					for _, r := range p.Rows {
						out[r.ID] = strings.ToLower(r.CompanyName)
					}
					if p.Next == "" {
						return out
					}
				} else {
					p := listClients(t, sc, store.ClientQuery{Page: page, Limit: store.MaxClientLimit})
					for _, r := range p.Rows {
						out[r.ID] = strings.ToLower(r.CompanyName)
					}
					if p.Next == "" {
						return out
					}
				}
			}
		}
		type scope struct {
			name  string
			leads bool
			s     store.Scope
		}
		for _, sc := range []scope{{"leads, admin", true, s}, {"leads, own", true, ownLeads},
			{"clients, admin", false, s}, {"clients, own", false, ownClients}} {
			all := reach(sc.leads, sc.s)
			for _, w := range searchWords {
				var want []int64
				for id, company := range all {
					if strings.Contains(company, w.word) {
						want = append(want, id)
					}
				}
				total, capped := int64(len(want)), false
				if total > store.SearchCountCap {
					total, capped = store.SearchCountCap, true
				}
				sorts := []string{"", store.SortName}
				if sc.leads {
					sorts = append(sorts, store.SortStage) // a group sort: pages by stage, newest first in each
				}
				for _, srt := range sorts {
					name := fmt.Sprintf("%s, %q sorted %q", sc.name, w.word, srt)
					var got []int64
					if sc.leads {
						got = walkSearch(t, name, total, capped, func(after, _ string) ([]int64, int64, bool, string, string) {
							p := list(t, sc.s, store.LeadQuery{Search: w.word, Sort: srt, Limit: 20, After: after})
							return ids(p.Rows), p.Total, p.TotalCapped, p.Next, ""
						})
					} else {
						got = walkSearch(t, name, total, capped, func(after, before string) ([]int64, int64, bool, string, string) {
							p := listClients(t, sc.s, store.ClientQuery{Search: w.word, Sort: srt, Limit: 20, After: after, Before: before})
							return clientIDs(p.Rows), p.Total, p.TotalCapped, p.Next, p.Prev
						})
					}
					if slices.Sort(want); !slices.Equal(sorted(got), want) {
						t.Errorf("%s: paged through %d matches, want %d", name, len(got), len(want))
					}
					if srt == "" && !slices.IsSortedFunc(got, func(a, b int64) int { return int(b - a) }) {
						t.Errorf("%s: not newest first", name)
					}
				}
			}
		}
	})
}

// walkSearch pages through a search by keyset with page(after, before): forwards from the
// first page to the last, checking the count on every page, then (when the list hands out
// Prev cursors) backwards from the last page to the first, which must give the same pages.
// It returns the ids in order.
func walkSearch(t *testing.T, name string, total int64, capped bool, page func(after, before string) ([]int64, int64, bool, string, string)) []int64 {
	t.Helper()
	var out []int64
	var pages [][]int64
	seen := map[int64]bool{}
	after, prev := "", ""
	for {
		rows, n, c, next, p := page(after, "")
		if n != total || c != capped {
			t.Fatalf("%s, page %d: total %d capped %v, want %d capped %v", name, len(pages)+1, n, c, total, capped)
		}
		for _, id := range rows {
			if seen[id] {
				t.Fatalf("%s: %d repeated", name, id)
			}
			seen[id] = true
		}
		out = append(out, rows...)
		pages = append(pages, rows)
		prev = p
		if next == "" || len(pages) > 100 {
			break
		}
		after = next
	}
	if prev == "" {
		return out
	}
	for i := len(pages) - 2; i >= 0; i-- {
		rows, n, c, _, p := page("", prev)
		if n != total || c != capped || !slices.Equal(rows, pages[i]) {
			t.Fatalf("%s, back to page %d: %v (total %d capped %v), want %v", name, i+1, rows, n, c, pages[i])
		}
		if prev = p; (p == "") != (i == 0) {
			t.Fatalf("%s, back to page %d: prev %q", name, i+1, p)
		}
	}
	return out
}

func sorted(ids []int64) []int64 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

// statementLog records the SQL of every statement a DB runs while it is on.
type statementLog struct {
	on   bool
	sqls []string
}

func (l *statementLog) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}
func (l *statementLog) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if l.on {
		l.sqls = append(l.sqls, e.Query)
	}
}

// On SQLite the FTS5 table serves a search forwards first, where a doclist costs half what
// it does backwards: a term with at most SearchCountCap matches in the tenant is settled by
// that one read, newest first once reversed; only a common word has its newest matches read
// backwards too. Either read starts at the tenant's first lead, not at the first match of
// the older tenant, which holds the same words (the plan's rowid bound, ">").
func TestFTSSearchReadsForwardsFirst(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite)
	ctx := context.Background()
	insert := func(s store.Scope, owner int64, companies []string) {
		leads := make([]store.Lead, 0, len(companies))
		for i, company := range companies {
			c := store.Contact{CustomerName: fmt.Sprintf("Person %d", i), CompanyName: company,
				CompanyEmail: fmt.Sprintf("p%d@example.test", i), CompanyDialCode: "+91", CompanyPhoneNumber: fmt.Sprintf("98%08d", i)}
			c.OwnerID = &owner
			leads = append(leads, store.Lead{Contact: c, CreatedBy: &owner,
				SearchText: strings.ToLower(c.CustomerName + " " + c.CompanyName + " " + c.CompanyEmail)})
		}
		if _, err := s.Insert(&leads).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	words := func(n int, word string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s Trading %d", word, i)
		}
		return out
	}
	otn, oadmin := newTenant(t, db, "Older", "boss@older.test")
	insert(db.System(otn.ID, oadmin.ID), oadmin.ID, append(words(400, "Quokka"), words(400, "Wombat")...))
	tn, admin := newTenant(t, db, "Newer", "boss@newer.test")
	s := db.System(tn.ID, admin.ID)
	insert(s, admin.ID, append(append(words(3, "Quokka"), words(250, "Wombat")...), words(200, "Plain")...))
	analyze(t, db)

	log := &statementLog{}
	db.AddQueryHook(log)
	for _, c := range []struct {
		term      string
		total     int64
		capped    bool
		backwards bool // the newest matches read backwards too
	}{{"quokka", 3, false, false}, {"wombat", store.SearchCountCap, true, true}} {
		log.on, log.sqls = true, nil
		p := list(t, s, store.LeadQuery{Search: c.term, Limit: 2})
		log.on = false
		if p.Total != c.total || p.TotalCapped != c.capped || len(p.Rows) != 2 || p.Rows[0].ID < p.Rows[1].ID {
			t.Errorf("%s: total %d capped %v, rows %v", c.term, p.Total, p.TotalCapped, ids(p.Rows))
		}
		var forwards, backwards int
		for _, q := range log.sqls {
			if !strings.Contains(q, "leads_fts") {
				continue
			}
			forwards += strings.Count(q, "ASC LIMIT 101")
			backwards += strings.Count(q, "DESC LIMIT 101")
		}
		if forwards != 1 || (backwards == 1) != c.backwards || backwards > 1 {
			t.Errorf("%s: %d forwards and %d backwards reads of the search index in\n%s", c.term, forwards, backwards, strings.Join(log.sqls, "\n"))
		}
		plans, err := s.ExplainListLeads(ctx, store.LeadQuery{Search: c.term})
		if err != nil {
			t.Fatal(err)
		}
		for _, plan := range plans {
			for _, line := range strings.Split(plan, "\n") {
				if strings.Contains(line, "leads_fts VIRTUAL TABLE") && !strings.HasSuffix(strings.TrimSpace(line), ">") {
					t.Errorf("%s: the search index is read without the tenant's first lead as its start: %q", c.term, line)
				}
			}
		}
	}
}
