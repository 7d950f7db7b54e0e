package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"crm/app/store"
	"crm/app/store/storetest"
)

// BenchmarkImportContent reads an uploaded file of 40 MB back, as a runner does before its
// first batch, on SQLite and, with TEST_DATABASE_URL, on PostgreSQL (where it comes in
// binary, withBinaryResults; docs/PERFORMANCE.md, "Forty-third round"):
//
//	go test ./app/store -run '^$' -bench ImportContent -benchtime 10x
func BenchmarkImportContent(b *testing.B) {
	var file strings.Builder
	file.WriteString("Customer name,Email,Notes\n")
	for i := 0; file.Len() < 40<<20; i++ {
		fmt.Fprintf(&file, "Zoë Müller %d,person%d@example.test,\"Called about the new plan; a second line\nand l'été %d\"\n", i, i, i*7)
	}
	content := []byte(file.String())
	for _, d := range storetest.Dialects() {
		b.Run(string(d), func(b *testing.B) {
			ctx := context.Background()
			db := storetest.Open(b, d)
			tn, admin, err := db.CreateTenant(ctx, store.NewTenant{DefaultLocale: "en_US", Name: "Files", AdminEmail: "boss@files.test", AdminPassword: "Secret1!x"})
			if err != nil {
				b.Fatal(err)
			}
			s := db.System(tn.ID, admin.ID)
			b.SetBytes(int64(len(content)))
			for b.Loop() {
				// A new import each time, as a runner reads each file once: a text PostgreSQL
				// has run before is prepared and reads in binary anyway (plans.go).
				b.StopTimer()
				im, err := s.CreateImport(ctx, store.NewImport{Entity: store.EntityLead, FileName: "leads.csv", Content: content,
					Delimiter: ",", Encoding: "utf-8", Header: []string{"Customer name", "Email", "Notes"}, TotalRows: 1})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				got, err := s.ImportContent(ctx, im.ID)
				if err != nil || len(got) != len(content) {
					b.Fatalf("%d bytes of %d: %v", len(got), len(content), err)
				}
			}
		})
	}
}
