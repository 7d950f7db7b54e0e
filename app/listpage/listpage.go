// Package listpage is the handler side of the list kit (views/components/list.go): what
// every admin list page with search, sorts, keyset paging and bulk actions does the same
// way (the lead list, the client list …). A resource describes its list once (List) and
// its bulk actions (BulkChange, BulkDelete); the flows read the form, refuse at the bulk
// tools, confirm, flash and go back to the list view the form came from.
package listpage

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/a-h/templ"

	"crm/app/auth"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	"crm/views/components"
)

// List is a resource's list page as the shared flows need it. M is its view model (a
// pointer, so SetError can change it).
type List[M any] struct {
	Kit     *web.Kit
	Path    string // the list's address, "/leads": bulk posts go back to it
	Results string // id of the results region htmx swaps
	TitleID string // message id of the page's title
	// Load builds the view model for the request and a list query (as the address has it).
	Load func(r *http.Request, q url.Values) (M, error)
	// Page is the whole list page; Fragment is what htmx gets for the results region.
	Page     func(M) templ.Component
	Fragment func(M) templ.Component
	// SetError shows the refusal of a bulk action at the bulk tools.
	SetError func(m M, msg string)
}

// Serve answers GET on the list: the page, or only its results when htmx asks for them.
func (l *List[M]) Serve(w http.ResponseWriter, r *http.Request) {
	m, err := l.Load(r, r.URL.Query())
	if err != nil {
		l.Kit.Fail(w, r, err)
		return
	}
	l.Render(w, r, http.StatusOK, m)
}

// Render shows the list page with status, or only its results when htmx asks for them.
func (l *List[M]) Render(w http.ResponseWriter, r *http.Request, status int, m M) {
	w.Header().Add("Vary", "HX-Request, HX-Target")
	if r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-Target") == l.Results {
		l.Kit.Render(w, r, status, l.Fragment(m))
		return
	}
	l.Kit.Page(w, r, status, web.T(r, l.TitleID), l.Page(m))
}

// Back is where a post from the list returns: the list view it came from (its "back"
// field), or the bare list when that is not a view of this list.
func (l *List[M]) Back(r *http.Request) string {
	back := web.SafeNext(r.PostFormValue("back"), l.Path)
	if u, err := url.Parse(back); err != nil || u.Path != l.Path {
		return l.Path
	}
	return back
}

// Refuse re-renders the list view at back (a Back address) with 422, set changing the
// model to show why where the refused form was. Its address is back, so the language
// switch returns to it.
func (l *List[M]) Refuse(w http.ResponseWriter, r *http.Request, back string, set func(M)) {
	u, err := url.Parse(back)
	if err != nil || u.Path != l.Path {
		u = &url.URL{Path: l.Path}
	}
	r2 := r.Clone(r.Context())
	r2.URL = u
	r2.Header.Del("HX-Request")
	m, err := l.Load(r2, u.Query())
	if err != nil {
		l.Kit.Fail(w, r, err)
		return
	}
	set(m)
	l.Render(w, r2, http.StatusUnprocessableEntity, m)
}

// refuseBulk is Refuse with msg at the bulk tools.
func (l *List[M]) refuseBulk(w http.ResponseWriter, r *http.Request, back, msg string) {
	l.Refuse(w, r, back, func(m M) { l.SetError(m, msg) })
}

// selection reads a bulk post: the form, where to go back, and the ticked ids. It has
// answered (and returns ok false) when the form is malformed or nothing is ticked.
func (l *List[M]) selection(w http.ResponseWriter, r *http.Request, noneID string) (back string, ids []int64, ok bool) {
	if err := web.ReadForm(w, r); err != nil {
		l.Kit.Fail(w, r, err)
		return "", nil, false
	}
	back = l.Back(r)
	ids, err := web.FormIDs(r, "ids")
	if err != nil {
		l.Kit.Fail(w, r, err)
		return "", nil, false
	}
	if len(ids) == 0 {
		l.refuseBulk(w, r, back, web.T(r, noneID))
		return "", nil, false
	}
	return back, ids, true
}

// BulkChange is a resource's bulk change of one field of the ticked records.
type BulkChange struct {
	// Fields are the fields a bulk change may set. The form's "field" names the one it
	// sets (a list with one field needs none); its value is the form's value of that name.
	Fields []string
	NoneID string // message id of the refusal when nothing is ticked
	DoneID string // message id of the flash, with Count
	// Apply sets field to value on the records ids and says how many changed; a
	// validate.Errors refuses at the bulk tools.
	Apply func(r *http.Request, ids []int64, field string, value int64) (int, error)
}

// BulkChange sets a field of the ticked records, then goes back to the list view with a
// flash; nothing ticked, no value chosen, or a refused value re-renders the list with
// the reason at the bulk tools.
func (l *List[M]) BulkChange(w http.ResponseWriter, r *http.Request, c BulkChange) {
	back, ids, ok := l.selection(w, r, c.NoneID)
	if !ok {
		return
	}
	field := r.PostFormValue("field")
	if len(c.Fields) == 1 {
		field = c.Fields[0]
	}
	value, _ := strconv.ParseInt(r.PostFormValue(field), 10, 64)
	if !slices.Contains(c.Fields, field) || value <= 0 {
		l.refuseBulk(w, r, back, web.T(r, "list.chooseValue"))
		return
	}
	n, err := c.Apply(r, ids, field, value)
	var ve validate.Errors
	if errors.As(err, &ve) {
		for _, key := range ve {
			l.refuseBulk(w, r, back, web.T(r, "validation."+key))
			return
		}
	}
	if err != nil {
		l.Kit.Fail(w, r, err)
		return
	}
	l.Kit.Flash(r, c.DoneID, "Count", n)
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// BulkDelete is a resource's two-step bulk delete.
type BulkDelete struct {
	Action    string // the address the confirmation posts to (the bulk delete's own)
	TitleID   string // message id of the confirmation's title
	MessageID string // message id of what will go, with Count
	NoneID    string // message id of the refusal when nothing is ticked
	DoneID    string // message id of the flash, with Count
	// Find names a ticked record for the confirmation; store.ErrNotFound leaves it out.
	Find func(r *http.Request, id int64) (components.Record, error)
	// Delete deletes the records ids (and what goes with them) and says how many went.
	Delete func(r *http.Request, ids []int64) (int, error)
}

// BulkDelete deletes the ticked records in two steps: the first post shows what would
// go (404 when none of them is there), the confirmed one deletes, flashes how many went
// and goes back to the list view.
func (l *List[M]) BulkDelete(w http.ResponseWriter, r *http.Request, d BulkDelete) {
	back, ids, ok := l.selection(w, r, d.NoneID)
	if !ok {
		return
	}
	if len(ids) > store.MaxBulk {
		l.refuseBulk(w, r, back, web.T(r, "validation."+validate.KeyMaxLength))
		return
	}
	if r.PostFormValue("confirm") != "1" {
		var items []components.Record
		for _, id := range ids {
			it, err := d.Find(r, id)
			if errors.Is(err, store.ErrNotFound) {
				continue
			} else if err != nil {
				l.Kit.Fail(w, r, err)
				return
			}
			items = append(items, it)
		}
		if len(items) == 0 {
			l.Kit.Fail(w, r, web.ErrNotFound)
			return
		}
		c := components.BulkDeleteConfirm(r.Context(), web.T(r, d.TitleID), web.T(r, d.MessageID, "Count", len(items)),
			d.Action, back, items)
		l.Kit.Page(w, r, http.StatusOK, c.Title, components.Confirm(c))
		return
	}
	n, err := d.Delete(r, ids)
	if err != nil {
		l.Kit.Fail(w, r, err)
		return
	}
	l.Kit.Flash(r, d.DoneID, "Count", n)
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// LimitOffered reports whether the page size the normalised query asks for is one the
// list offers (or none); it drops any other from the query.
func LimitOffered(norm url.Values) bool {
	if l := norm.Get("limit"); l != "" && !slices.Contains(components.PageSizes, l) {
		norm.Del("limit")
		return false
	}
	return true
}

// Owners are the choices of a list's owner filter (every active user) and of its bulk
// owner change (the caller alone when they reach only their own records of feature).
func Owners(r *http.Request, feature auth.Feature) (filter, bulk []components.Option, err error) {
	p := web.CallerFrom(r.Context())
	users, err := p.Scope().Users(r.Context())
	if err != nil {
		return nil, nil, err
	}
	own := p.OwnOnly(feature)
	for _, u := range users {
		o := components.Option{Value: strconv.FormatInt(u.ID, 10), Label: u.Name}
		filter = append(filter, o)
		if !own || u.ID == p.User.ID {
			bulk = append(bulk, o)
		}
	}
	return filter, bulk, nil
}

// Sort is the column a list shows sorted and which way, for the query's sort and order:
// newest first (the id, descending) without a sort, "name" as the customer's name, any
// other sort as itself ascending; an order turns it.
func Sort(sort, order string) (col string, desc bool) {
	col, desc = store.SortID, true
	switch sort {
	case "", store.SortRecent:
	case store.SortName:
		col, desc = store.SortCustomer, false
	default:
		col, desc = sort, false
	}
	if order != "" {
		desc = order == "desc"
	}
	return col, desc
}
