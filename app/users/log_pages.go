package users

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/a-h/templ"

	"crm/app/listpage"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	"crm/views/components"
	usersview "crm/views/users"
)

// LogQuery reads the security log's state from a query string: kind, user_id, after or
// before (keyset cursors), limit.
func LogQuery(in url.Values) (store.SecurityQuery, url.Values, validate.Errors) {
	norm, errs := url.Values{}, validate.Errors{}
	lp := web.ReadListParams(in, norm, errs)
	q := store.SecurityQuery{Limit: lp.Limit}
	if k := in.Get("kind"); k != "" {
		if slices.Contains(store.SecurityKinds, k) {
			q.Kind = k
			norm.Set("kind", k)
		} else {
			errs.Add("kind", validate.KeyInvalid)
		}
	}
	if raw := in.Get("user_id"); raw != "" {
		id, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || id <= 0 {
			errs.Add("user_id", validate.KeyInvalid)
		} else {
			q.UserID = id
			norm.Set("user_id", raw)
		}
	}
	if after := in.Get("after"); after != "" {
		q.After = after
		norm.Set("after", after)
	} else if before := in.Get("before"); before != "" {
		q.Before = before
		norm.Set("before", before)
	}
	return q, norm, errs
}

// newLog is the security log page as the list kit serves it.
func (h *Handler) newLog() *listpage.List[*usersview.Log] {
	return &listpage.List[*usersview.Log]{Kit: h.web, Path: usersview.LogPath, Results: usersview.LogResultsID,
		TitleID: "usersPage.log", Load: h.logList,
		Page:     func(m *usersview.Log) templ.Component { return usersview.LogPage(*m) },
		Fragment: func(m *usersview.Log) templ.Component { return usersview.LogResults(*m) },
		SetError: func(*usersview.Log, string) {}}
}

// logList loads a page of the security log for a query string.
func (h *Handler) logList(r *http.Request, in url.Values) (*usersview.Log, error) {
	ctx := r.Context()
	scope := web.Scope(r)
	q, norm, errs := LogQuery(in)
	if !listpage.LimitOffered(norm) {
		q.Limit = 0
	}
	page, err := scope.SecurityLogPage(ctx, q)
	var ve validate.Errors
	if q.After+q.Before != "" && (errors.As(err, &ve) || err == nil && len(page.Rows) == 0) {
		q.After, q.Before = "", ""
		norm.Del("after")
		norm.Del("before")
		page, err = scope.SecurityLogPage(ctx, q)
	}
	if err != nil {
		return nil, err
	}
	m := &usersview.Log{ListState: usersview.LogState(norm, errs), Page: page, Filtered: q.Kind != "" || q.UserID != 0 || len(errs) > 0}
	users, err := scope.AllUsers(ctx)
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		m.Users = append(m.Users, components.Option{Value: strconv.FormatInt(u.ID, 10), Label: u.Name + " (" + u.Email + ")"})
	}
	m.Pager = m.ListState.Pager(ctx, web.T(r, "usersPage.logPages"), false, page.Prev, page.Next)
	return m, nil
}

// SecurityLogPage is GET /security-log.
func (h *Handler) SecurityLogPage(w http.ResponseWriter, r *http.Request) { h.log.Serve(w, r) }
