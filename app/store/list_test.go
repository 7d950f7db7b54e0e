package store

import (
	"encoding/base64"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"crm/app/validate"
)

// The lists' paging without a database: cursors, the request's checks, the count cap and
// the paging of a search's complete matches. (The lists themselves are tested through
// ListLeads and ListClients on both engines, in leads_list_test.go and clients_list_test.go.)

func TestListCursorRoundTrip(t *testing.T) {
	// The encoding is the one handed out before the paging was shared: older cursors still page.
	if got := (listCursor{Sort: SortID, Desc: true, ID: 24}).encode(); got != "eyJzIjoiaWQiLCJkIjp0cnVlLCJpIjoyNH0" {
		t.Errorf("encoding changed: %s", got)
	}
	cases := []struct {
		sorts listSorts
		sort  string
		order string
		c     listCursor
	}{
		{leadSorts, "", "", listCursor{ID: 42}},
		{leadSorts, SortID, "desc", listCursor{ID: 1}},
		{leadSorts, SortName, "", listCursor{Key: `ana "silva" émile`, ID: 7}},
		{leadSorts, SortEmail, "desc", listCursor{Key: "first_last@under.test", ID: 9}},
		{leadSorts, SortCreated, "", listCursor{Key: "2026-03-01 09:00:00+00", ID: 3}},
		{leadSorts, SortStage, "desc", listCursor{Group: 5, ID: 11}},
		{leadSorts, SortSource, "", listCursor{ID: 11}}, // the group of rows without a source
		{clientSorts, SortCompanyShort, "", listCursor{Key: "zenith & co", ID: 17}},
		{clientSorts, SortRecent, "asc", listCursor{ID: 2}},
	}
	for _, c := range cases {
		srt := c.sorts[c.sort]
		c.c.Sort, c.c.Desc = srt.name, srt.desc
		if c.order != "" {
			c.c.Desc = c.order == "desc"
		}
		for _, back := range []bool{false, true} {
			if back && srt.group != "" {
				continue
			}
			a := pageArgs{Sort: c.sort, Order: c.order, Page: 3}
			if back {
				a.Before = c.c.encode()
			} else {
				a.After = c.c.encode()
			}
			r, err := a.request(c.sorts, 20, 100)
			if err != nil {
				t.Errorf("%q %q back %v: %v", c.sort, c.order, back, err)
				continue
			}
			if !reflect.DeepEqual(*r.cur, c.c) || r.back != back || r.page != 1 {
				t.Errorf("%q %q back %v: got %+v (back %v, page %d), want %+v", c.sort, c.order, back, *r.cur, r.back, r.page, c.c)
			}
		}
	}
}

func TestListRequestRefusals(t *testing.T) {
	byName := listCursor{Sort: SortCustomer, Key: "ana silva", ID: 4}.encode()
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	tampered := []byte(byName)
	tampered[3] ^= 0x20 // one character changed: no longer JSON
	cases := []struct {
		name  string
		sorts listSorts
		a     pageArgs
		field string // the field refused, "" for none
	}{
		{"not a cursor", leadSorts, pageArgs{After: "not a cursor"}, "after"},
		{"empty object", leadSorts, pageArgs{After: "eyJ9"}, "after"},
		{"not JSON", leadSorts, pageArgs{Sort: SortCustomer, After: b64("ana silva")}, "after"},
		{"tampered", leadSorts, pageArgs{Sort: SortCustomer, After: string(tampered)}, "after"},
		{"no id", leadSorts, pageArgs{After: b64(`{"s":"id","d":true,"i":0}`)}, "after"},
		{"another sort's", leadSorts, pageArgs{Sort: SortCompany, After: byName}, "after"},
		{"the other direction's", leadSorts, pageArgs{Sort: SortCustomer, Order: "desc", After: byName}, "after"},
		{"before, another sort's", clientSorts, pageArgs{Before: byName}, "before"},
		{"after and before", clientSorts, pageArgs{Sort: SortCustomer, After: byName, Before: byName}, "before"},
		{"before on a master's order", leadSorts, pageArgs{Sort: SortStage, Before: byName}, "before"},
		{"a sort of the other list", clientSorts, pageArgs{Sort: SortEmail}, "sort"},
		{"an order", clientSorts, pageArgs{Order: "sideways"}, "order"},
		{"a long search", leadSorts, pageArgs{Search: strings.Repeat("é", maxSearchLen+1)}, "search"},
		{"the longest search", leadSorts, pageArgs{Search: " " + strings.Repeat("é", maxSearchLen) + " "}, ""},
		{"the lists share a sort's cursors", clientSorts, pageArgs{Sort: SortName, After: byName}, ""},
	}
	for _, c := range cases {
		_, err := c.a.request(c.sorts, 20, 100)
		var verr validate.Errors
		switch {
		case c.field == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.field != "" && (!errors.As(err, &verr) || verr[c.field] == "" || len(verr) != 1):
			t.Errorf("%s: got %v, want a refusal of %s alone", c.name, err, c.field)
		}
	}
	// Defaults: page 1 and the default limit outside 1..max; the search trimmed.
	for _, c := range []struct {
		a           pageArgs
		page, limit int
	}{{pageArgs{}, 1, 20}, {pageArgs{Page: -2, Limit: 101}, 1, 20}, {pageArgs{Page: 4, Limit: 100}, 4, 100}, {pageArgs{Limit: -1}, 1, 20}} {
		c.a.Search = "  Ana "
		r, err := c.a.request(leadSorts, 20, 100)
		if err != nil || r.page != c.page || r.limit != c.limit || r.search != "Ana" || r.srt.name != SortID || !r.srt.desc {
			t.Errorf("%+v: %+v, %v", c.a, r, err)
		}
	}
}

func TestListCountCap(t *testing.T) {
	for _, c := range []struct {
		n      int64
		most   int
		want   int64
		capped bool
	}{
		{0, LeadCountCap, 0, false},
		{LeadCountCap, LeadCountCap, LeadCountCap, false},
		{LeadCountCap + 1, LeadCountCap, LeadCountCap, true}, // what countCapped reads at most
		{SearchCountCap + 1, SearchCountCap, SearchCountCap, true},
		{1 << 40, ClientCountCap, ClientCountCap, true},
	} {
		if got, capped := capAt(c.n, c.most); got != c.want || capped != c.capped {
			t.Errorf("capAt(%d, %d) = %d, %v; want %d, %v", c.n, c.most, got, capped, c.want, c.capped)
		}
	}
}

func TestPageOfIDs(t *testing.T) {
	ids := []int64{5, 1, 9, 3, 7} // as a search's matches come: in no order
	for _, c := range []struct {
		desc        bool
		after       int64 // a cursor's id; 0 for none
		page, limit int
		want        []int64
	}{
		{true, 0, 1, 2, []int64{9, 7, 5}},
		{false, 0, 1, 2, []int64{1, 3, 5}},
		{true, 7, 1, 2, []int64{5, 3, 1}},
		{false, 7, 1, 2, []int64{9}},
		{true, 6, 1, 10, []int64{5, 3, 1}}, // a cursor on an id since deleted
		{false, 9, 1, 2, []int64{}},
		{true, 0, 2, 2, []int64{5, 3, 1}},
		{true, 0, 4, 2, []int64{}},
	} {
		var cur *listCursor
		if c.after > 0 {
			cur = &listCursor{ID: c.after}
		}
		var got []int64
		for _, h := range pageOfIDs(ids, c.desc, cur, c.page, c.limit) {
			got = append(got, h.ID)
		}
		if !slices.Equal(got, c.want) && len(got)+len(c.want) > 0 {
			t.Errorf("%+v: %v", c, got)
		}
	}
}
