package main

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"crm/app/store"
	"crm/app/store/storetest"
)

// A tenant created in French starts with its stages, statuses, sources and lead types in
// French; the won and lost stages keep their meaning whatever their name.
func TestCreateTenantSeedsMastersInItsLanguage(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects() {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			url := storetest.URL(t, d)
			out, err := crm(t, url, "create-tenant", "--name", "Chez Nous", "--admin-email", "patron@nous.test",
				"--admin-password", "Secret1!x", "--locale", "fr_FR")
			if err != nil {
				t.Fatal(err)
			}
			id, _ := strconv.ParseInt(lastLine(out), 10, 64)
			db, err := store.Open(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			s := db.System(id, 0)
			want := map[store.MasterKind][]string{
				store.KindStage:  {"Prospects", "Affaires", "Gagné", "Perdu"},
				store.KindStatus: {"Nouveau prospect", "Tentative de contact", "Converti"},
				store.KindSource: {"Site web", "Recommandation", "Campagne"},
				store.KindType:   {"Chaud", "Tiède", "Froid"},
			}
			for kind, names := range want {
				ms, err := s.Masters(context.Background(), kind)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, m := range ms {
					got = append(got, m.Name)
					if m.Name == "Gagné" && !m.IsWon || m.Name == "Perdu" && !m.IsLost || m.Name == "Prospects" && !m.IsDefault {
						t.Errorf("%s lost its role: %+v", m.Name, m)
					}
				}
				if !slices.Equal(got, names) {
					t.Errorf("%s: %q, want %q", kind, got, names)
				}
			}
		})
	}
}
