package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// On SQLite a search term is asked of the FTS5 trigram index as a phrase: every trigram of
// the term at consecutive positions. FTS5 reads the whole doclist of each of them, so a long
// term costs what its commonest trigrams cost. An email's local part such as
// "ravi.dubois8979" reads 25,000–97,000 entries for each of "rav", "avi", "dub"… to find one
// row (9 ms at a million leads), where its three rarest trigrams ("i.d", "s89", "is8")
// answer in 0.5 ms with 7 candidates (docs/PERFORMANCE.md, "Twenty-fourth round"). So a
// long term whose rarest trigrams are rare is asked of the index as those alone
// (Scope.narrowSearch), and each candidate row is then checked against the whole term
// (instr on its search text, as PostgreSQL's strpos does), a row the query reads anyway.

const (
	// narrowTrigrams is how many of its rarest trigrams a narrowed term is asked as, at most.
	narrowTrigrams = 3
	// narrowRarePages is the most leaf pages of the index (about a thousand entries each) a
	// trigram a term is narrowed to may fill. Reading a page costs about 0.04 ms, checking a
	// candidate row about 0.01 ms: a third trigram of 10 pages costs 0.4 ms and took the
	// candidates of "lucia.lopez3890" from 577 to 15 (6 ms of checks). The rows checked are
	// at most those of the rarest trigram.
	narrowRarePages = 16
	// narrowMinPages: a term whose trigrams fill no more pages than this is read whole as
	// the phrase, in about half a millisecond.
	narrowMinPages = 16
	// narrowGain is how many times fewer pages the chosen trigrams must fill than all of
	// the term's, for the narrowing to be worth the estimate and the checks.
	narrowGain = 4
)

// trigramPagesSQL estimates how many leaf pages of an FTS5 index (%_idx, named by %[1]s)
// each trigram of a JSON array ($1) fills, summed over the index's segments. %_idx has a row
// for each leaf page that starts with a new term: its segment, the term's shortest prefix
// that tells it from the page before (after the byte '0' of the main index), and the page
// number shifted left once. A doclist that fills pages by itself leaves no rows for them, so
// the pages from the row at or before a trigram to the next row are about the length of its
// doclist (or of the doclist after it on the same page: an estimate errs high, never low
// enough to choose a common trigram over a rare one). The segments are walked by their ids,
// an index seek each.
const trigramPagesSQL = `WITH RECURSIVE seg(id) AS (
  SELECT min(segid) FROM %[1]s
  UNION ALL
  SELECT (SELECT min(segid) FROM %[1]s WHERE segid > seg.id) FROM seg WHERE seg.id IS NOT NULL
), t(k, key) AS (SELECT key, CAST('0' || value AS BLOB) FROM json_each(%[2]s))
SELECT t.k AS k, SUM(
  (COALESCE((SELECT pgno FROM %[1]s i WHERE i.segid = seg.id AND i.term > t.key ORDER BY i.term LIMIT 1),
            (SELECT MAX(pgno) FROM %[1]s i WHERE i.segid = seg.id) + 2) >> 1)
  - (COALESCE((SELECT pgno FROM %[1]s i WHERE i.segid = seg.id AND i.term <= t.key ORDER BY i.term DESC LIMIT 1), 0) >> 1))
AS n
FROM t, seg WHERE seg.id IS NOT NULL GROUP BY t.k`

// trigrams are the distinct trigrams of text, as FTS5's trigram tokenizer cuts it (by
// character), in the order they first appear.
func trigrams(text string) []string {
	var out []string
	eachTrigram(text, func(t string) {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	})
	return out
}

// eachTrigram calls fn with every trigram of text (three characters), in order, repeats
// included.
func eachTrigram(text string, fn func(string)) {
	r := []rune(text)
	for i := 0; i+3 <= len(r); i++ {
		fn(string(r[i : i+3]))
	}
}

// ftsString is s as an FTS5 string: in double quotes, a double quote doubled.
func ftsString(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// chooseTrigrams picks the trigrams a term is asked of the index as, from the pages each
// fills (pages[i] is trigrams[i]'s): its narrowTrigrams rarest, those of them that fill at
// most narrowRarePages, when they fill narrowGain times fewer pages than all the term's
// trigrams; nil otherwise (the phrase: nothing to gain, as when all the term's trigrams
// fill no more than narrowMinPages).
func chooseTrigrams(tgs []string, pages []int64) []string {
	rarest, total := rarestTrigrams(tgs, pages)
	var chosen []string
	var sum int64
	for _, i := range rarest {
		if pages[i] <= narrowRarePages {
			chosen, sum = append(chosen, tgs[i]), sum+pages[i]
		}
	}
	if len(chosen) == 0 || total <= narrowMinPages || sum*narrowGain > total {
		return nil
	}
	return chosen
}

// rarestTrigrams gives the indexes of the narrowTrigrams trigrams of tgs with the smallest
// sizes (sizes[i] is tgs[i]'s), smallest first, and all their sizes summed; none when the
// term has no more than narrowTrigrams trigrams (then asked whole).
func rarestTrigrams(tgs []string, sizes []int64) (rarest []int, total int64) {
	if len(tgs) <= narrowTrigrams || len(sizes) != len(tgs) {
		return nil, 0
	}
	order := make([]int, len(tgs))
	for i := range order {
		order[i] = i
		total += sizes[i]
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(sizes[a] - sizes[b]) })
	return order[:narrowTrigrams], total
}

// narrowSearch asks the FTS5 index ts.fts for st as a few of its rarest trigrams when that
// is much cheaper than the phrase (SQLite, a term of more than narrowTrigrams trigrams), and
// PostgreSQL's trigram index likewise (narrowSample); st.narrowed then says each row must
// be checked against the whole term (textSearch).
func (s Scope) narrowSearch(ctx context.Context, ts textSearch, st *searchTerm) error {
	if st == nil || st.short {
		return nil
	}
	if s.Dialect() == Postgres {
		return s.narrowSample(ctx, ts, st)
	}
	tgs := trigrams(st.text)
	if len(tgs) <= narrowTrigrams {
		return nil
	}
	js, err := json.Marshal(tgs)
	if err != nil {
		return err
	}
	// The trigrams are sent apart from the text, so every estimate is one statement,
	// compiled once a connection.
	query := fmt.Sprintf(trigramPagesSQL, ts.fts+"_idx", s.param(1))
	var est []struct {
		K int   `bun:"k"`
		N int64 `bun:"n"`
	}
	if err := s.idb.NewRaw(query).Scan(withBound(ctx, string(js)), &est); err != nil {
		return err
	}
	pages := make([]int64, len(tgs))
	for _, e := range est {
		if e.K >= 0 && e.K < len(pages) {
			pages[e.K] = e.N
		}
	}
	if chosen := chooseTrigrams(tgs, pages); chosen != nil {
		quoted := make([]string, len(chosen))
		for i, t := range chosen {
			quoted[i] = ftsString(t)
		}
		st.fts, st.narrowed = strings.Join(quoted, " AND "), true
	}
	return nil
}
