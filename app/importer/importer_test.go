package importer_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"crm/app/importer"
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

// TestImportThroughput is not run by default: set IMPORT_ROWS (e.g. 100000) to time an import
// of that many generated leads on each engine (TEST_DATABASE_URL for PostgreSQL), and
// IMPORT_UNDO=1 to time its undo as well.
func TestImportThroughput(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("IMPORT_ROWS"))
	if n == 0 {
		t.Skip("IMPORT_ROWS not set")
	}
	for _, d := range storetest.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			db := storetest.Open(t, d)
			ctx := context.Background()
			tn, u, err := db.CreateTenant(ctx, store.NewTenant{Name: "Bench", AdminEmail: "bench@x.test", AdminPassword: "Secret1!x"})
			if err != nil {
				t.Fatal(err)
			}
			s := db.Tenant(tn.ID, u.ID)
			data := GenerateCSV(n, 0)
			start := time.Now()
			im := upload(t, s, store.EntityLead, data)
			if _, err := s.QueueImport(ctx, im.ID, im.Mapping, store.ModeUpsert, store.MatchEmail); err != nil {
				t.Fatal(err)
			}
			log := slog.New(slog.NewTextHandler(io.Discard, nil))
			run, cpu := time.Now(), cpuTime()
			if err := (importer.Runner{DB: db, Log: log}).Run(ctx, store.ImportRef{TenantID: tn.ID, ID: im.ID}); err != nil {
				t.Fatal(err)
			}
			took, cpuTook := time.Since(run), cpuTime()-cpu
			got, _ := s.Import(ctx, im.ID)
			t.Logf("%s: %d rows (%d bytes) imported in %s, %s CPU in this process (upload+inspect %s): %.0f rows/s; created %d updated %d skipped %d failed %d",
				d, n, len(data), took.Round(time.Millisecond), cpuTook.Round(time.Millisecond), run.Sub(start).Round(time.Millisecond),
				float64(n)/took.Seconds(), got.Created, got.Updated, got.Skipped, got.Failed)
			if got.Status != store.ImportDone || got.Created != n {
				t.Fatalf("import: %+v", got)
			}
			if os.Getenv("IMPORT_UPDATE") != "" { // the same rows again, each one changed: every row an update
				again := upload(t, s, store.EntityLead, bytes.ReplaceAll(data, []byte("Ltd,"), []byte("Limited,")))
				if _, err := s.QueueImport(ctx, again.ID, again.Mapping, store.ModeUpsert, store.MatchEmail); err != nil {
					t.Fatal(err)
				}
				run, cpu := time.Now(), cpuTime()
				if err := (importer.Runner{DB: db, Log: log}).Run(ctx, store.ImportRef{TenantID: tn.ID, ID: again.ID}); err != nil {
					t.Fatal(err)
				}
				got, _ := s.Import(ctx, again.ID)
				t.Logf("%s: %d rows updated in %s, %s CPU in this process; created %d updated %d skipped %d failed %d", d, n,
					time.Since(run).Round(time.Millisecond), (cpuTime() - cpu).Round(time.Millisecond), got.Created, got.Updated, got.Skipped, got.Failed)
			}
			if os.Getenv("IMPORT_UNDO") != "" {
				if _, err := s.QueueUndo(ctx, im.ID); err != nil {
					t.Fatal(err)
				}
				undo := time.Now()
				if err := (importer.Runner{DB: db, Log: log}).Run(ctx, store.ImportRef{TenantID: tn.ID, ID: im.ID}); err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: undo of %d rows in %s", d, n, time.Since(undo).Round(time.Millisecond))
			}
		})
	}
}

// cpuTime is the CPU time (user and system) this process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
		tn, u, err := db.CreateTenant(ctx, store.NewTenant{Name: "Acme", AdminEmail: "a@x.test", AdminPassword: "Secret1!x"})
		if err != nil {
			t.Fatal(err)
		}
		s := db.Tenant(tn.ID, u.ID)
		im := upload(t, s, store.EntityLead, GenerateCSV(1200, 0))
		if _, err := s.QueueImport(ctx, im.ID, im.Mapping, store.ModeCreate, store.MatchEmail); err != nil {
			t.Fatal(err)
		}
		ref := store.ImportRef{TenantID: tn.ID, ID: im.ID}
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
		if err := (importer.Runner{DB: db, Log: log}).Resume(ctx, ref, time.Now().Add(time.Second)); err != nil {
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
