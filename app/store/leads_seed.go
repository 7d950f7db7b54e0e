package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Generated lead text: common names of the markets the product serves, and company names
// built from a stem, a trade and a legal form, so that a search for one name or company
// finds a realistic share of a large tenant.
var (
	seedFirst = []string{"Aarav", "Priya", "Liam", "Sofia", "Noah", "Emma", "Lucas", "Mia", "Arjun", "Chloé",
		"Mateo", "Hannah", "Ravi", "Lena", "Omar", "Julia", "Karan", "Elena", "Ananya", "Vikram", "Camille",
		"Louis", "Giulia", "Marco", "Lucía", "Diego", "Jana", "Tomáš", "Inês", "João", "Felix", "Clara",
		"Meera", "Rohan", "Olivia", "Jack", "Charlotte", "William", "Isla", "Kabir"}
	seedLast = []string{"Sharma", "Iyer", "Martin", "Rossi", "Müller", "Dubois", "García", "Novák", "Silva",
		"Reddy", "Smith", "Kumar", "Bernard", "Costa", "Nair", "Fischer", "Patel", "Menon", "Lefebvre",
		"Ferrari", "Romano", "Fernández", "López", "Svoboda", "Dvořák", "Santos", "Pereira", "Schmidt",
		"Weber", "Taylor", "Brown", "Wilson", "Gupta", "Rao", "Moreau", "Ricci", "Jones", "Williams",
		"Kowalski", "Singh"}
	seedStems = []string{"Acme", "Blue Harbor", "Cobalt", "Deccan", "Everest", "Fjord", "Granite", "Helios",
		"Indigo", "Juniper", "Kestrel", "Lotus", "Monsoon", "Nimbus", "Orchid", "Pioneer", "Quartz",
		"Riverbend", "Saffron", "Tundra", "Umber", "Vertex", "Willow", "Xenon", "Yarrow", "Zephyr",
		"Aurora", "Basalt", "Cedar", "Delta", "Ember", "Falcon", "Glacier", "Harbor", "Ivory", "Jasper"}
	seedTrades = []string{"Textiles", "Logistics", "Software", "Foods", "Pharma", "Analytics", "Builders",
		"Solar", "Travel", "Health", "Motors", "Interiors", "Media", "Cloud", "Hotels", "Agro", "Labs",
		"Retail", "Consulting", "Energy"}
	seedForms  = []string{"Ltd", "Pvt Ltd", "GmbH", "SARL", "S.p.A.", "S.L.", "s.r.o.", "Lda", "Inc", "Pty Ltd"}
	seedDials  = []string{"+91", "+91", "+91", "+91", "+33", "+49", "+39", "+34", "+351", "+420", "+44", "+61", "+1"}
	seedPlaces = []struct{ city, state, country string }{
		{"Chennai", "Tamil Nadu", "India"}, {"Bangalore", "Karnataka", "India"}, {"Hyderabad", "Telangana", "India"},
		{"Mumbai", "Maharashtra", "India"}, {"Lyon", "Auvergne-Rhône-Alpes", "France"}, {"Munich", "Bavaria", "Germany"},
		{"Milan", "Lombardy", "Italy"}, {"Valencia", "Valencia", "Spain"}, {"Porto", "Porto", "Portugal"},
		{"Brno", "South Moravia", "Czechia"}, {"Leeds", "West Yorkshire", "United Kingdom"}, {"Perth", "Western Australia", "Australia"},
	}
)

// SeedBatch is how many leads one INSERT statement of SeedLeads carries; seedTxBatches
// statements share a transaction.
const (
	SeedBatch     = 1000
	seedTxBatches = 10
)

// SeedLeads adds n generated leads to the tenant, for trying and measuring the product at
// scale: spread over the tenant's stages (earlier stages fuller), statuses, sources, types,
// business types and users (as owners and creators), created over the past two years in id
// order. Rows go in multi-row inserts, SeedBatch at a time, committed every
// SeedBatch*seedTxBatches rows; progress is called after each commit. At the end the search
// index is compacted and the statistics refreshed, so the planner knows the new size. The
// same tenant and n give the same leads.
func (s Scope) SeedLeads(ctx context.Context, n int, progress func(done int)) error {
	if n <= 0 {
		return errors.New("seed: the number of leads must be positive")
	}
	g, err := s.newLeadGenerator(ctx, n)
	if err != nil {
		return err
	}
	batch := make([]Lead, 0, SeedBatch)
	for done := 0; done < n; {
		err := s.Tx(ctx, func(tx Scope) error {
			// SQLite: a larger page cache for this connection, as a million rows update a
			// dozen indexes at random places. PostgreSQL: more memory for the trigram index's
			// merges of its pending entries. The pending list keeps its default size (4 MB):
			// merged 64 MB at a time, the index came out 2.5 times the size of one built from
			// the same rows (523 against 206 bytes a lead at 200,000), for no faster a load.
			settings := []string{"PRAGMA cache_size = -262144"}
			if tx.Dialect() == Postgres {
				settings = []string{"SET LOCAL work_mem = '64MB'"}
			}
			if err := execAll(ctx, tx.idb, settings...); err != nil {
				return err
			}
			for b := 0; b < seedTxBatches && done < n; b++ {
				batch = batch[:0]
				for ; len(batch) < SeedBatch && done+len(batch) < n; batch = append(batch, g.lead(done+len(batch))) {
				}
				if _, err := tx.Insert(&batch).Exec(ctx); err != nil {
					return err
				}
				done += len(batch)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		if progress != nil {
			progress(done)
		}
	}
	// SQLite: merge the search index's segments, which a bulk load leaves many of (a search
	// reads every segment), and refresh the statistics. PostgreSQL: VACUUM also merges the
	// trigram index's pending entries and sets the visibility map index-only counts use; the
	// counters are rewritten packed. Each of the seed's transactions updates every counter
	// row once a statement (seedTxBatches of them), and their old versions can go only once
	// it commits: 2 × 1,000,000 leads left lead_counts at 929 pages for 3,530 rows, and the
	// list's count read them all (2.4 ms of page 1's 4.5). A tenant's real writes come spread
	// over time, with autovacuum between them.
	finish := []string{"INSERT INTO leads_fts (leads_fts) VALUES ('optimize')", "ANALYZE"}
	if s.Dialect() == Postgres {
		finish = []string{"VACUUM (ANALYZE) leads", "VACUUM (FULL, ANALYZE) lead_counts, lead_user_counts, lead_day_counts, lead_month_counts"}
	}
	for _, stmt := range finish {
		if _, err := s.db.bun.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("seed: %s: %w", stmt, err)
		}
	}
	return nil
}

// leadGenerator makes the leads of one seed run.
type leadGenerator struct {
	r                                          *rand.Rand
	stages, statuses, sources, types, business []int64
	titles                                     []string
	users                                      []int64
	start                                      time.Time
	step                                       time.Duration
}

func (s Scope) newLeadGenerator(ctx context.Context, n int) (*leadGenerator, error) {
	g := &leadGenerator{r: rand.New(rand.NewPCG(uint64(s.TenantID), uint64(n)))}
	ids := func(kind MasterKind, weighted bool) ([]int64, error) {
		ms, err := s.Masters(ctx, kind)
		var out []int64
		for i, m := range ms {
			copies := 1
			if weighted { // the first stage holds the most leads, the last the fewest
				copies = len(ms) - i
			}
			for range copies {
				out = append(out, m.ID)
			}
		}
		return out, err
	}
	var err error
	for _, x := range []struct {
		dst      *[]int64
		kind     MasterKind
		weighted bool
	}{{&g.stages, KindStage, true}, {&g.statuses, KindStatus, false}, {&g.sources, KindSource, false},
		{&g.types, KindType, false}, {&g.business, KindBusinessType, false}} {
		if *x.dst, err = ids(x.kind, x.weighted); err != nil {
			return nil, err
		}
	}
	titles, err := s.Masters(ctx, KindTitle)
	if err != nil {
		return nil, err
	}
	for _, t := range titles {
		g.titles = append(g.titles, t.Name)
	}
	if len(g.titles) == 0 {
		g.titles = []string{""}
	}
	var users []User
	if err := s.Select(&users).Column("id").Where("active").OrderExpr("id").Scan(ctx); err != nil {
		return nil, err
	}
	for _, u := range users {
		g.users = append(g.users, u.ID)
	}
	const span = 2 * 365 * 24 * time.Hour
	now := time.Now().UTC().Truncate(time.Second)
	g.start, g.step = now.Add(-span), span/time.Duration(n)
	return g, nil
}

func (g *leadGenerator) pick(ids []int64) *int64 {
	if len(ids) == 0 {
		return nil
	}
	id := ids[g.r.IntN(len(ids))]
	return &id
}

// lead makes the i-th lead of the run.
func (g *leadGenerator) lead(i int) Lead {
	r := g.r
	first, last := seedFirst[r.IntN(len(seedFirst))], seedLast[r.IntN(len(seedLast))]
	stem, trade := seedStems[r.IntN(len(seedStems))], seedTrades[r.IntN(len(seedTrades))]
	domain := strings.ToLower(strings.ReplaceAll(stem, " ", "")+trade) + ".example"
	created := g.start.Add(g.step*time.Duration(i) + time.Duration(r.IntN(3600))*time.Second)
	l := Lead{
		Contact: Contact{CustomerTitle: g.titles[r.IntN(len(g.titles))],
			CustomerName:       first + " " + last,
			CompanyName:        stem + " " + trade + " " + seedForms[r.IntN(len(seedForms))],
			CompanyEmail:       strings.ToLower(plainLetters(first)+"."+plainLetters(last)) + fmt.Sprintf("%d@%s", r.IntN(10000), domain),
			CompanyDialCode:    seedDials[r.IntN(len(seedDials))],
			CompanyPhoneNumber: fmt.Sprintf("%d%09d", 6+r.IntN(4), r.IntN(1_000_000_000)),
			CompanyTypeID:      g.pick(g.business),
			OwnerID:            g.pick(g.users),
		},
		LeadStageID:  g.pick(g.stages),
		LeadStatusID: g.pick(g.statuses),
		LeadSourceID: g.pick(g.sources),
		LeadTypeID:   g.pick(g.types),
		CreatedAt:    created,
		UpdatedAt:    created,
	}
	l.CreatedBy = l.OwnerID
	if r.IntN(5) == 0 { // one lead in five was entered by someone else than its owner
		l.CreatedBy = g.pick(g.users)
	}
	if r.IntN(10) < 7 {
		p := seedPlaces[r.IntN(len(seedPlaces))]
		a := &Address{FlatNo: fmt.Sprintf("%d", 1+r.IntN(250)), Street: fmt.Sprintf("%d %s Road", 1+r.IntN(90), last),
			City: p.city, State: p.state, Zip: fmt.Sprintf("%05d", r.IntN(100000)), Country: p.country}
		l.BillingAddress, l.ShippingAddress = a, a
	}
	l.SearchText = searchText(&l)
	return l
}

// plainLetters drops the accents of a name for its email address (Lucía → Lucia).
func plainLetters(s string) string {
	out, _, err := transform.String(transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC), s)
	if err != nil {
		return asciiOnly(s)
	}
	return out
}
