package store

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"
)

// statementLog keeps the text of every statement a database runs (a bun query hook).
type statementLog struct {
	mu  sync.Mutex
	sql []string
}

func (l *statementLog) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (l *statementLog) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	l.mu.Lock()
	l.sql = append(l.sql, e.Query)
	l.mu.Unlock()
}

var inList = regexp.MustCompile(`\b([mu])\.id IN \(([^)]*)\)`)

// A page's names come in one statement that asks for each master and user once, however
// many of the page's leads share them: PostgreSQL estimates an IN list element by element
// while planning (distinctIDs). The names still reach every lead of the page.
func TestLeadPageAsksEachNameOnce(t *testing.T) {
	eachImportDB(t, func(t *testing.T, db *DB, s Scope, admin, rep *User) {
		ctx := context.Background()
		if err := s.SeedLeads(ctx, 60, nil); err != nil {
			t.Fatal(err)
		}
		log := &statementLog{}
		db.bun.AddQueryHook(log)
		page, err := s.ListLeads(ctx, LeadQuery{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Rows {
			if r.LeadStageName == "" || r.OwnerName == "" {
				t.Fatalf("lead %d without its stage or owner name: %+v", r.ID, r)
			}
		}
		log.mu.Lock()
		defer log.mu.Unlock()
		lists := 0
		for _, q := range log.sql {
			for _, m := range inList.FindAllStringSubmatch(q, -1) {
				lists++
				ids := strings.Split(m[2], ", ")
				if sorted := slices.Compact(slices.Sorted(slices.Values(ids))); len(sorted) != len(ids) {
					t.Errorf("%s.id IN (%s): an id more than once", m[1], m[2])
				}
			}
		}
		if lists != 2 {
			t.Errorf("%d lists of masters or users among the page's statements:\n%s", lists, strings.Join(log.sql, "\n"))
		}
	})
}
