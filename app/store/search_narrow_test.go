package store_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"crm/app/store"
	"crm/app/store/storetest"
)

// TestChooseTrigrams: a long term is narrowed to those of its three rarest trigrams that are
// rare, only when they are much rarer together than the whole term; otherwise it stays a
// phrase.
func TestChooseTrigrams(t *testing.T) {
	t.Parallel()
	tgs := store.Trigrams("ravi.dubois8979")
	if len(tgs) != 13 || tgs[0] != "rav" || tgs[12] != "979" {
		t.Fatalf("trigrams: %q", tgs)
	}
	if got := store.Trigrams("aaaaa"); !slices.Equal(got, []string{"aaa"}) {
		t.Errorf("repeated trigrams: %q", got)
	}
	if got := store.Trigrams("é.ü.ç"); len(got) != 3 || got[0] != "é.ü" {
		t.Errorf("trigrams are of characters, not bytes: %q", got)
	}
	// Pages each trigram of "ravi.dubois8979" filled at a million leads.
	million := []int64{98, 26, 20, 1, 20, 26, 26, 25, 26, 2, 1, 10, 13}
	for _, c := range []struct {
		name  string
		tgs   []string
		pages []int64
		want  []string
	}{
		{"rare trigrams among common ones", tgs, million, []string{"i.d", "s89", "is8"}},
		{"every trigram common", tgs, []int64{98, 26, 20, 21, 20, 26, 26, 25, 26, 22, 21, 17, 18}, nil},
		{"the third rarest not rare enough", tgs, []int64{98, 26, 20, 1, 20, 26, 26, 25, 26, 17, 1, 20, 23}, []string{"i.d", "s89"}},
		{"no trigram rare", tgs, []int64{98, 26, 20, 19, 20, 26, 26, 25, 26, 22, 17, 20, 23}, nil},
		{"rare, but little to gain", tgs[:4], []int64{8, 8, 8, 8}, nil},
		{"too little to read", tgs[:5], []int64{9, 1, 0, 1, 4}, nil},
		{"all in a few pages", tgs, []int64{1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1}, nil},
		{"three trigrams are the phrase", tgs[:3], []int64{98, 1, 1}, nil},
	} {
		if got := store.ChooseTrigrams(c.tgs, c.pages); !slices.Equal(got, c.want) {
			t.Errorf("%s: chose %q, want %q", c.name, got, c.want)
		}
	}
}

// TestChooseSampled: PostgreSQL asks for the three rarest trigrams of the term's words, by
// their counts in a sample of 2,000 texts, only when the rarest is rare.
func TestChooseSampled(t *testing.T) {
	t.Parallel()
	tgs := store.WordTrigrams("jack.fischer2387")
	if want := []string{"jac", "ack", "fis", "isc", "sch", "che", "her", "er2", "r23", "238", "387"}; !slices.Equal(tgs, want) {
		t.Fatalf("word trigrams: %q, want %q (none across the dot)", tgs, want)
	}
	if got := store.WordTrigrams("ab.cd éüçx"); !slices.Equal(got, []string{"éüç", "üçx"}) {
		t.Errorf("short words and characters: %q", got)
	}
	// The sample counts each trigram once a text, as many texts as hold it.
	texts := []string{"anna anna@example.test", "hannah.anna 2387", "ab éüçx", "", "nanna"}
	want := map[string]int32{}
	for _, text := range texts {
		for _, tg := range store.WordTrigrams(text) {
			want[tg]++
		}
	}
	if got := store.CountTrigrams(texts); !maps.Equal(got, want) || got["ann"] != 3 || got["nna"] != 3 {
		t.Errorf("counts of the sample: %v, want %v", got, want)
	}
	for _, c := range []struct {
		name   string
		counts []int64
		want   []string
	}{
		{"one rare trigram, the next two common", []int64{50, 50, 48, 48, 48, 48, 60, 30, 3, 22, 21}, []string{"r23", "387", "238"}},
		{"no rare trigram", []int64{50, 50, 48, 48, 48, 48, 60, 30, 17, 22, 21}, nil},
		{"rare, but little to gain", []int64{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}, nil},
	} {
		if got := store.ChooseSampled(tgs, c.counts); !slices.Equal(got, c.want) {
			t.Errorf("%s: chose %q, want %q", c.name, got, c.want)
		}
	}
}

// TestNarrowedSearchChecksEachCandidate: on SQLite a long term whose rarest trigrams are rare
// is asked of the search index as those trigrams, and every row they give is checked
// against the whole term. Decoy rows hold every trigram of the term but not the term; they
// must never show, in the count or a page, for leads (whose search drives the query, both
// when the candidates are at most SearchCountCap and when they are more) and clients, for
// an administrator and an "own records" user, sorted newest first and by name; and on
// PostgreSQL, which narrows by a sample of the newest texts, the same.
func TestNarrowedSearchChecksEachCandidate(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		c := newSearchCast(t, db, "Narrow", "narrow")
		s, ownLeads, ownClients, other := c.s, c.ownLeads, c.ownClients, c.other
		salesID, repID, oadminID := c.salesID, c.repID, c.otherAdminID

		const n = 6000
		// Every 4-digit number is one lead's and one client's; more than SearchCountCap
		// decoys hold every trigram of "ravi.dubois4321" apart, a few those of "…1234".
		texts := make([]string, 0, n+store.SearchCountCap+60)
		for i := range n {
			texts = append(texts, fmt.Sprintf("ravi dubois indigo solar ravi.dubois%04d@indigo.example +9198%08d", i, i))
		}
		for range store.SearchCountCap + 50 {
			texts = append(texts, "ravi dubois ravi.dubois432 s4321 decoy")
		}
		for range 10 {
			texts = append(texts, "ravi dubois ravi.dubois12 is1234 decoy")
		}
		insert := func(sc store.Scope, texts []string, leadOwner, clientOwner int64) (leadOf, clientOf []int64) {
			return insertSearchTexts(t, sc, texts, func(i int) string { return fmt.Sprintf("Ravi Dubois %05d", i) }, leadOwner, clientOwner)
		}
		// The own users own every row, so each scope's matches are the same rows.
		leadOf, clientOf := insert(s, texts, salesID, repID)
		insert(other, []string{"ravi.dubois4321 ravi.dubois1234 in another tenant"}, oadminID, oadminID)
		// On PostgreSQL a term the sample says is rare never walks the newest rows, so the
		// planner is not asked whether it would (an EXPLAIN, 1 ms at a million leads); a
		// term it does not narrow still is, once a statement.
		rec := &recorder{}
		db.AddQueryHook(rec)
		estimates := func() int { return len(rec.statements("EXPLAIN (FORMAT JSON)")) }
		estimated := map[string]int{}

		for _, c := range []struct {
			term string
			row  int // the one row (of texts) holding it
		}{{"ravi.dubois4321", 4321}, {"RAVI.Dubois1234", 1234}} {
			for _, clients := range []bool{false, true} {
				// PostgreSQL narrows by a sample of the newest 2,000 texts, where the decoys
				// of "…4321" make its rarest trigrams common: only "…1234" is narrowed.
				if db.Dialect == store.SQLite || c.row == 1234 {
					asked, narrowed, err := s.SearchAsked(ctx, clients, c.term)
					if err != nil {
						t.Fatal(err)
					}
					if !narrowed {
						t.Fatalf("%q (clients %v): asked the index %s, want a few trigrams", c.term, clients, asked)
					}
				}
				want := []int64{leadOf[c.row]}
				scopes := []store.Scope{s, ownLeads}
				if clients {
					want, scopes = []int64{clientOf[c.row]}, []store.Scope{s, ownClients}
				}
				for k, sc := range scopes {
					for _, srt := range []string{"", store.SortName} {
						name := fmt.Sprintf("%q, clients %v, scope %d, sorted %q", c.term, clients, k, srt)
						var got []int64
						var total int64
						var capped bool
						before := estimates()
						if clients {
							p := listClients(t, sc, store.ClientQuery{Search: c.term, Sort: srt, Limit: 20})
							got, total, capped = clientIDs(p.Rows), p.Total, p.TotalCapped
						} else {
							p := list(t, sc, store.LeadQuery{Search: c.term, Sort: srt, Limit: 20})
							got, total, capped = ids(p.Rows), p.Total, p.TotalCapped
						}
						if !slices.Equal(got, want) || total != 1 || capped {
							t.Errorf("%s: %v (total %d, capped %v), want %v", name, got, total, capped, want)
						}
						estimated[c.term] += estimates() - before
					}
				}
			}
		}
		if db.Dialect == store.Postgres {
			if n := estimated["RAVI.Dubois1234"]; n != 0 {
				t.Errorf("the narrowed term asked the planner for %d estimates, want none", n)
			}
			if estimated["ravi.dubois4321"] == 0 {
				t.Error("the term not narrowed asked the planner for no estimate")
			}
		}
	})
}

// TestChooseWordTrigrams: PostgreSQL asks for a term of several words with no rare trigram
// (a full name) as the rarest trigram of each word, by the sample, when that reads at most
// half of what all its trigrams would.
func TestChooseWordTrigrams(t *testing.T) {
	t.Parallel()
	// Counts in a sample of 2,000 texts, as at a million of the bench's leads.
	name := map[string]int32{"rav": 200, "avi": 50, "dub": 50, "ubo": 48, "boi": 50, "ois": 60, "li": 900}
	for _, c := range []struct {
		name, text string
		counts     map[string]int32
		want       []string
	}{
		{"a full name", "ravi dubois", name, []string{"avi", "ubo"}},
		{"separators and short words between", "ravi, li.dubois", name, []string{"avi", "ubo"}},
		{"one word", "dubois", name, nil},
		{"one word of three characters or more", "ravi li", name, nil},
		{"words of one trigram each: all of them already", "rav ubo", name, nil},
		{"little to gain", "ravi ubo", map[string]int32{"rav": 10, "avi": 10, "ubo": 10}, nil},
		{"the same word twice: its rarest trigram once", "ravi ravi", name, []string{"avi"}},
		{"a trigram in no sampled text", "ravi dubozz", map[string]int32{"rav": 200, "avi": 50, "dub": 50, "ubo": 48}, []string{"avi", "boz"}},
	} {
		if got := store.ChooseWords(c.text, c.counts); !slices.Equal(got, c.want) {
			t.Errorf("%s (%q): chose %q, want %q", c.name, c.text, got, c.want)
		}
	}
}

// TestFullNameChecksEachCandidate: on PostgreSQL a full name, none of whose trigrams is rare,
// is asked of the trigram index as the rarest trigram of each of its words; every row they
// give is checked against the whole term. Decoys hold those trigrams, or both words in
// another order, but not the term: they must never show, in the count or a page, for leads
// and clients, an administrator and an "own records" user, newest first and by name, page
// after page; and the statement that collects the matches sends the trigrams apart from its
// text.
func TestFullNameChecksEachCandidate(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		if db.Dialect != store.Postgres {
			return // (SQLite's FTS5 index is asked for the phrase or its rare trigrams: TestNarrowedSearchChecksEachCandidate)
		}
		ctx := context.Background()
		c := newSearchCast(t, db, "Names", "names")
		s, ownLeads, ownClients, other := c.s, c.ownLeads, c.ownClients, c.other
		salesID, repID, oadminID := c.salesID, c.repID, c.otherAdminID

		// 2,400 texts, so the sample of the newest 2,000 counts them: "ravi" and "dubois"
		// are in most, the two together in 46 alone. The rarest trigram of each word is
		// "avi" and "dub" (each in about two thirds of the texts), both in the decoys
		// "xavi dubo", and "dubois ravi" holds every trigram of the term.
		var texts []string
		var want []int // rows of texts that hold the term
		for i := range 2400 {
			var text string
			switch {
			case i%53 == 0:
				text, want = fmt.Sprintf("ravi dubois indigo ravi.dubois%04d@indigo.example", i), append(want, i)
			case i%3 == 0:
				text = fmt.Sprintf("gaurav dubois cobalt gaurav%04d@cobalt.example", i)
			case i%3 == 1:
				text = fmt.Sprintf("ravi kumar boise ravi.kumar%04d@amber.example", i)
			case i%7 == 2:
				text = fmt.Sprintf("dubois ravi amber dubois.ravi%04d@amber.example", i)
			default:
				text = fmt.Sprintf("xavi dubo amber xavi%04d@amber.example", i)
			}
			texts = append(texts, text)
		}
		name := func(i int) string { return fmt.Sprintf("Name %05d", len(texts)-i) }
		leadOf, clientOf := insertSearchTexts(t, s, texts, name, salesID, repID)
		insertSearchTexts(t, other, []string{"ravi dubois in another tenant"}, name, oadminID, oadminID)

		const term = "Ravi Dubois"
		for _, clients := range []bool{false, true} {
			asked, narrowed, err := s.SearchAsked(ctx, clients, term)
			if err != nil {
				t.Fatal(err)
			}
			if asked != "avi dub" || narrowed {
				t.Fatalf("clients %v: asked the index %q (narrowed %v), want each word's rarest trigram, \"avi dub\"", clients, asked, narrowed)
			}
			of, scopes := leadOf, []store.Scope{s, ownLeads}
			if clients {
				of, scopes = clientOf, []store.Scope{s, ownClients}
			}
			for k, sc := range scopes {
				for _, srt := range []string{"", store.SortName} {
					name := fmt.Sprintf("clients %v, scope %d, sorted %q", clients, k, srt)
					var got []int64
					after := ""
					for pages := 0; pages < 5; pages++ {
						var rows []int64
						var total int64
						var capped bool
						var next string
						if clients {
							p := listClients(t, sc, store.ClientQuery{Search: term, Sort: srt, Limit: 20, After: after})
							rows, total, capped, next = clientIDs(p.Rows), p.Total, p.TotalCapped, p.Next
						} else {
							p := list(t, sc, store.LeadQuery{Search: term, Sort: srt, Limit: 20, After: after})
							rows, total, capped, next = ids(p.Rows), p.Total, p.TotalCapped, p.Next
						}
						if total != int64(len(want)) || capped {
							t.Errorf("%s: total %d (capped %v), want %d", name, total, capped, len(want))
						}
						got = append(got, rows...)
						if after = next; after == "" {
							break
						}
					}
					var wantIDs []int64
					for _, i := range want {
						wantIDs = append(wantIDs, of[i])
					}
					slices.Sort(got)
					if !slices.Equal(got, wantIDs) {
						t.Errorf("%s: the pages gave %d rows %v, want the %d holding the term %v", name, len(got), got, len(wantIDs), wantIDs)
					}
				}
			}
		}

		// The matches are collected by one statement, the trigrams and the term apart from it.
		rec := &recorder{}
		db.AddQueryHook(rec)
		if p := list(t, s, store.LeadQuery{Search: term}); p.Total != int64(len(want)) {
			t.Errorf("total %d, want %d", p.Total, len(want))
		}
		collected := 0
		rec.mu.Lock()
		for k, q := range rec.stmts {
			if strings.Contains(q, "strpos(") {
				collected++
				sent := fmt.Sprint(rec.args[k])
				text := strings.TrimSuffix(q, sent)
				if strings.Contains(text, "avi") || strings.Contains(text, "dub") || !strings.Contains(sent, "%avi%") || !strings.Contains(sent, "%dub%") {
					t.Errorf("the trigrams are not sent apart from the text: %s", q)
				}
			}
		}
		rec.mu.Unlock()
		if collected == 0 {
			t.Error("no statement collected the matches through the trigram index")
		}
	})
}

// insertSearchTexts adds a lead and a client for each of texts, with that search text, the
// customer name name(i), the lead owned and created by leadOwner, the client by
// clientOwner; it returns their ids in the order of texts.
func insertSearchTexts(t *testing.T, sc store.Scope, texts []string, name func(i int) string, leadOwner, clientOwner int64) (leadOf, clientOf []int64) {
	t.Helper()
	ctx := context.Background()
	leads := make([]store.Lead, len(texts))
	clients := make([]store.Client, len(texts))
	for i, text := range texts {
		c := store.Contact{CustomerName: name(i), CompanyName: "Indigo Solar"}
		lc, cc := c, c
		lc.OwnerID, cc.OwnerID = &leadOwner, &clientOwner
		leads[i] = store.Lead{Contact: lc, CreatedBy: &leadOwner, SearchText: text}
		clients[i] = store.Client{Contact: cc, CreatedBy: &clientOwner, SearchText: text}
	}
	if _, err := sc.Insert(&leads).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Insert(&clients).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		if leads[i].ID == 0 || clients[i].ID == 0 {
			t.Fatal("no id returned")
		}
		leadOf, clientOf = append(leadOf, leads[i].ID), append(clientOf, clients[i].ID)
	}
	return leadOf, clientOf
}
