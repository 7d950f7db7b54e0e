package importer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"crm/app/importer"
	"crm/app/importer/importertest"
	"crm/app/race"
	"crm/app/store"
	"crm/app/store/storetest"
)

func TestInspectDetectsBOMDelimiterAndEncoding(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		data  []byte
		delim rune
		enc   string
	}{
		{"comma", []byte("Name,Email\nAna,ana@x.test\n"), ',', importer.EncodingUTF8},
		{"bom semicolon", append([]byte{0xEF, 0xBB, 0xBF}, []byte("Name;Email;Note\r\nAna;ana@x.test;\"a, b; c\"\r\n")...), ';', importer.EncodingUTF8},
		{"tab", []byte("Name\tEmail\nAna\tana@x.test\n"), '\t', importer.EncodingUTF8},
		{"quoted header commas", []byte("\"Name; full\",Email\nAna,ana@x.test\n"), ',', importer.EncodingUTF8},
		{"windows-1252", []byte("Name;City\nJos\xe9;M\xfcnchen\n"), ';', importer.EncodingWindows1252},
	}
	for _, c := range cases {
		in, err := importer.Inspect(c.data)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if in.Format.Delimiter != c.delim || in.Format.Encoding != c.enc || in.Rows != 1 {
			t.Errorf("%s: got %q %s %d rows", c.name, in.Format.Delimiter, in.Format.Encoding, in.Rows)
		}
		if in.Header[0] == "" || strings.HasPrefix(in.Header[0], "\ufeff") {
			t.Errorf("%s: header %q", c.name, in.Header)
		}
	}
	in, _ := importer.Inspect([]byte("Name;City\nJos\xe9;M\xfcnchen\n"))
	if in.Preview[0][0] != "José" || in.Preview[0][1] != "München" {
		t.Errorf("windows-1252 not decoded: %q", in.Preview[0])
	}
	in, _ = importer.Inspect(append([]byte{0xEF, 0xBB, 0xBF}, []byte("Name;Email;Note\r\nAna;ana@x.test;\"a, b; c\"\r\n\r\n;;\r\n")...))
	if in.Header[0] != "Name" || in.Preview[0][2] != "a, b; c" || in.Rows != 1 {
		t.Errorf("bom file: %q %q rows %d", in.Header, in.Preview, in.Rows)
	}
	for data, want := range map[string]error{"": importer.ErrEmpty, "Name,Email\n": importer.ErrNoRows,
		"\xff\xfeN\x00": importer.ErrEncoding} {
		if _, err := importer.Inspect([]byte(data)); err != want {
			t.Errorf("Inspect(%q) = %v, want %v", data, err, want)
		}
	}
}

func TestSuggestMapsHeaders(t *testing.T) {
	t.Parallel()
	header := []string{"E-mail", "Full Name", "Company", "Phone Number", "Stage", "Billing City", "Shipping Zip Code",
		"Owner", "Whatever", "company_email", "Nom du client"}
	got := importer.Suggest(store.EntityLead, header, map[string]string{"customer_title": "Civilité", "customer_name": "Nom du client"})
	want := []string{"company_email", "customer_name", "company_name", "company_phone_number", "lead_stage_id",
		"billing_address.city", "shipping_address.zip", "owner_id", "", "", ""}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("column %q → %q, want %q", header[i], got[i], want[i])
		}
	}
	// A client has no stage: the column stays unmapped.
	if got := importer.Suggest(store.EntityClient, []string{"Stage", "Email"}, nil); got[0] != "" || got[1] != "company_email" {
		t.Errorf("client suggestion %q", got)
	}
}

// TestImportThroughput is not run by default: set IMPORT_ROWS (e.g. 100000) to time, on
// each engine (TEST_DATABASE_URL for PostgreSQL), the import of a realistic 22-column file
// of that many new leads into a tenant of IMPORT_SEEDED leads (20,000 by default), then of
// the same leads changed (update mode), then the undo of each (importertest.Scenario, which
// crmbench runs too), with the counts checked after every step.
func TestImportThroughput(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("IMPORT_ROWS"))
	if n == 0 {
		t.Skip("IMPORT_ROWS not set")
	}
	seeded := 20000
	if v, err := strconv.Atoi(os.Getenv("IMPORT_SEEDED")); err == nil {
		seeded = v
	}
	if v, err := strconv.Atoi(os.Getenv("IMPORT_BATCH")); err == nil { // another batch size, to compare
		importer.BatchSize, importer.UndoBatchSize = v, v
	}
	if v, err := strconv.Atoi(os.Getenv("IMPORT_WINDOW")); err == nil { // another window, to compare
		importer.Window = v
	}
	batchLines, _ := strconv.Atoi(os.Getenv("IMPORT_BATCHES")) // each step's first batches, timed one by one
	for _, d := range storetest.Dialects() {
		if e := os.Getenv("IMPORT_ENGINE"); e != "" && e != string(d) {
			continue // IMPORT_ENGINE=sqlite or postgres: that engine only
		}
		t.Run(string(d), func(t *testing.T) {
			db := storetest.Open(t, d)
			sc := importertest.Scenario{DB: db, TenantName: "Import bench", Rows: n, Seeded: seeded, Users: 9, Seed: 13,
				Log: testWriter{t, string(d)}, Statements: os.Getenv("IMPORT_STATEMENTS") != "", BatchLines: batchLines}
			if _, err := sc.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The measurement's scenario, small: every row of the realistic file is created, then
// updated, then both undone, with the tenant's counts right after each step. Batches of
// 100 rows: on PostgreSQL two are in flight at a time, so the counts also say that
// overlapped batches apply and undo every row once and keep the counters exact.
func TestImportRealisticFileCountsEachStep(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		sc := importertest.Scenario{DB: db, TenantName: "Realistic", Rows: 1300, Seeded: 300, Users: 3, Seed: 1, BatchSize: 100}
		if race.Enabled { // still four batches a step, in flight together
			sc.Rows, sc.Seeded = 400, 100
		}
		steps, err := sc.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(steps) != 4 {
			t.Fatalf("%d steps", len(steps))
		}
	})
}

// A bench run stopped before its last undo leaves the leads of its file in the tenant it
// reuses. The next run removes them first, and measures and checks its steps as on a
// clean tenant; without that it failed at its first check ("seeded: N leads of the file,
// want 0"), and every later run with it.
func TestScenarioAfterARunStoppedBeforeItsUndo(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		sc := importertest.Scenario{DB: db, TenantName: "Stopped", Reuse: true, Rows: 300, Seeded: 100, Users: 2, Seed: 5, BatchSize: 100}
		if race.Enabled { // still two batches a step
			sc.Rows, sc.Seeded, sc.BatchSize = 100, 30, 50
		}
		if _, err := sc.Run(ctx); err != nil { // makes the tenant, and leaves it as it found it
			t.Fatal(err)
		}
		// What a run stopped after its create leaves: the file's leads, created.
		s, err := importertest.ImportCreate(ctx, db, sc.TenantName, importertest.Options{Rows: sc.Rows, Seed: sc.Seed})
		if err != nil {
			t.Fatal(err)
		}
		count := func() int {
			n, err := s.Select((*store.Lead)(nil)).Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return int(n)
		}
		if n := count(); n != sc.Seeded+sc.Rows {
			t.Fatalf("%d leads after the stopped run's create, want %d", n, sc.Seeded+sc.Rows)
		}

		var log bytes.Buffer
		sc.Log = &log
		steps, err := sc.Run(ctx)
		if err != nil {
			t.Fatalf("the run after the stopped one: %v\n%s", err, log.String())
		}
		if len(steps) != 4 {
			t.Fatalf("%d steps", len(steps))
		}
		if !strings.Contains(log.String(), fmt.Sprintf("%d leads of an earlier run's file removed", sc.Rows)) {
			t.Errorf("the run did not say it removed the stopped run's leads:\n%s", log.String())
		}
		if n := count(); n != sc.Seeded {
			t.Errorf("%d leads after the run, want the %d seeded", n, sc.Seeded)
		}
	})
}

// A run stopped after its last undo but before its tidy leaves no lead of its file, but
// SQLite's search index in a segment a batch (a run below the runner's TidyAfter leaves it
// so too): the next run merges it before it measures, or every search it times reads each.
func TestScenarioMergesASearchIndexLeftInSegments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.Open(t, store.SQLite)
	sc := importertest.Scenario{DB: db, TenantName: "Untidied", Reuse: true, Rows: 300, Seeded: 100, Users: 2, Seed: 5, BatchSize: 100}
	if race.Enabled {
		sc.Rows, sc.Seeded, sc.BatchSize = 100, 30, 50
	}
	if _, err := sc.Run(ctx); err != nil { // under TidyAfter: no tidy after its steps
		t.Fatal(err)
	}
	segments := func() int {
		n, err := db.SearchSegments(ctx, store.LeadEntity)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := segments(); n <= 1 {
		t.Fatalf("the run left the search index in %d segment(s): nothing for the next to merge", n)
	}
	var log bytes.Buffer
	sc.Log = &log
	removed, err := sc.RemoveLeftovers(ctx)
	if err != nil || removed != 0 {
		t.Fatalf("removed %d leads (%v), want none", removed, err)
	}
	if n := segments(); n != 1 {
		t.Errorf("the search index is in %d segments after the next run's start, want 1\n%s", n, log.String())
	}
	if !strings.Contains(log.String(), "segments merged") {
		t.Errorf("the run did not say it merged the index:\n%s", log.String())
	}
}

// An import's batches in flight need no more than one connection between them: the next
// batch asks for one only once the batch before holds its own, so a batch waiting for the
// commit of the one before never holds the connection that one waits for. With a pool of
// one connection (or as many imports at once as the pool has connections) the import and
// its undo would otherwise wait forever; the deadline only bounds such a failure.
func TestOverlappedBatchesNeedOneConnection(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	db := storetest.OpenWithPool(t, store.Postgres, 1)
	sc := importertest.Scenario{DB: db, TenantName: "One connection", Rows: 600, Seeded: 50, Users: 2, Seed: 3, BatchSize: 100}
	steps, err := sc.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 4 {
		t.Fatalf("%d steps", len(steps))
	}
}

// The realistic file is what it says: 22 columns, each mapped, every row one lead whose
// notes keep their line breaks and accents; the same seed gives the same file, in
// another order than the leads' own, and the changed file the same leads.
func TestGeneratedFile(t *testing.T) {
	t.Parallel()
	o := importertest.Options{Rows: 400, Seed: 7, Stages: []string{"Leads", "Deals"}, Owners: []string{"Ana", "bo@x.test"}}
	data := importertest.Generate(o)
	if !bytes.Equal(data, importertest.Generate(o)) {
		t.Fatal("the same options gave two files")
	}
	in, err := importer.Inspect(data)
	if err != nil || in.Rows != 400 || len(in.Header) != 22 {
		t.Fatalf("inspect: %d rows, %d columns, %v", in.Rows, len(in.Header), err)
	}
	for i, f := range importer.Suggest(store.EntityLead, in.Header, nil) {
		if f == "" {
			t.Errorf("column %q not mapped", in.Header[i])
		}
	}
	rows, err := importer.Open(data, importer.Format{Delimiter: ','})
	if err != nil {
		t.Fatal(err)
	}
	emails, sorted, multiline, accents := map[string]bool{}, true, 0, 0
	prev := ""
	for {
		r, ok := rows.Next()
		if !ok {
			break
		}
		if r.Err != nil || len(r.Cells) != 22 {
			t.Fatalf("row %d: %v %d cells", r.No, r.Err, len(r.Cells))
		}
		emails[r.Cells[3]] = true
		if prev != "" && r.Cells[3] < prev {
			sorted = false
		}
		prev = r.Cells[3]
		if strings.Contains(r.Cells[13], "\n") {
			multiline++
		}
		if strings.ContainsAny(r.Cells[1]+r.Cells[13]+r.Cells[15], "éüñßçãèíáóøö") {
			accents++
		}
	}
	if len(emails) != 400 || sorted || multiline < 100 || accents < 100 {
		t.Errorf("%d emails, sorted %v, %d multi-line notes, %d with accents", len(emails), sorted, multiline, accents)
	}
	o.Changed = true
	changed := importertest.Generate(o)
	if bytes.Equal(changed, data) || !bytes.Contains(changed, []byte(importertest.Email(o, 17))) {
		t.Error("the changed file is not the same leads changed")
	}
}

// testWriter writes lines to the test's log.
type testWriter struct {
	t      *testing.T
	prefix string
}

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(w.prefix + ": " + strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func upload(t *testing.T, s store.Scope, entity string, data []byte) *store.Import {
	t.Helper()
	in, err := importer.Inspect(data)
	if err != nil {
		t.Fatal(err)
	}
	im, err := s.CreateImport(context.Background(), store.NewImport{Entity: entity, FileName: "leads.csv", Content: data,
		Delimiter: importer.DelimiterName(in.Format.Delimiter), Encoding: in.Format.Encoding, Header: in.Header,
		Preview: in.Preview, TotalRows: in.Rows, Mapping: importer.Suggest(entity, in.Header, nil)})
	if err != nil {
		t.Fatal(err)
	}
	return im
}

// GenerateCSV writes n realistic lead rows, emails numbered from offset.
func GenerateCSV(n, offset int) []byte {
	var b bytes.Buffer
	b.WriteString("Customer name,Company,Email,Phone,Stage,Status,Source,Type,Billing City,Billing Country,Notes\n")
	stages := []string{"Leads", "Deals", "Won", "Lost"}
	statuses := []string{"New lead", "Attempt to contact", "Converted"}
	sources := []string{"Website", "Referral", "Campaign"}
	types := []string{"Hot", "Warm", "Cold"}
	cities := []string{"Chennai", "Bangalore", "Hyderabad"}
	for i := offset; i < offset+n; i++ {
		fmt.Fprintf(&b, "Person %d,Company %d Ltd,person%d@example.test,9%09d,%s,%s,%s,%s,%s,India,\"Imported, row %d\"\n",
			i, i%5000, i, i, stages[i%4], statuses[i%3], sources[i%3], types[i%3], cities[i%3], i)
	}
	return b.Bytes()
}

// A running import whose runner stopped (its process ended) is taken over from its last
// committed batch and finishes with every row applied once; the stopped runner's late
// batch is refused.
func TestImportResumesAfterItsRunnerStopped(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := acme(t, db)
		im := upload(t, s, store.EntityLead, GenerateCSV(1200, 0))
		if _, err := s.QueueImport(ctx, im.ID, im.Mapping, store.ModeCreate, store.MatchEmail); err != nil {
			t.Fatal(err)
		}
		ref := store.ImportRef{TenantID: s.TenantID, ID: im.ID}
		gone, err := db.ClaimImport(ctx, ref, "gone", time.Now().Add(-store.ImportStaleAfter))
		if err != nil || gone == nil || gone.Status != store.ImportRunning {
			t.Fatalf("claim: %+v %v", gone, err)
		}
		// It applies the first batch, then stops without a word.
		b, err := importer.NewBuilder(ctx, s, gone)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := importer.Open(GenerateCSV(1200, 0), importer.Format{Delimiter: ','})
		if err != nil {
			t.Fatal(err)
		}
		var items []store.ImportItem
		for range 500 {
			row, _ := rows.Next()
			items = append(items, b.Item(row))
		}
		if _, err := s.ApplyImportBatch(ctx, gone, items, 500); err != nil {
			t.Fatal(err)
		}
		// While it looks alive, nobody takes it over.
		if other, err := db.ClaimImport(ctx, ref, "other", time.Now().Add(-store.ImportStaleAfter)); err != nil || other != nil {
			t.Fatalf("a live import was claimed: %+v %v", other, err)
		}
		if refs, err := db.ImportsToRun(ctx, time.Now().Add(-store.ImportStaleAfter), 10); err != nil || len(refs) != 0 {
			t.Fatalf("to run while alive: %v %v", refs, err)
		}
		// Once quiet, it is resumed from row 502.
		if refs, err := db.ImportsToRun(ctx, time.Now().Add(time.Second), 10); err != nil || len(refs) != 1 || refs[0] != ref {
			t.Fatalf("to run once quiet: %v %v", refs, err)
		}
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		if err := importer.NewRunner(db, log, 0).Resume(ctx, ref, time.Now().Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		got, err := s.Import(ctx, im.ID)
		if err != nil || got.Status != store.ImportDone || got.Created != 1200 || got.NextRow != 1200 {
			t.Fatalf("resumed import: %+v %v", got, err)
		}
		if _, err := s.ApplyImportBatch(ctx, gone, items[:1], 501); err != store.ErrImportClaimLost {
			t.Fatalf("the stopped runner's late batch: %v", err)
		}
		page, err := s.ListLeads(ctx, store.LeadQuery{Limit: 1})
		if err != nil || page.Total != 1200 {
			t.Fatalf("leads: %d %v", page.Total, err)
		}
	})
}

// An update-mode import changes only the leads its rows match, each by what the row says,
// with its journey; a runner that stops is taken over from its last committed batch, so
// every row is applied once; the undo, taken over the same way, gives every lead back
// exactly as it was, once. The lead counters follow each step.
func TestImportUpdateModeResumesAndUndoesOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := acme(t, db)
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		runner := importer.NewRunner(db, log, 0)
		defer runner.Close()
		const n = 1200
		seed := upload(t, s, store.EntityLead, GenerateCSV(n, 0))
		if _, err := s.QueueImport(ctx, seed.ID, seed.Mapping, store.ModeCreate, store.MatchEmail); err != nil {
			t.Fatal(err)
		}
		if err := runner.Run(ctx, store.ImportRef{TenantID: s.TenantID, ID: seed.ID}); err != nil {
			t.Fatal(err)
		}
		seeded, err := s.ImportRows(ctx, seed.ID, 0, n)
		if err != nil || len(seeded) != n {
			t.Fatalf("seed: %d rows %v", len(seeded), err)
		}
		stages, err := s.Masters(ctx, store.KindStage)
		if err != nil {
			t.Fatal(err)
		}
		// states reads every seeded lead, and checks the lead list's counts by stage (kept by
		// triggers) against them.
		states := func(step string) []string {
			t.Helper()
			out := make([]string, n)
			byStage := map[int64]int64{}
			for i, r := range seeded {
				l, err := s.LeadView(ctx, *r.EntityID)
				if err != nil {
					t.Fatal(err)
				}
				byStage[*l.LeadStageID]++
				out[i] = fmt.Sprintf("%s|%s|%s|%s|%d|%d|%d|%d|%v|%s", l.CustomerName, l.CompanyName, l.CompanyEmail, l.CompanyPhoneNumber,
					*l.LeadStageID, *l.LeadStatusID, *l.LeadSourceID, *l.OwnerID, *l.BillingAddress, l.Notes)
			}
			for _, m := range stages {
				page, err := s.ListLeads(ctx, store.LeadQuery{StageIDs: []int64{m.ID}, Limit: 1})
				if err != nil || page.Total != byStage[m.ID] {
					t.Errorf("%s: stage %s counts %d, the leads say %d (%v)", step, m.Name, page.Total, byStage[m.ID], err)
				}
			}
			return out
		}
		before := states("seeded")

		// Every third row gets a new company name, every fifth moves to "Won"; the others
		// are as they are (skipped, unchanged). Then rows matching no lead, and one refused.
		lines := strings.Split(strings.TrimSuffix(string(GenerateCSV(n, 0)), "\n"), "\n")
		changed := map[int]bool{}
		for i := range n {
			line := lines[i+1]
			if i%3 == 0 {
				line = strings.Replace(line, " Ltd,", " Limited,", 1)
				changed[i] = true
			}
			if i%5 == 0 && !strings.Contains(line, ",Won,") {
				line = strings.Replace(line, ","+[]string{"Leads", "Deals", "Won", "Lost"}[i%4]+",", ",Won,", 1)
				changed[i] = true
			}
			lines[i+1] = line
		}
		lines = append(lines, "Nobody,None Ltd,nobody@example.test,9000000001,Won,New lead,Website,Hot,Chennai,India,x",
			"Bad Phone,Co,person7@example.test,12,,,,,,,")
		data := []byte(strings.Join(lines, "\n") + "\n")
		im := upload(t, s, store.EntityLead, data)
		if _, err := s.QueueImport(ctx, im.ID, im.Mapping, store.ModeUpdate, store.MatchEmail); err != nil {
			t.Fatal(err)
		}
		ref := store.ImportRef{TenantID: s.TenantID, ID: im.ID}
		gone, err := db.ClaimImport(ctx, ref, "gone", time.Now().Add(-store.ImportStaleAfter))
		if err != nil || gone == nil {
			t.Fatalf("claim: %+v %v", gone, err)
		}
		b, err := importer.NewBuilder(ctx, s, gone)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := importer.Open(data, importer.Format{Delimiter: ','})
		if err != nil {
			t.Fatal(err)
		}
		var items []store.ImportItem
		for range 500 {
			row, _ := rows.Next()
			items = append(items, b.Item(row))
		}
		if _, err := s.ApplyImportBatch(ctx, gone, items, 500); err != nil {
			t.Fatal(err)
		}
		if err := runner.Resume(ctx, ref, time.Now().Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ApplyImportBatch(ctx, gone, items[:1], 501); err != store.ErrImportClaimLost {
			t.Fatalf("the stopped runner's late batch: %v", err)
		}
		got, err := s.Import(ctx, im.ID)
		if err != nil || got.Status != store.ImportDone || got.NextRow != n+2 || got.Created != 0 || got.Updated != len(changed) ||
			got.Skipped != n-len(changed)+1 || got.Failed != 1 {
			t.Fatalf("update import: %+v %v; want %d updated", got, err, len(changed))
		}
		after := states("updated")
		for i := range n {
			if (after[i] != before[i]) != changed[i] {
				t.Errorf("row %d: %s → %s", i+2, before[i], after[i])
			}
		}
		for _, i := range []int{0, 3, 5, 1} {
			l, _ := s.LeadView(ctx, *seeded[i].EntityID)
			wantCompany, wantStage := fmt.Sprintf("Company %d Ltd", i), []string{"Leads", "Deals", "Won", "Lost"}[i%4]
			if i%3 == 0 {
				wantCompany = fmt.Sprintf("Company %d Limited", i)
			}
			if i%5 == 0 {
				wantStage = "Won"
			}
			if l.CompanyName != wantCompany || l.LeadStageName != wantStage || l.CustomerName != fmt.Sprintf("Person %d", i) {
				t.Errorf("lead of row %d: %q %q %q", i+2, l.CustomerName, l.CompanyName, l.LeadStageName)
			}
			hist, err := s.History(ctx, store.EntityLead, l.ID, 10)
			if err != nil {
				t.Fatal(err)
			}
			updates := 0
			for _, h := range hist {
				if h.Action == "update" {
					updates++
					var b, a map[string]any
					_ = json.Unmarshal([]byte(*h.Before), &b)
					_ = json.Unmarshal([]byte(*h.After), &a)
					if i%3 == 0 && (b["company_name"] != fmt.Sprintf("Company %d Ltd", i) || a["company_name"] != wantCompany) ||
						i%5 == 0 && a["lead_stage"] != "Won" || len(a) != len(b) || len(a) != btoi(i%3 == 0)+btoi(i%5 == 0 && i%4 != 2) {
						t.Errorf("journey of row %d: %s → %s", i+2, *h.Before, *h.After)
					}
				}
			}
			if updates != btoi(changed[i]) {
				t.Errorf("row %d: %d update entries", i+2, updates)
			}
		}

		// The undo, whose runner stops after a batch, then is taken over.
		if _, err := s.QueueUndo(ctx, im.ID); err != nil {
			t.Fatal(err)
		}
		goneUndo, err := db.ClaimImport(ctx, ref, "gone-undo", time.Now().Add(-store.ImportStaleAfter))
		if err != nil || goneUndo == nil || goneUndo.Status != store.ImportUndoing {
			t.Fatalf("claim the undo: %+v %v", goneUndo, err)
		}
		if more, err := s.UndoImportBatch(ctx, goneUndo, 100); err != nil || !more {
			t.Fatalf("first undo batch: %v %v", more, err)
		}
		if err := runner.Resume(ctx, ref, time.Now().Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.UndoImportBatch(ctx, goneUndo, 100); err != store.ErrImportClaimLost {
			t.Fatalf("the stopped undo runner's late batch: %v", err)
		}
		got, err = s.Import(ctx, im.ID)
		if err != nil || got.Status != store.ImportUndone || got.Undone != len(changed) || got.UndoTotal != len(changed) {
			t.Fatalf("undo: %+v %v", got, err)
		}
		restored := states("undone")
		for i := range n {
			if restored[i] != before[i] {
				t.Errorf("row %d after the undo: %s, want %s", i+2, restored[i], before[i])
			}
		}
		for i := range 30 {
			hist, _ := s.History(ctx, store.EntityLead, *seeded[i].EntityID, 10)
			undos := 0
			for _, h := range hist {
				if h.Action == "import_undo" {
					undos++
				}
			}
			if undos != btoi(changed[i]) {
				t.Errorf("row %d: %d import_undo entries", i+2, undos)
			}
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A cell with a NUL or another control character fails its row (invalidCharacters), as the
// API refuses such text; the row's reason does not keep the cell. The notes keep their
// line breaks.
func TestImportRefusesControlCharactersInCells(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := acme(t, db)
		data := []byte("Customer Name,Company Email,Notes\nA\x00nn,ann@x.test,ok\nBob,bob@x.test,\"two\nlines\"\nCy,cy@x.test,bell\x07\n")
		im := upload(t, s, store.EntityLead, data)
		b, err := importer.NewBuilder(ctx, s, im)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := importer.Open(data, importer.Format{Delimiter: ','})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"customer_name", "", "notes"}
		for i, field := range want {
			row, _ := rows.Next()
			it := b.Item(row)
			switch {
			case field == "" && it.Reason != nil:
				t.Errorf("row %d refused: %+v", i+2, it.Reason)
			case field != "" && (it.Reason == nil || it.Reason.Errors[field] != "invalidCharacters"):
				t.Errorf("row %d: %+v, want %s: invalidCharacters", i+2, it.Reason, field)
			}
		}
	})
}

// An import or an undo that wrote TidyAfter records or more leaves SQLite's search index in
// one segment, whatever state earlier writes left it in, and every lead still found; a
// smaller one leaves the index to FTS5's own merges.
func TestLargeImportTidiesTheSearchIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.Open(t, store.SQLite)
	s := acme(t, db)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	segments := func() int {
		n, err := db.SearchSegments(ctx, store.LeadEntity)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Twelve small imports, a commit each: a dozen segments, some merged by FTS5 in fours.
	small := importer.NewRunner(db, log, 0)
	for i := range 12 {
		if im := importLeads(t, s, small, 2, 100+2*i); im.Created != 2 {
			t.Fatalf("small import %d: %+v", i, im)
		}
	}
	if n := segments(); n < 3 {
		t.Fatalf("twelve commits left %d segments; the test needs several", n)
	}
	untidy := segments()
	// An import under the runner's threshold leaves them.
	r := importer.NewRunner(db, log, 0)
	r.TidyAfter = 31
	importLeads(t, s, r, 30, 0)
	if n := segments(); n <= 1 {
		t.Fatalf("an import of 30 rows under a threshold of 31 tidied the index (%d segments, %d before)", n, untidy)
	}
	// One at the threshold merges them into one.
	r.TidyAfter = 30
	im := importLeads(t, s, r, 30, 200)
	if n := segments(); n != 1 {
		t.Errorf("after an import of 30 rows at a threshold of 30: %d segments, want 1", n)
	}
	found := func(term string) int64 {
		page, err := s.ListLeads(ctx, store.LeadQuery{Limit: 1, Search: term})
		if err != nil {
			t.Fatal(err)
		}
		return page.Total
	}
	if n := found("example"); n != 84 {
		t.Errorf("a search after the tidy finds %d leads, want 84", n)
	}
	// Its undo too, after another small write scatters the index again.
	importLeads(t, s, small, 2, 300)
	if segments() <= 1 {
		t.Fatal("a commit after the tidy left one segment; the undo's tidy would prove nothing")
	}
	if _, err := s.QueueUndo(ctx, im.ID); err != nil {
		t.Fatal(err)
	}
	if undone := runImport(t, s, r, im.ID); undone.Undone != 30 {
		t.Fatalf("undo: %+v", undone)
	}
	if n := segments(); n != 1 {
		t.Errorf("after the undo of 30 leads at a threshold of 30: %d segments, want 1", n)
	}
	if n := found("example"); n != 56 {
		t.Errorf("a search after the undo's tidy finds %d leads, want 56", n)
	}
}

// On PostgreSQL an import or an undo that wrote TidyAfter records or more has the table's
// statistics gathered again (Runner.Tidy, store.DB.RefreshStatistics), through the owner's
// function, although the server's role may not ANALYZE: the next import's statements then
// probe their records instead of reading the tenant (store's
// TestImportBatchStatementsProbeTheirIndex). A smaller one leaves them to autovacuum, whose
// threshold (50 rows changed and a tenth of the table) it does not reach.
func TestLargeImportRefreshesStatistics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.Open(t, store.Postgres)
	s := acme(t, db)
	// What the planner believes the table holds: ANALYZE's count of its live rows (-1 or a
	// stale count until then; an insert or a delete does not change it).
	rows := func() float64 {
		t.Helper()
		var n float64
		err := db.RunInTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			return tx.QueryRowContext(ctx, "SELECT reltuples FROM pg_class WHERE oid = 'leads'::regclass").Scan(&n)
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	r := importer.NewRunner(db, slog.New(slog.NewTextHandler(io.Discard, nil)), 0)
	r.TidyAfter = 30
	if im := importLeads(t, s, r, 29, 0); im.Created != 29 {
		t.Fatalf("small import: %+v", im)
	}
	if n := rows(); n == 29 {
		t.Errorf("an import of 29 rows under a threshold of 30 refreshed the statistics")
	}
	im := importLeads(t, s, r, 30, 100)
	if im.Created != 30 {
		t.Fatalf("import at the threshold: %+v", im)
	}
	if n := rows(); n != 59 {
		t.Errorf("after an import of 30 rows at a threshold of 30 the statistics count %v leads, want 59", n)
	}
	if _, err := s.QueueUndo(ctx, im.ID); err != nil {
		t.Fatal(err)
	}
	if undone := runImport(t, s, r, im.ID); undone.Undone != 30 {
		t.Fatalf("undo: %+v", undone)
	}
	if n := rows(); n != 29 {
		t.Errorf("after the undo of 30 leads the statistics count %v leads, want 29", n)
	}
}

// runImport runs an import or its undo of the scope's tenant through a runner, and gives
// the import as it then stands.
func runImport(t *testing.T, s store.Scope, r *importer.Runner, id int64) *store.Import {
	t.Helper()
	ctx := context.Background()
	if err := r.Run(ctx, store.ImportRef{TenantID: s.TenantID, ID: id}); err != nil {
		t.Fatal(err)
	}
	im, err := s.Import(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return im
}

// importLeads imports n new leads (GenerateCSV from offset) into the scope's tenant through
// a runner.
func importLeads(t *testing.T, s store.Scope, r *importer.Runner, n, offset int) *store.Import {
	t.Helper()
	im := upload(t, s, store.EntityLead, GenerateCSV(n, offset))
	if _, err := s.QueueImport(context.Background(), im.ID, im.Mapping, store.ModeCreate, store.MatchEmail); err != nil {
		t.Fatal(err)
	}
	return runImport(t, s, r, im.ID)
}

// A batch whose rows share keys with the batch before it waits for that batch's commit
// before it looks its keys up (on PostgreSQL, where two are in flight at a time): each
// batch of this upsert file repeats the emails of the batch before, which must update the
// leads those rows created, not create them twice. The position moves forward batch by
// batch, each committed in the file's order; the undo leaves no lead and no count behind.
func TestOverlappedBatchesFindTheRecordsOfTheBatchBefore(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		s := acme(t, db)
		// Batches of 40 rows: 20 new leads, then the 20 of the batch before again, renamed
		// (the first batch: 40 new leads).
		const size, batches = 40, 12
		var b bytes.Buffer
		b.WriteString("Customer name,Email\n")
		for k := range batches {
			for i := k * 20; i < k*20+20; i++ {
				fmt.Fprintf(&b, "Person %d,person%d@example.test\n", i, i)
			}
			for i := (k - 1) * 20; k > 0 && i < k*20; i++ {
				fmt.Fprintf(&b, "Renamed %d,person%d@example.test\n", i, i)
			}
			for i := 0; k == 0 && i < 20; i++ { // the first batch: 20 more new leads
				fmt.Fprintf(&b, "Other %d,other%d@example.test\n", i, i)
			}
		}
		im := upload(t, s, store.EntityLead, b.Bytes())
		if _, err := s.QueueImport(ctx, im.ID, im.Mapping, store.ModeUpsert, store.MatchEmail); err != nil {
			t.Fatal(err)
		}
		r := importer.NewRunner(db, slog.New(slog.NewTextHandler(io.Discard, nil)), 0)
		r.BatchSize, r.Window = size, size // a window a batch: in file order, each batch's keys those of the batch before
		var positions []int
		r.AfterBatch = func(im *store.Import) { positions = append(positions, im.NextRow) }
		got := runImport(t, s, r, im.ID)
		leads := batches*20 + 20
		if got.Status != store.ImportDone || got.Created != leads || got.Updated != (batches-1)*20 || got.Skipped+got.Failed != 0 {
			t.Fatalf("import: %+v", got)
		}
		for i, p := range positions {
			if p != (i+1)*size {
				t.Fatalf("positions after each batch %v, want steps of %d", positions, size)
			}
		}
		page, err := s.ListLeads(ctx, store.LeadQuery{Limit: 1})
		if err != nil || page.Total != int64(leads) {
			t.Fatalf("leads: %d %v", page.Total, err)
		}
		var renamed []int64
		for _, q := range []string{"person0@example.test", fmt.Sprintf("person%d@example.test", (batches-1)*20-1)} { // the first and the last renamed
			found, err := s.ListLeads(ctx, store.LeadQuery{Search: q, Limit: 5})
			if err != nil || len(found.Rows) != 1 || !strings.HasPrefix(found.Rows[0].CustomerName, "Renamed") {
				t.Fatalf("%s: %+v %v", q, found, err)
			}
			renamed = append(renamed, found.Rows[0].ID)
		}
		// The undo, window by window from the last row (two in flight on PostgreSQL): each
		// window's renames give back names that the window below then deletes with its leads.
		if _, err := s.QueueUndo(ctx, im.ID); err != nil {
			t.Fatal(err)
		}
		r.UndoBatchSize = size
		got = runImport(t, s, r, im.ID)
		if got.Status != store.ImportUndone || got.Undone != got.Created+got.Updated {
			t.Fatalf("undo: %+v", got)
		}
		page, err = s.ListLeads(ctx, store.LeadQuery{Limit: 1})
		if err != nil || page.Total != 0 || len(page.Rows) != 0 {
			t.Fatalf("leads after the undo: %d %d %v", page.Total, len(page.Rows), err)
		}
		// A renamed lead is deleted by the window below the one that gave its name back, which
		// waited for that window's commit: the delete's journey entry has the name given back.
		for _, id := range renamed {
			entries, err := s.History(ctx, store.EntityLead, id, 10)
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(entries, func(e store.AuditEntry) bool { return e.Action == "delete" })
			if i < 0 || entries[i].Before == nil || !strings.Contains(*entries[i].Before, `"customer_name":"Person `) {
				t.Errorf("lead %d: the undo's delete entry %+v, want the name the window above gave back", id, entries)
			}
		}
	})
}

// acme makes a tenant "Acme" and gives its system scope, acting as its administrator.
func acme(t *testing.T, db *store.DB) store.Scope {
	t.Helper()
	tn, u, err := db.CreateTenant(context.Background(), store.NewTenant{DefaultLocale: "en_US", Name: "Acme",
		AdminEmail: "a@x.test", AdminPassword: "Secret1!x"})
	if err != nil {
		t.Fatal(err)
	}
	return db.System(tn.ID, u.ID)
}
