package store

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"crm/app/auth"
	"crm/app/validate"
)

// The client list: the lists' paging (list.go) over the clients — search through a trigram
// index, sorts served by indexes led by tenant_id, keyset paging both ways, counts that are
// exact while cheap and capped beyond — and its bulk actions.

// Client list limits: those of the lead list.
const (
	DefaultClientLimit = DefaultLeadLimit
	MaxClientLimit     = MaxLeadLimit
	// ClientCountCap is the most a filtered count counts ("10,000+"); a search stops at
	// SearchCountCap ("100+").
	ClientCountCap = LeadCountCap
)

// SortCompanyShort is the client list's older name of SortCompany ("company"), kept for the API.
const SortCompanyShort = "company"

// ClientSorts lists the sort names ListClients accepts, besides the aliases SortName
// (SortCustomer) and SortCompanyShort (SortCompany).
var ClientSorts = []string{SortRecent, SortID, SortCustomer, SortCompany, SortCreated}

// clientSorts are the client list's sorts; text keys compare as lowercased bytes on both
// engines, as the (tenant_id, key, id) indexes of sql/*/20261122000008_client_list hold them.
var clientSorts = newListSorts(map[string]listSort{
	SortCustomer: textKey("lower(c.customer_name)"),
	SortCompany:  textKey("lower(c.company_name)"),
	SortCreated:  timeKey("c.created_at"),
}, map[string]string{SortName: SortCustomer, SortCompanyShort: SortCompany})

// clientText is how the clients' text is searched: the trigram indexes over c.search_text
// (clients_search_idx on PostgreSQL, clients_fts on SQLite) and, for a short term, the
// name, company and email indexes.
var clientText = textSearch{model: (*Client)(nil), id: "c.id", text: "c.search_text", fts: ClientEntity.searchIndex(),
	prefix: []string{"lower(c.customer_name)", "lower(c.company_name)", "c.company_email"}}

// ClientQuery selects a page of the clients a scope may reach.
//
// Paging is by keyset: After holds the Next of an earlier page, Before the Prev of a later
// one (with the same sort and order); without either, Page pages by offset (as the API
// always has). An empty filter does not filter.
type ClientQuery struct {
	Page   int    // 1-based page for offset paging; ignored when After or Before is set
	Limit  int    // rows per page, 1..MaxClientLimit; DefaultClientLimit otherwise
	Search string // case-insensitive over id, customer, company, email and phone
	Sort   string // one of ClientSorts, SortName or SortCompanyShort; "" is SortRecent
	Order  string // "asc" or "desc"; "" is desc for SortRecent and asc for the others
	After  string // keyset cursor: ClientPage.Next of the previous page
	Before string // keyset cursor: ClientPage.Prev of the following page

	OwnerIDs    []int64
	Converted   *bool     // true: clients linked to the lead they were converted from; false: the others
	CreatedFrom time.Time // created at or after this instant; zero: no bound
	CreatedTo   time.Time // created before this instant; zero: no bound
}

// ClientPage is one page of clients.
type ClientPage struct {
	Rows []ClientView
	// Total counts every client that matches: exact when it is cheap (from the per-day
	// counters when no filter but the creation days applies, or when the count stays within
	// ClientCountCap, SearchCountCap for a search), else that cap with TotalCapped set.
	Total       int64
	TotalCapped bool
	Next        string // the After of the following page; "" on the last page
	Prev        string // the Before of the previous page; "" on the first page
	Page        int    // the page served (1 when paging by keyset)
	Limit       int    // the page size served
}

// ListClients returns a page of the clients the scope may reach, through the lists' paging
// (list.go). Every statement starts from Scope.clients (or the counters under the same rule)
// and is served by an index led by tenant_id, as ListLeads's are: the page's ids come from
// one index range in the sort's order, read forwards after a cursor or backwards before
// one; a search is counted first up to SearchCountCap (searchMatches: a probe of the
// newest matches, or at most 1,001 matching ids collected through the search index, pg_trgm
// or FTS5 trigram, a short term through the prefix indexes); the total comes
// from client_day_counts when only the creation days filter, else from counting at most
// ClientCountCap+1 matches, or from a last page.
func (s Scope) ListClients(ctx context.Context, q ClientQuery) (*ClientPage, error) {
	f, r, err := s.clientFilter(ctx, q)
	if err != nil {
		return nil, err
	}
	found, err := s.findPage(ctx, f.spec(s), r)
	if err != nil {
		return nil, err
	}
	page := &ClientPage{Total: found.total, TotalCapped: found.capped, Next: found.next, Prev: found.prev, Page: r.page, Limit: r.limit}
	if page.Rows, err = s.clientViewsByID(ctx, found.hits); err != nil {
		return nil, err
	}
	if !found.counted {
		if page.Total, page.TotalCapped, err = s.countClients(ctx, f); err != nil {
			return nil, err
		}
	}
	return page, nil
}

// normalise applies the defaults and checks the sort, order, cursors and search.
func (q *ClientQuery) normalise() (*listRequest, error) {
	r, err := pageArgs{Page: q.Page, Limit: q.Limit, Search: q.Search, Sort: q.Sort, Order: q.Order, After: q.After, Before: q.Before}.
		request(clientSorts, DefaultClientLimit, MaxClientLimit)
	if err != nil {
		return nil, err
	}
	q.Page, q.Limit, q.Search = r.page, r.limit, r.search
	return r, nil
}

// clientFilter is a ClientQuery's filters with the search resolved, ready to add to a query.
type clientFilter struct {
	d      Dialect
	q      ClientQuery
	search *searchTerm
	// none: an owner filter names no user of this tenant, so nothing matches.
	none bool
}

// clientFilter checks and normalises a query's paging (as q.normalise), and resolves its
// filters.
func (s Scope) clientFilter(ctx context.Context, q ClientQuery) (*clientFilter, *listRequest, error) {
	r, err := q.normalise()
	if err != nil {
		return nil, nil, err
	}
	f := &clientFilter{d: s.Dialect(), q: q, search: parseSearch(q.Search)}
	if len(q.OwnerIDs) > 0 {
		// An id that is no user of the tenant matches nothing: left out, so the planner never
		// looks for another tenant's user among this tenant's clients.
		if f.q.OwnerIDs, err = s.knownUsers(ctx, q.OwnerIDs); err != nil {
			return nil, nil, err
		}
		f.none = len(f.q.OwnerIDs) == 0
	}
	if err := s.narrowSearch(ctx, clientText, f.search); err != nil {
		return nil, nil, err
	}
	return f, r, nil
}

// spec is the filtered clients as the lists' paging reads them.
func (f *clientFilter) spec(s Scope) listSpec {
	l := listSpec{from: func() *bun.SelectQuery { return s.clients((*Client)(nil)) }, id: "c.id",
		where: f.filter, search: f.search != nil, none: f.none}
	if f.search != nil {
		l.match = func(sel *bun.SelectQuery, b *boundIDs) *bun.SelectQuery {
			return clientText.where(sel, f.d, f.search, false, b, nil)
		}
		if !f.search.narrowed {
			l.walk = func(sel *bun.SelectQuery) *bun.SelectQuery {
				return clientText.where(sel, f.d, f.search, true, nil, nil)
			}
		}
	}
	return l
}

// filter adds the filters but the search to a query on clients.
func (f *clientFilter) filter(sel *bun.SelectQuery) *bun.SelectQuery {
	q := f.q
	sel = whereIn(sel, "c.owner_id", q.OwnerIDs)
	if q.Converted != nil {
		if *q.Converted {
			sel = sel.Where("c.lead_id IS NOT NULL")
		} else {
			sel = sel.Where("c.lead_id IS NULL")
		}
	}
	return whereCreated(sel, f.d, "c.created_at", q.CreatedFrom, q.CreatedTo)
}

// countable reports whether the per-day counters can answer the count: no filter but the
// creation days (whole UTC days).
func (f *clientFilter) countable() bool {
	q := f.q
	day := func(t time.Time) bool { return t.IsZero() || t.UTC().Truncate(24*time.Hour).Equal(t) }
	return f.search == nil && len(q.OwnerIDs) == 0 && q.Converted == nil && day(q.CreatedFrom) && day(q.CreatedTo)
}

// countClients counts the clients matching the filters: from client_day_counts when they
// can answer (exact, a row per day at most), else at most ClientCountCap+1 rows through
// the indexes.
func (s Scope) countClients(ctx context.Context, f *clientFilter) (int64, bool, error) {
	if f.countable() {
		sel := s.clientDays().ColumnExpr("CAST(COALESCE(SUM(cdc.n), 0) AS BIGINT)")
		if !f.q.CreatedFrom.IsZero() {
			sel = sel.Where("cdc.day >= ?", f.q.CreatedFrom.UTC().Format(DayLayout))
		}
		if !f.q.CreatedTo.IsZero() {
			sel = sel.Where("cdc.day < ?", f.q.CreatedTo.UTC().Format(DayLayout))
		}
		var n int64
		err := s.scanList(ctx, sel, &n)
		return n, false, err
	}
	return s.countCapped(ctx, f.spec(s).rows(), ClientCountCap)
}

// clientViewsByID loads the found clients with their names, in the order found: one text
// for every page, the ids sent apart (boundIDs).
func (s Scope) clientViewsByID(ctx context.Context, hits []listHit) ([]ClientView, error) {
	return readHits(ctx, hits, func(v *ClientView) int64 { return v.ID }, func(ids []int64) ([]ClientView, error) {
		var rows []ClientView
		rowIDs := s.boundIDs()
		sel := rowIDs.in(s.clientViews(&rows), "c.id", ids) // before rowIDs.ctx, which reads what it adds
		err := s.scanList(rowIDs.ctx(ctx), sel)
		return rows, err
	})
}

// ExplainListClients returns the query plan of every statement ListClients runs for q,
// each headed by its SQL, without running them (as ExplainListLeads).
func (s Scope) ExplainListClients(ctx context.Context, q ClientQuery) ([]string, error) {
	return explainPlans(ctx, func(ctx context.Context) error {
		_, err := s.ListClients(ctx, q)
		return err
	})
}

// --- Bulk actions --------------------------------------------------------------------

// BulkSetClientOwner gives the reachable clients among ids to owner in one transaction,
// each change recorded in the client's journey as an edit is; clients the scope cannot
// reach, and those the owner has already, are skipped. It returns how many changed. A user
// limited to their own clients can only give them to themselves.
func (s Scope) BulkSetClientOwner(ctx context.Context, ids []int64, owner int64) (int, error) {
	s = s.For(auth.Update)
	switch {
	case len(ids) == 0:
		return 0, validate.Errors{"ids": validate.KeyRequired}
	case len(ids) > MaxBulk:
		return 0, validate.Errors{"ids": validate.KeyMaxLength}
	case owner <= 0:
		return 0, validate.Errors{"owner_id": validate.KeyRequired}
	}
	changed := 0
	err := s.Tx(ctx, func(tx Scope) error {
		errs := validate.Errors{}
		if err := tx.checkOwner(ctx, auth.FeatureClients, &owner, errs); err != nil {
			return err
		}
		if len(errs) > 0 {
			return errs
		}
		var olds []Client
		if err := tx.clients(&olds).Where("c.id IN (?)", bun.In(ids)).OrderExpr("c.id").Scan(ctx); err != nil {
			return err
		}
		now := time.Now().UTC()
		for i := range olds {
			old := &olds[i]
			if old.OwnerID != nil && *old.OwnerID == owner {
				continue
			}
			next := *old
			next.OwnerID, next.UpdatedAt = &owner, now
			if _, err := tx.Update(&next).Column("owner_id", "updated_at").WherePK().Exec(ctx); err != nil {
				return err
			}
			if err := tx.Record(ctx, "client", old.ID, "update", old, &next); err != nil {
				return err
			}
			changed++
		}
		return nil
	})
	return changed, err
}

// DeleteClients deletes the reachable clients among ids, each recorded as DeleteClient
// does, in one transaction; it returns the ids it deleted (others are skipped), ErrNotFound
// when none could be.
func (s Scope) DeleteClients(ctx context.Context, ids []int64) ([]int64, error) {
	s = s.For(auth.Delete)
	return s.deleteEach(ctx, ids, Scope.DeleteClient)
}
