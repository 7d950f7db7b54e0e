package store

import (
	"os"
	"regexp"
	"testing"
	"unicode"
)

func TestFoldDropsCaseAndAccents(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"García": "garcia", "ŘEHOŘ Dvořák": "rehor dvorak", "Straße": "strasse",
		"François Lœuvre": "francois loeuvre", "João Conceição": "joao conceicao", "Łódź": "lodz", "plain ascii": "plain ascii"} {
		if got := fold(in); got != want {
			t.Errorf("fold(%q) = %q, want %q", in, got, want)
		}
	}
}

// The migration that refolds old rows uses the same table of letters as fold: every lowercase
// accented letter of Latin-1 and Latin Extended-A, each replaced by what fold makes of it.
func TestSearchFoldMigrationAgreesWithFold(t *testing.T) {
	t.Parallel()
	pair := regexp.MustCompile(`'([^']+)', '([^']*)'\)`)
	for _, dialect := range []string{"sqlite", "postgres"} {
		b, err := os.ReadFile("../../sql/" + dialect + "/20261123000500_search_fold.tx.up.sql")
		if err != nil {
			t.Fatal(err)
		}
		table := map[string]string{}
		for _, m := range pair.FindAllStringSubmatch(string(b), -1) {
			table[m[1]] = m[2]
		}
		for r := rune(0xC0); r < 0x180; r++ {
			s := string(r)
			if !unicode.IsLetter(r) || !unicode.IsLower(r) {
				continue
			}
			want := fold(s)
			got, ok := table[s]
			if want == s && ok || want != s && got != want {
				t.Errorf("%s: %q becomes %q in the migration, fold gives %q", dialect, s, got, want)
			}
		}
	}
}
