package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"golang.org/x/sync/singleflight"
)

// PostgreSQL's trigram index (pg_trgm, GIN) reads the posting list of every trigram of a
// term's words, as FTS5 read its doclists: "hannah%williams6547" takes 11–16 ms at a million
// leads, and three of its rarest trigrams, each asked as LIKE '%abc%', 0.8 ms
// (docs/PERFORMANCE.md, "Twenty-fourth round"). pg_trgm keeps no count of a trigram's rows,
// and the planner estimates every three-character pattern alike, so how rare a trigram is
// comes from a sample: the trigrams of the search texts of the tenant's newest
// trigramSampleSize leads, counted once and kept trigramSampleTTL. A count that has gone
// stale only picks other trigrams: every row is checked against the whole term.

const (
	// trigramSampleSize is how many of a tenant's newest leads the sample reads.
	trigramSampleSize = 2000
	// trigramSampleTTL is how long a tenant's sample is used.
	trigramSampleTTL = 10 * time.Minute
	// trigramSamplesMax bounds the tenants kept; past it the cache starts afresh.
	trigramSamplesMax = 200
)

// trigramSample is how many of a tenant's sampled search texts hold each trigram of a word
// (pg_trgm's trigrams of a LIKE pattern: letters and digits, no padding).
type trigramSample struct {
	counts map[string]int32
	rows   int
	at     time.Time
}

// sampleKey names a sample: a tenant's records of one table.
type sampleKey struct {
	tenant int64
	table  string
}

type trigramSamples struct {
	mu sync.Mutex
	m  map[sampleKey]*trigramSample
	// reading has the requests that find a sample missing or stale wait for the one read of
	// it: at a server's start, or when a sample expires under load, each search would read
	// and count the same 2,000 texts at once.
	reading singleflight.Group
}

func newTrigramSamples() *trigramSamples { return &trigramSamples{m: map[sampleKey]*trigramSample{}} }

// wordTrigrams are the distinct trigrams of the words (runs of letters and digits of three
// or more) of text, in the order they first appear.
func wordTrigrams(text string) []string {
	var out []string
	for _, word := range words(text) {
		for _, t := range trigrams(word) {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// words are the runs of letters and digits of text (isWordRune).
func words(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) })
}

// isWordRune reports whether r belongs to a word, for pg_trgm and a search term alike: a
// letter or a digit.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// trigramCounts is the tenant's sample of ts's table: how many of its newest search texts
// hold each trigram, and how many texts were read (fewer than trigramSampleSize: a small
// tenant).
func (s Scope) trigramCounts(ctx context.Context, ts textSearch) (map[string]int32, int, error) {
	c, now, key := s.db.samples, time.Now(), sampleKey{s.TenantID, ts.fts}
	if c == nil { // (a DB built by hand, in a test)
		c = newTrigramSamples()
	}
	c.mu.Lock()
	sm := c.m[key]
	c.mu.Unlock()
	if sm != nil && now.Sub(sm.at) < trigramSampleTTL && !now.Before(sm.at) {
		return sm.counts, sm.rows, nil
	}
	v, err, _ := c.reading.Do(fmt.Sprint(key.tenant, " ", key.table), func() (any, error) {
		var texts []string
		// (Not cancelled with the request that reads it: others wait for it too.)
		if err := s.Select(ts.model).ColumnExpr(ts.text).OrderExpr(ts.id+" DESC").Limit(trigramSampleSize).Scan(context.WithoutCancel(ctx), &texts); err != nil {
			return nil, err
		}
		sm := &trigramSample{counts: countWordTrigrams(texts), rows: len(texts), at: now}
		c.mu.Lock()
		if len(c.m) >= trigramSamplesMax {
			c.m = map[sampleKey]*trigramSample{}
		}
		c.m[key] = sm
		c.mu.Unlock()
		return sm, nil
	})
	if err != nil {
		return nil, 0, err
	}
	sm = v.(*trigramSample)
	return sm.counts, sm.rows, nil
}

// countWordTrigrams is how many of texts hold each trigram of a word (wordTrigrams, counted
// once a text). A text's trigrams are told apart by the text they were last seen in, not
// by looking each up among the text's others (wordTrigrams' way, which took 7 % of a
// loaded server's CPU in its first seconds, counting the samples).
func countWordTrigrams(texts []string) map[string]int32 {
	counts, last := map[string]int32{}, map[string]int{}
	for i, text := range texts {
		for _, word := range words(text) {
			eachTrigram(word, func(tg string) {
				if seen, ok := last[tg]; !ok || seen != i {
					last[tg] = i
					counts[tg]++
				}
			})
		}
	}
	return counts
}

// narrowSample asks PostgreSQL's trigram index for three of st's rarest trigrams, by the
// tenant's sample, when that is much cheaper than its words (chooseSampled), or else for
// the rarest trigram of each of its words (chooseWordTrigrams). A small tenant's term stays
// as it is.
func (s Scope) narrowSample(ctx context.Context, ts textSearch, st *searchTerm) error {
	tgs := wordTrigrams(st.text)
	if len(tgs) <= narrowTrigrams {
		return nil
	}
	counts, rows, err := s.trigramCounts(ctx, ts)
	if err != nil || rows < trigramSampleSize {
		return err
	}
	sizes := sampledSizes(tgs, counts)
	if chosen := chooseSampled(tgs, sizes); chosen != nil {
		st.likes, st.narrowed = chosen, true
	} else {
		st.likes = chooseWordTrigrams(st.text, tgs, sizes, counts)
	}
	return nil
}

// sampledSizes is how many of the sampled texts hold each of tgs.
func sampledSizes(tgs []string, counts map[string]int32) []int64 {
	sizes := make([]int64, len(tgs))
	for i, t := range tgs {
		sizes[i] = int64(counts[t])
	}
	return sizes
}

// wordsGain is how many times fewer sampled texts the rarest trigram of each word of a term
// must be in than all the term's trigrams together, for the term to be asked of the index
// as those (chooseWordTrigrams).
const wordsGain = 2

// chooseWordTrigrams picks what PostgreSQL's trigram index is asked for a term of two words
// or more (of three letters or digits each) that has no rare trigram, a customer's full
// name such as "ravi dubois": the rarest trigram of each word by the sample, when together
// they are in wordsGain times fewer texts than all the term's trigrams (tgs, each in
// sizes[i] texts, as narrowSample has them); nil otherwise.
// pg_trgm reads the whole posting list of every trigram it is asked for, and a name's are
// long ("rav" is in a tenth of the bench's leads, each other trigram of "ravi dubois" in a
// fortieth). One trigram a word keeps every word in the condition, so the candidates are
// those of the words intersected, as before: asked so, 20 names of the bench's database had
// the same candidates and took 9–16 ms against 19–31 ms (docs/PERFORMANCE.md, "Forty-fourth
// round"). Each candidate is then checked against the whole term, as a narrowed term's is;
// unlike one, the term is still walked when it is common ("pvt ltd"), as its count decides.
func chooseWordTrigrams(text string, tgs []string, sizes []int64, counts map[string]int32) []string {
	var chosen []string
	var sum, total int64
	asked := 0 // words of three characters or more
	for _, word := range words(text) {
		rarest, least := "", int64(-1)
		eachTrigram(word, func(tg string) {
			if n := int64(counts[tg]); least < 0 || n < least {
				rarest, least = tg, n
			}
		})
		if rarest == "" { // a word of one or two characters: the check alone holds it
			continue
		}
		asked++
		if !slices.Contains(chosen, rarest) {
			chosen, sum = append(chosen, rarest), sum+least
		}
	}
	for _, n := range sizes {
		total += n
	}
	if asked < 2 || len(chosen) == len(tgs) || sum*wordsGain > total {
		return nil
	}
	return chosen
}

// chooseSampled picks the trigrams PostgreSQL's index is asked for, from their counts in the
// sample: the narrowTrigrams rarest, when the rarest is in at most narrowRarePages of the
// sampled texts (0.8 %) and together they are narrowGain times rarer than all the term's
// trigrams; nil otherwise. A term of common trigrams only, such as a name ("aarav brown"),
// matches thousands of rows, which its words' posting lists intersected find with fewer
// checks in the heap: narrowed, it took up to 270 ms. Always three, unlike FTS5's choice
// (chooseTrigrams): PostgreSQL checks each candidate in the table's heap, a random read,
// and a single trigram of "jack.fischer2387" ("r23") left thousands of them, 65 ms, where
// its posting lists are cheap to intersect.
func chooseSampled(tgs []string, counts []int64) []string {
	rarest, total := rarestTrigrams(tgs, counts)
	if len(rarest) == 0 || counts[rarest[0]] > narrowRarePages {
		return nil
	}
	var chosen []string
	var sum int64
	for _, i := range rarest {
		chosen, sum = append(chosen, tgs[i]), sum+counts[i]
	}
	if sum*narrowGain > total {
		return nil
	}
	return chosen
}
