package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

var (
	demoFirst     = []string{"Aarav", "Priya", "Liam", "Sofia", "Noah", "Emma", "Lucas", "Mia", "Arjun", "Chloé", "Mateo", "Hannah", "Ravi", "Lena", "Omar", "Julia", "Karan", "Elena"}
	demoLast      = []string{"Sharma", "Iyer", "Martin", "Rossi", "Müller", "Dubois", "García", "Novák", "Silva", "Reddy", "Smith", "Kumar", "Bernard", "Costa", "Nair", "Fischer"}
	demoCompanies = []string{"Acme Textiles", "Blue Harbor Logistics", "Cobalt Software", "Deccan Foods", "Everest Pharma", "Fjord Analytics",
		"Granite Builders", "Helios Solar", "Indigo Travel", "Juniper Health", "Kestrel Motors", "Lotus Interiors", "Monsoon Media",
		"Nimbus Cloud", "Orchid Hotels", "Pioneer Agro", "Quartz Labs", "Riverbend Retail"}
	demoCities = []struct{ city, state, country string }{
		{"Chennai", "Tamil Nadu", "India"}, {"Bangalore", "Karnataka", "India"}, {"Hyderabad", "Telangana", "India"},
	}
)

// seedDemoLeads adds a few dozen realistic leads, spread over stages, statuses, sources,
// types, owners and the last three months. The generator is seeded, so every demo is alike.
func seedDemoLeads(ctx context.Context, admin, sales Scope) error {
	r := rand.New(rand.NewPCG(2026, 11))
	masters := map[MasterKind][]Master{}
	for _, k := range []MasterKind{KindStage, KindStatus, KindSource, KindType, KindBusinessType} {
		ms, err := admin.Masters(ctx, k)
		if err != nil {
			return err
		}
		masters[k] = ms
	}
	pick := func(k MasterKind) *int64 {
		ms := masters[k]
		id := ms[r.IntN(len(ms))].ID
		return &id
	}
	now := time.Now().UTC()
	for i := 0; i < 36; i++ {
		first, last := demoFirst[r.IntN(len(demoFirst))], demoLast[r.IntN(len(demoLast))]
		company := demoCompanies[i%len(demoCompanies)]
		place := demoCities[r.IntN(len(demoCities))]
		addr := &Address{FlatNo: fmt.Sprintf("%d", 1+r.IntN(250)), Street: fmt.Sprintf("%d %s Road", 1+r.IntN(90), last),
			City: place.city, State: place.state, Zip: fmt.Sprintf("%06d", 500000+r.IntN(99999)), Country: place.country}
		created := now.Add(-time.Duration(r.IntN(90*24)) * time.Hour)
		in := LeadInput{
			Contact: Contact{CustomerTitle: []string{"Mr.", "Mrs.", "Ms.", "Dr."}[r.IntN(4)], CustomerName: first + " " + last,
				CompanyName: company, CompanyEmail: strings.ToLower(asciiOnly(first)+"."+asciiOnly(last)) + fmt.Sprintf("%d@example.com", i),
				CompanyDialCode: "+91", CompanyPhoneNumber: fmt.Sprintf("9%09d", r.IntN(1_000_000_000)),
				CompanyTypeID:  pick(KindBusinessType),
				BillingAddress: addr, ShippingAddress: addr,
			},
			LeadStageID: pick(KindStage), LeadStatusID: pick(KindStatus), LeadSourceID: pick(KindSource),
			LeadTypeID: pick(KindType), CreatedAt: &created,
		}
		creator := admin
		if i%2 == 1 {
			creator = sales
		}
		if _, _, err := creator.CreateLead(ctx, in, "", ""); err != nil {
			return fmt.Errorf("demo lead %d: %w", i, err)
		}
	}
	return nil
}

// asciiOnly keeps the letters an email address can carry without fuss.
func asciiOnly(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			return r
		case r == 'é':
			return 'e'
		case r == 'ü':
			return 'u'
		case r == 'á':
			return 'a'
		}
		return -1
	}, s)
}
