package store

import (
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Search folds case and accents, so "garcia" finds "García" and "GARCÍA": search_text is
// written folded (Contact.searchText) and the term is folded the same way (parseSearch).
// The migration 20261123000500_search_fold refolds the rows written before, with the same
// table of letters as this function for Latin-1 and Latin Extended-A.

// unaccent decomposes letters and drops their combining marks (é → e, ř → r, ç → c). A new
// chain each time: a transform.Chain keeps state and may not be shared between goroutines.
func unaccent() transform.Transformer {
	return transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
}

// unsplit are letters no decomposition takes apart.
var unsplit = strings.NewReplacer("ß", "ss", "æ", "ae", "œ", "oe", "ø", "o", "ł", "l", "đ", "d", "ð", "d", "þ", "th", "ı", "i", "ħ", "h", "ŀ", "l", "ŧ", "t", "ĸ", "k", "ŉ", "n")

// fold is s lowercased and without accents, as search compares text.
func fold(s string) string {
	s = strings.ToLower(s)
	if isASCII(s) {
		return s
	}
	out, _, err := transform.String(unaccent(), s)
	if err != nil {
		out = s
	}
	return unsplit.Replace(out)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
