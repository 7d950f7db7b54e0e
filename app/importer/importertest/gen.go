// Package importertest makes realistic CSV files of leads for measuring and testing the
// import: the 22 columns a real export from another CRM or a spreadsheet carries (title,
// names, company, email, dial code and phone, the five masters by name, owner by name or
// email, a creation date in several common forms, both addresses, notes of several lines
// with accents, commas and quotes), in shuffled order, deterministic by seed. Both the
// importer's throughput test and crmbench's import measurement use it.
package importertest

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Header is the file's header: 22 columns, every one mapped by importer.Suggest.
var Header = []string{"Title", "Customer Name", "Company", "Email", "Dial Code", "Phone", "Company Type", "Lead Type",
	"Source", "Status", "Stage", "Owner", "Created Date", "Notes", "Billing Street", "Billing City", "Billing State",
	"Billing Zip", "Billing Country", "Shipping Street", "Shipping City", "Shipping Country"}

// Columns of Header, by name.
const (
	colTitle = iota
	colName
	colCompany
	colEmail
	colDial
	colPhone
	colCompanyType
	colLeadType
	colSource
	colStatus
	colStage
	colOwner
	colCreated
	colNotes
	colBillStreet
	colBillCity
	colBillState
	colBillZip
	colBillCountry
	colShipStreet
	colShipCity
	colShipCountry
	nCols
)

// Options say what to generate. The master names and owners are the tenant's (a name
// that is none of the tenant's would fail its row).
type Options struct {
	Rows int
	Seed uint64
	// Titles, CompanyTypes, LeadTypes, Sources, Statuses and Stages are the names a row
	// picks from; an empty list leaves the column empty.
	Titles, CompanyTypes, LeadTypes, Sources, Statuses, Stages []string
	// Owners are the owner cells a row picks from: user names (each one user's) or emails.
	Owners []string
	// Changed makes the file an update of the file with the same Rows and Seed: the same
	// leads (same emails), each one changed — every row a new company name, a quarter a new
	// stage (when there are two or more), a third a new shipping city, a fifth another line
	// of notes, a tenth another owner (when there are two or more) — and shuffled anew.
	Changed bool
}

// Email is the email of the lead of row i (0-based, before shuffling): a row's key, the
// same in the changed file.
func Email(o Options, i int) string { return newRow(o, i).email }

// Generate writes the file: the header, then o.Rows rows in shuffled order.
func Generate(o Options) []byte {
	var b bytes.Buffer
	b.Grow(o.Rows * 420)
	w := csv.NewWriter(&b)
	_ = w.Write(Header)
	order := rand.New(rand.NewPCG(o.Seed, 0x5eed+uint64(btoi(o.Changed)))).Perm(o.Rows)
	cells := make([]string, nCols)
	for _, i := range order {
		newRow(o, i).cells(o, cells)
		_ = w.Write(cells)
	}
	w.Flush()
	return b.Bytes()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

type place struct{ city, state, country, zip string }

var (
	firstNames = []string{"Aarav", "Priya", "Liam", "Sofía", "Noah", "Émilie", "Lucas", "Mia", "Arjun", "Chloé",
		"Mateo", "Hannah", "Ravi", "Lena", "Omar", "Jürgen", "Karan", "Elena", "Ananya", "Vikram", "Camille",
		"Louis", "Giulia", "Marco", "Lucía", "Diego", "Jana", "Tomáš", "Inês", "João", "Felix", "Zoë",
		"Meera", "Rohan", "Olivia", "Søren", "Begoña", "François", "Núria", "Kabir"}
	lastNames = []string{"Sharma", "Iyer", "Martin", "Rossi", "Müller", "Dubois", "García", "Novák", "Silva",
		"Reddy", "Smith", "Kumar", "Bernard", "Costa", "Nair", "Fischer", "Patel", "Menon", "Lefèvre",
		"Ferrari", "Großmann", "Fernández", "López", "Svoboda", "Dvořák", "Santos", "Peña", "Schmidt",
		"Weiß", "Taylor", "O'Brien", "Wilson", "Gupta", "Rao", "Moreau", "Ibáñez", "Jones", "Çelik",
		"Kowalski", "Singh"}
	stems = []string{"Acme", "Blue Harbor", "Cobalt", "Deccan", "Everest", "Fjord", "Granite", "Helios",
		"Indigo", "Juniper", "Kestrel", "Lotus", "Monsoon", "Nimbus", "Orchid", "Pioneer", "Quartz",
		"Riverbend", "Saffron", "Tundra", "Umber", "Vertex", "Willow", "Zephyr", "Aurora", "Basalt",
		"Cèdre", "Delta", "Ember", "Falcon", "Glacier", "Straße", "Ivory", "Jasper", "Mañana", "Brücke"}
	trades = []string{"Textiles", "Logistics", "Software", "Foods", "Pharma", "Analytics", "Builders",
		"Solar", "Travel", "Health", "Motors", "Interiors", "Media", "Cloud", "Hotels", "Agro", "Labs",
		"Retail", "Consulting", "Energy"}
	forms   = []string{"Ltd", "Pvt Ltd", "GmbH", "SARL", "S.p.A.", "S.L.", "s.r.o.", "Lda", "Inc", "Pty Ltd", "AG", "LLP"}
	dials   = []string{"+91", "+91", "+91", "+91", "+33", "+49", "+39", "+34", "+351", "+420", "+44", "+61", "+1"}
	streets = []string{"MG Road", "Rue de la République", "Hauptstraße", "Via Garibaldi", "Calle Mayor", "Rua Augusta",
		"Anna Salai", "Brigade Road", "Königsallee", "Gran Vía", "Náměstí Svobody", "High Street", "Avenida da Liberdade",
		"Boulevard Saint-Germain", "Linking Road", "Residency Road"}
	places = []place{
		{"Chennai", "Tamil Nadu", "India", "600%03d"}, {"Bengaluru", "Karnataka", "India", "560%03d"},
		{"Hyderabad", "Telangana", "India", "500%03d"}, {"Mumbai", "Maharashtra", "India", "400%03d"},
		{"Lyon", "Auvergne-Rhône-Alpes", "France", "69%03d"}, {"München", "Bayern", "Germany", "80%03d"},
		{"Milano", "Lombardia", "Italy", "20%03d"}, {"València", "Comunitat Valenciana", "Spain", "46%03d"},
		{"Porto", "Porto", "Portugal", "4000-%03d"}, {"Brno", "Jihomoravský kraj", "Czechia", "602 %02d"},
		{"Leeds", "West Yorkshire", "United Kingdom", "LS%d 4AB"}, {"Perth", "Western Australia", "Australia", "6%03d"},
		{"Zürich", "Zürich", "Switzerland", "80%02d"}, {"Kraków", "Małopolskie", "Poland", "30-%03d"},
	}
	noteLines = []string{
		"Met at the trade fair; wants a quote for 3 units.",
		"Spoke to the purchasing manager, \"call back after the 15th\".",
		"Prefers e-mail. Décision attendue fin du mois.",
		"Rückruf erbeten — Angebot für Q3.",
		"Interesado en el plan anual; pidió una demostración.",
		"Budget approved, waiting on legal (NDA, MSA).",
		"Referred by an existing client, priority: high.",
		"Sent brochure + price list; no reply yet.",
		"Visit planned at their office in the city centre.",
		"Asked for references in the same trade.",
		"Não atende de manhã; ligar à tarde.",
		"Competitor's contract ends in March, follow up.",
	}
	dateForms = []string{"2006-01-02", "2006-01-02 15:04:05", "02/01/2006", "02/01/2006 15:04"}
	dateBase  = time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)
)

// row is one generated lead.
type row struct {
	r                      *rand.Rand
	i                      int
	first, last, company   string
	stem, trade            string
	email                  string
	bill, ship             place
	billStreet, shipStreet string
	zip                    int
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func newRow(o Options, i int) *row {
	r := rand.New(rand.NewPCG(o.Seed, uint64(i)))
	w := &row{r: r, i: i, first: pick(r, firstNames), last: pick(r, lastNames), stem: pick(r, stems), trade: pick(r, trades)}
	w.company = w.stem + " " + w.trade + " " + pick(r, forms)
	domain := strings.ToLower(strings.ReplaceAll(plain(w.stem), " ", "-") + "-" + w.trade + ".example.com")
	w.email = strings.ToLower(strings.NewReplacer("'", "", " ", "").Replace(plain(w.first)+"."+plain(w.last))) +
		fmt.Sprintf(".%d@%s", i, domain)
	w.bill, w.ship = pick(r, places), pick(r, places)
	w.billStreet = fmt.Sprintf("%d, %s", 1+r.IntN(300), pick(r, streets))
	w.shipStreet = fmt.Sprintf("%d %s", 1+r.IntN(300), pick(r, streets))
	w.zip = r.IntN(100)
	return w
}

// cells fills out with the row's cells, changed when o.Changed.
func (w *row) cells(o Options, out []string) {
	r := w.r
	title := ""
	if len(o.Titles) > 0 && r.IntN(4) > 0 {
		title = pick(r, o.Titles)
	}
	phone := fmt.Sprintf("%d%04d %05d", 6+r.IntN(4), r.IntN(10000), r.IntN(100000))
	if r.IntN(3) == 0 {
		phone = fmt.Sprintf("(%03d) %03d-%04d", 200+r.IntN(700), r.IntN(1000), r.IntN(10000))
	}
	created := dateBase.Add(time.Duration(r.IntN(3*365*24*3600)) * time.Second)
	date := created.Format(pick(r, dateForms))
	nLines := 1 + r.IntN(4)
	notes := make([]string, 0, nLines+1)
	for range nLines {
		notes = append(notes, pick(r, noteLines))
	}
	orPick := func(xs []string) string {
		if len(xs) == 0 {
			return ""
		}
		return pick(r, xs)
	}
	companyType, leadType, source := orPick(o.CompanyTypes), orPick(o.LeadTypes), orPick(o.Sources)
	status, stage, owner := orPick(o.Statuses), orPick(o.Stages), orPick(o.Owners)
	company, shipCity := w.company, w.ship.city
	if o.Changed {
		c := rand.New(rand.NewPCG(o.Seed^0xc4a9e, uint64(w.i)))
		company = w.stem + " " + w.trade + " & Partners " + pick(c, forms) // every row: a new company name
		if w.i%4 == 0 && len(o.Stages) > 1 {
			stage = other(c, o.Stages, stage)
		}
		if w.i%3 == 0 {
			shipCity = other(c, places, w.ship).city
		}
		if w.i%5 == 0 {
			notes = append(notes, "Update: "+pick(c, noteLines))
		}
		if w.i%10 == 0 && len(o.Owners) > 1 {
			owner = other(c, o.Owners, owner)
		}
	}
	out[colTitle], out[colName], out[colCompany], out[colEmail] = title, w.first+" "+w.last, company, w.email
	out[colDial], out[colPhone] = pick(r, dials), phone
	out[colCompanyType], out[colLeadType], out[colSource], out[colStatus], out[colStage] = companyType, leadType, source, status, stage
	out[colOwner], out[colCreated], out[colNotes] = owner, date, strings.Join(notes, "\n")
	out[colBillStreet], out[colBillCity], out[colBillState] = w.billStreet, w.bill.city, w.bill.state
	out[colBillZip], out[colBillCountry] = fmt.Sprintf(w.bill.zip, w.zip), w.bill.country
	out[colShipStreet], out[colShipCity], out[colShipCountry] = w.shipStreet, shipCity, w.ship.country
}

// other picks an element of xs other than x (xs has two or more different ones).
func other[T comparable](r *rand.Rand, xs []T, x T) T {
	for {
		if y := pick(r, xs); y != x {
			return y
		}
	}
}

// plain drops the accents of a name for an email address (Lucía → Lucia, Weiß → Weiss).
func plain(s string) string {
	s = strings.NewReplacer("ß", "ss", "ø", "o", "Ø", "O", "ł", "l", "Ł", "L").Replace(s)
	out, _, err := transform.String(transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC), s)
	if err != nil {
		return s
	}
	return out
}
