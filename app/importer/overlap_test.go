package importer

import (
	"errors"
	"slices"
	"sync"
	"testing"
)

// Batches in flight commit in their order, whichever finishes its work first, and a batch
// whose predecessor failed does not commit at all; no batch starts after a failure.
func TestOverlapCommitsInOrderAndNotAfterAFailure(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	for _, fail := range []bool{false, true} {
		var mu sync.Mutex
		var committed []int
		started := 0
		second := make(chan struct{}) // the second batch has done its work
		err := overlap(func(before, cur *inFlight) bool {
			if started == 4 {
				return false
			}
			i := started
			started++
			go func() {
				defer close(cur.done)
				switch i {
				case 0:
					<-second // the first batch ends after the second is ready to commit
					if fail {
						cur.err = boom
						return
					}
				case 1:
					close(second)
				}
				if cur.err = turn(before, cur).Wait(); cur.err != nil {
					return
				}
				mu.Lock()
				committed = append(committed, i)
				mu.Unlock()
			}()
			return true
		})
		switch {
		case !fail && (err != nil || !slices.Equal(committed, []int{0, 1, 2, 3})):
			t.Errorf("committed %v (%v), want 0 1 2 3 in order", committed, err)
		case fail && (!errors.Is(err, boom) || len(committed) != 0 || started != 2):
			t.Errorf("after a failure: committed %v, %d started (%v); want none committed, 2 started, boom", committed, started, err)
		}
	}
}
