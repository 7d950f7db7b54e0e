package store

import "testing"

// The trigram index is asked for a term's words without the separators between long words:
// the padded trigrams at a separator ("eo ", " si") are among the index's longest posting
// lists. Short words keep their separators, and a term with nothing to loosen has no
// pattern of its own.
func TestWordsPatternDropsSeparatorsBetweenLongWords(t *testing.T) {
	t.Parallel()
	for term, want := range map[string]string{
		"mateo.silva7276":  "%mateo%silva7276%",
		"aarav kowalski":   "%aarav%kowalski%",
		"@gmail.com":       "%gmail%com%",
		"rahul sharma.":    "%rahul%sharma%",
		"+91 98765 43210":  "%+91 98765%43210%",
		"al sharma":        "",             // "al" gives the index nothing without its separator
		"zenith & co":      "",             // nor does "co"
		"a.b":              "",             // no word of three
		"...":              "",             // no word at all
		"sharma":           "",             // one word: the term itself
		"100% pure":        "%100%pure%",   // a "%" of the term is a separator like any other
		"first_last":       "%first%last%", // and so is "_": the row's check reads both as they are
		"ab% cd":           "",             // between short words: kept (escaped), nothing loosened
		"lead07@acme.test": "%lead07%acme%test%",
		"o'brien smith":    "%o'brien%smith%",
	} {
		st := parseSearch(term)
		if got := st.wordsPattern(); got != want {
			t.Errorf("wordsPattern(%q) = %q, want %q", term, got, want)
		}
	}
}
