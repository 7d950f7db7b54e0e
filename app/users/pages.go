package users

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"crm/app/auth"
	"crm/app/listpage"
	"crm/app/store"
	"crm/app/validate"
	"crm/app/web"
	"crm/views/components"
	usersview "crm/views/users"
)

// Query reads the user list's state from a query string: search, role_id, team_id, status
// (active or inactive), sort (name, email, created), order, after or before (keyset
// cursors), limit. It returns the store's query, the valid values worth keeping in the
// page's links, and the error key of every other value.
func Query(in url.Values) (store.UserQuery, url.Values, validate.Errors) {
	norm, errs := url.Values{}, validate.Errors{}
	lp := web.ReadListParams(in, norm, errs)
	q := store.UserQuery{Search: lp.Search, Order: lp.Order, Limit: lp.Limit}
	if srt := strings.ToLower(strings.TrimSpace(in.Get("sort"))); slices.Contains(store.UserSorts, srt) {
		q.Sort = srt
		norm.Set("sort", srt)
	}
	for name, dst := range map[string]*int64{"role_id": &q.RoleID, "team_id": &q.TeamID} {
		if raw := in.Get(name); raw != "" {
			id, err := strconv.ParseInt(raw, 10, 64)
			if err != nil || id <= 0 {
				errs.Add(name, validate.KeyInvalid)
				continue
			}
			*dst = id
			norm.Set(name, raw)
		}
	}
	switch st := in.Get("status"); st {
	case "":
	case usersview.StatusActive, usersview.StatusInactive:
		q.Status = st
		norm.Set("status", st)
	default:
		errs.Add("status", validate.KeyInvalid)
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

// newList is the user list page as the list kit serves it.
func (h *Handler) newList() *listpage.List[*usersview.List] {
	return &listpage.List[*usersview.List]{Kit: h.web, Path: usersview.ListPath, Results: usersview.ResultsID,
		TitleID: "usersPage.title", Load: h.userList,
		Page:     func(m *usersview.List) templ.Component { return usersview.ListPage(*m) },
		Fragment: func(m *usersview.List) templ.Component { return usersview.ResultsFragment(*m) },
		SetError: func(*usersview.List, string) {}}
}

// userList loads what the list page shows for a query string.
func (h *Handler) userList(r *http.Request, in url.Values) (*usersview.List, error) {
	ctx := r.Context()
	p := web.CallerFrom(ctx)
	scope := p.Scope()
	q, norm, errs := Query(in)
	if !listpage.LimitOffered(norm) {
		q.Limit = 0
	}
	page, err := scope.ListUserPage(ctx, q)
	var ve validate.Errors
	if q.After+q.Before != "" && (errors.As(err, &ve) || err == nil && len(page.Rows) == 0) {
		// A cursor of another sort, a mangled one, or one past what is left: the first page.
		q.After, q.Before = "", ""
		norm.Del("after")
		norm.Del("before")
		page, err = scope.ListUserPage(ctx, q)
	}
	if err != nil {
		return nil, err
	}
	desc := q.Order == "desc"
	sort := q.Sort
	if sort == "" {
		sort = store.SortUserName
	}
	m := &usersview.List{ListState: usersview.State(norm, errs, sort, desc), Page: page,
		CanCreate: p.Allows(auth.FeatureUsers, auth.Create)}
	m.Filtered = q.Search != "" || q.RoleID != 0 || q.TeamID != 0 || q.Status != "" || len(errs) > 0
	if m.Roles, m.Teams, err = choices(r); err != nil {
		return nil, err
	}
	m.Pager = m.ListState.Pager(ctx, web.T(r, "usersPage.pages"), false, page.Prev, page.Next)
	return m, nil
}

// choices are the tenant's roles and teams as options.
func choices(r *http.Request) (roles, teams []components.Option, err error) {
	scope := web.Scope(r)
	rs, err := scope.Roles(r.Context())
	if err != nil {
		return nil, nil, err
	}
	for _, role := range rs {
		roles = append(roles, components.Option{Value: strconv.FormatInt(role.ID, 10), Label: role.Name})
	}
	ts, err := scope.Teams(r.Context())
	if err != nil {
		return nil, nil, err
	}
	for _, t := range ts {
		teams = append(teams, components.Option{Value: strconv.FormatInt(t.ID, 10), Label: t.Name})
	}
	return roles, teams, nil
}

// UsersPage is GET /users.
func (h *Handler) UsersPage(w http.ResponseWriter, r *http.Request) { h.list.Serve(w, r) }

// form is the add or edit form's model for u (nil to add) with values and errors.
func (h *Handler) form(r *http.Request, u *store.UserRow, values map[string]string, teamIDs []int64, errs validate.Errors) (*usersview.Form, error) {
	f := &usersview.Form{User: u, Values: values, TeamIDs: teamIDs, Errors: errs, TimeZones: usersview.TimeZones}
	var err error
	if f.Roles, f.Teams, err = choices(r); err != nil {
		return nil, err
	}
	titles, err := web.Scope(r).Masters(r.Context(), store.KindTitle)
	if err != nil {
		return nil, err
	}
	for _, t := range titles {
		f.Titles = append(f.Titles, components.Option{Value: t.Name, Label: t.Name})
	}
	if v := values["title"]; v != "" && !slices.ContainsFunc(f.Titles, func(o components.Option) bool { return o.Value == v }) {
		f.Titles = append(f.Titles, components.Option{Value: v, Label: v}) // a title since removed from the master
	}
	return f, nil
}

// renderForm shows the form with status.
func (h *Handler) renderForm(w http.ResponseWriter, r *http.Request, status int, f *usersview.Form) {
	title := web.T(r, "usersPage.newTitle")
	if !f.Adding() {
		title = web.T(r, "usersPage.editTitle", "Name", f.User.Name)
	}
	h.web.Page(w, r, status, title, usersview.FormPage(*f))
}

// formValues reads the posted user form: its text values, role and teams.
func formValues(w http.ResponseWriter, r *http.Request) (values map[string]string, roleID int64, teamIDs []int64, err error) {
	if err := web.ReadForm(w, r); err != nil {
		return nil, 0, nil, err
	}
	values = map[string]string{}
	for _, name := range []string{"title", "name", "email", "phone", "role_id", "locale", "time_zone", "access"} {
		values[name] = strings.TrimSpace(r.PostFormValue(name))
	}
	roleID, _ = strconv.ParseInt(values["role_id"], 10, 64)
	teamIDs, err = web.FormIDs(r, "team_ids")
	return values, roleID, teamIDs, err
}

// NewUserPage is GET /users/new.
func (h *Handler) NewUserPage(w http.ResponseWriter, r *http.Request) {
	f, err := h.form(r, nil, map[string]string{"access": "invite"}, nil, nil)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.renderForm(w, r, http.StatusOK, f)
}

// CreateUserPage is POST /users/new: the user is added with a password, then their page;
// or invited, then the page with the link to pass on. Field errors show on the form (422).
func (h *Handler) CreateUserPage(w http.ResponseWriter, r *http.Request) {
	values, roleID, teamIDs, err := formValues(w, r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	access := values["access"]
	n := store.NewUser{Email: values["email"], Name: values["name"], Title: values["title"], Phone: values["phone"],
		Locale: values["locale"], TimeZone: values["time_zone"], TeamIDs: teamIDs, Invite: access != "password"}
	if !n.Invite {
		n.Password = r.PostFormValue("password")
	}
	var out *created
	if access != "password" && access != "invite" {
		err = validate.Errors{"access": validate.KeyInvalid}
	} else {
		out, err = h.create(r.Context(), r, web.Scope(r), roleID, n)
	}
	var ve validate.Errors
	if errors.As(err, &ve) {
		if k := ve["role"]; k != "" {
			ve["role_id"] = k
			delete(ve, "role")
		}
		f, ferr := h.form(r, nil, values, teamIDs, ve)
		if ferr != nil {
			h.web.Fail(w, r, ferr)
			return
		}
		h.renderForm(w, r, http.StatusUnprocessableEntity, f)
		return
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if out.InviteLink != "" {
		m := usersview.Invited{User: out.User, Link: out.InviteLink}
		h.web.Page(w, r, http.StatusCreated, web.T(r, "usersPage.invitedTitle", "Name", out.User.Name), usersview.InvitedPage(m))
		return
	}
	h.web.Flash(r, "users.created")
	http.Redirect(w, r, usersview.Href(out.User.ID), http.StatusSeeOther)
}

// view is a user page's model.
func (h *Handler) view(r *http.Request, id int64) (*usersview.View, error) {
	p := web.Caller(r)
	u, err := p.Scope().UserView(r.Context(), id)
	if err != nil {
		return nil, err
	}
	teams, err := p.Scope().UserTeams(r.Context(), id)
	if err != nil {
		return nil, err
	}
	return &usersview.View{User: u, Teams: teams, Self: id == p.User.ID,
		CanUpdate: p.Allows(auth.FeatureUsers, auth.Update), CanDelete: p.Allows(auth.FeatureUsers, auth.Delete)}, nil
}

// UserPage is GET /users/{id}.
func (h *Handler) UserPage(w http.ResponseWriter, r *http.Request) {
	web.PageByID(h.web, w, r, h.view, func(v *usersview.View) (string, templ.Component) {
		return v.User.Name + " · " + web.T(r, "usersPage.title"), usersview.ViewPage(*v)
	})
}

// EditUserPage is GET /users/{id}/edit.
func (h *Handler) EditUserPage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	scope := web.Scope(r)
	u, err := scope.UserView(r.Context(), id)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	teams, err := scope.UserTeams(r.Context(), id)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	ids := make([]int64, len(teams))
	for i, t := range teams {
		ids[i] = t.ID
	}
	values := map[string]string{"title": u.Title, "name": u.Name, "phone": u.Phone, "role_id": strconv.FormatInt(u.RoleID, 10),
		"locale": u.Locale, "time_zone": u.TimeZone}
	f, err := h.form(r, u, values, ids, nil)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.renderForm(w, r, http.StatusOK, f)
}

// UpdateUserPage is POST /users/{id}/edit: field errors show on the form (422), a refusal
// (the last administrator's role) above it (409).
func (h *Handler) UpdateUserPage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	values, roleID, teamIDs, err := formValues(w, r)
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	scope := web.Scope(r)
	in := store.UserInput{Name: values["name"], Title: values["title"], Phone: values["phone"], RoleID: roleID,
		Locale: values["locale"], TimeZone: values["time_zone"], Teams: &teamIDs}
	if roleID == 0 {
		err = validate.Errors{"role_id": validate.KeyRequired}
	} else {
		_, err = scope.UpdateUser(r.Context(), id, in)
	}
	var ve validate.Errors
	var refusal store.Refusal
	if errors.As(err, &ve) || errors.As(err, &refusal) {
		u, uerr := scope.UserView(r.Context(), id)
		if uerr != nil {
			h.web.Fail(w, r, uerr)
			return
		}
		f, ferr := h.form(r, u, values, teamIDs, ve)
		if ferr != nil {
			h.web.Fail(w, r, ferr)
			return
		}
		status, msgID, args, _ := web.Classify(err)
		if refusal != nil {
			f.Error = web.T(r, msgID, args...)
		}
		h.renderForm(w, r, status, f)
		return
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	h.web.Flash(r, "users.updated")
	http.Redirect(w, r, usersview.Href(id), http.StatusSeeOther)
}

// UserStatusPage is POST /users/{id}/status: activates or deactivates the user (a
// deactivated user's sessions and tokens stop at once). Deactivating oneself or the last
// active administrator is refused on the user's page, with the reason (409).
func (h *Handler) UserStatusPage(w http.ResponseWriter, r *http.Request) {
	id, err := web.PathID(r, "id")
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	if err := web.ReadForm(w, r); err != nil {
		h.web.Fail(w, r, err)
		return
	}
	st := r.PostFormValue("status")
	if st != usersview.StatusActive && st != usersview.StatusInactive {
		h.web.Fail(w, r, validate.Errors{"status": validate.KeyInvalid})
		return
	}
	_, err = web.Scope(r).SetUserActive(r.Context(), id, st == usersview.StatusActive)
	var refusal store.Refusal
	if errors.As(err, &refusal) {
		v, verr := h.view(r, id)
		if verr != nil {
			h.web.Fail(w, r, verr)
			return
		}
		status, msgID, args, _ := web.Classify(err)
		v.Error = web.T(r, msgID, args...)
		h.web.Page(w, r, status, v.User.Name, usersview.ViewPage(*v))
		return
	}
	if err != nil {
		h.web.Fail(w, r, err)
		return
	}
	msg := "usersPage.activated"
	if st == usersview.StatusInactive {
		msg = "usersPage.deactivated"
	}
	h.web.Flash(r, msg)
	http.Redirect(w, r, usersview.Href(id), http.StatusSeeOther)
}

// deleteModel is the delete confirmation: what the user owns, the active users who may
// take it over, and whether the rules refuse the deletion outright.
func (h *Handler) deleteModel(r *http.Request, id int64) (*usersview.Delete, error) {
	scope := web.Scope(r)
	u, err := scope.UserView(r.Context(), id)
	if err != nil {
		return nil, err
	}
	m := &usersview.Delete{User: u}
	if m.Leads, m.Clients, err = scope.OwnedRecords(r.Context(), id); err != nil {
		return nil, err
	}
	users, err := scope.Users(r.Context())
	if err != nil {
		return nil, err
	}
	for _, o := range users {
		if o.ID != id {
			m.Owners = append(m.Owners, components.Option{Value: strconv.FormatInt(o.ID, 10), Label: o.Name + " (" + o.Email + ")"})
		}
	}
	if err := scope.CanRemoveUser(r.Context(), id); err != nil {
		var refusal store.Refusal
		if !errors.As(err, &refusal) {
			return nil, err
		}
		_, msgID, args, _ := web.Classify(err)
		m.Refused, m.Error = true, web.T(r, msgID, args...)
	}
	return m, nil
}

// DeleteUserPage is GET /users/{id}/delete: the confirmation step.
func (h *Handler) DeleteUserPage(w http.ResponseWriter, r *http.Request) {
	web.PageByID(h.web, w, r, h.deleteModel, deletePage(r))
}

// DeleteUserSubmit is POST /users/{id}/delete: the user's leads and clients go to
// new_owner_id in the same transaction (with a journey entry each), then the user goes; a
// refusal shows the confirmation again with the reason.
func (h *Handler) DeleteUserSubmit(w http.ResponseWriter, r *http.Request) {
	web.MoveAndDelete[*usersview.Delete]{
		Field:  "new_owner_id",
		Delete: func(r *http.Request, id, owner int64) error { return web.Scope(r).DeleteUser(r.Context(), id, owner) },
		Load:   h.deleteModel,
		Refused: func(r *http.Request, m *usersview.Delete, _ error, reason string) {
			m.Error, m.OwnerID = reason, r.PostFormValue("new_owner_id")
			for i := range m.Owners {
				m.Owners[i].Selected = m.Owners[i].Value == m.OwnerID
			}
		},
		Page:  deletePage(r),
		Flash: "users.deleted",
		Done:  usersview.ListPath,
	}.Serve(h.web, w, r)
}

func deletePage(r *http.Request) func(*usersview.Delete) (string, templ.Component) {
	return func(m *usersview.Delete) (string, templ.Component) {
		return web.T(r, "usersPage.deleteTitle", "Name", m.User.Name), usersview.DeletePage(*m)
	}
}
