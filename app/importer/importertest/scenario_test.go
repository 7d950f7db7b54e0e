package importertest

import (
	"math"
	"testing"
	"time"
)

// Batches that commit in pairs (two in flight, the second just after the first) at a steady
// 4,000 rows a second give that rate for each tenth, wherever the tenth falls.
func TestRatesOfBatchesCommittedInPairs(t *testing.T) {
	t.Parallel()
	start := time.Unix(0, 0)
	for _, batches := range []int{50, 30, 12} {
		marks := []batchMark{{at: start}}
		for i := 1; i <= batches; i++ {
			at := time.Duration((i+1)/2) * time.Second // a pair each second
			if i%2 == 1 {
				at -= 50 * time.Millisecond // the first of the pair just before the second
			}
			marks = append(marks, batchMark{at: start.Add(at), cpu: at / 4, done: 2000 * i})
		}
		wall, cpu := rates(marks)
		for i, r := range wall {
			if math.Abs(r-4000) > 1 {
				t.Errorf("%d batches: tenth %d at %.0f rows/s, want 4000 (all: %.0f)", batches, i, r, wall)
			}
			if math.Abs(cpu[i]-16000) > 4 {
				t.Errorf("%d batches: tenth %d at %.0f rows per CPU second, want 16000", batches, i, cpu[i])
			}
		}
	}
}
