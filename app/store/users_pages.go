package store

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"crm/app/validate"
)

// What the users admin pages read and change besides the API's calls: the user list with
// keyset paging (the lists' machinery of list.go), a user's teams and title, and the
// security log filtered by kind and by user.

// User list limits.
const (
	DefaultUserLimit = 20
	MaxUserLimit     = 100
)

// User list sorts.
const (
	SortUserName    = "name"
	SortUserEmail   = "email"
	SortUserCreated = "created"
)

// UserSorts lists the sort names ListUserPage accepts.
var UserSorts = []string{SortUserName, SortUserEmail, SortUserCreated}

// userPageSorts are the user list's sorts, each served by an index (tenant_id, key, id) of
// sql/*/20261124100000_users_pages; "" is the name.
var userPageSorts = func() listSorts {
	m := newListSorts(map[string]listSort{
		SortUserName:    textKey("lower(u.name)"),
		SortUserEmail:   textKey("u.email"),
		SortUserCreated: timeKey("u.created_at"),
	}, nil)
	m[""] = m[SortUserName]
	return m
}()

// UserQuery selects a page of the tenant's (not deleted) users, keyset paged like the
// other lists: After holds the Next of an earlier page, Before the Prev of a later one.
type UserQuery struct {
	Search string // part of the name or the email
	RoleID int64
	TeamID int64
	Status string // "active", "inactive" or "" for both
	Sort   string // one of UserSorts; "" is the name
	Order  string // "asc", "desc" or "" (ascending)
	After  string
	Before string
	Limit  int
}

// UserPage is one page of users, with the teams of each.
type UserPage struct {
	Rows  []UserRow
	Teams map[int64][]Team // by user id
	Total int64
	Next  string // "" on the last page
	Prev  string // "" on the first page
	Limit int
}

// ListUserPage is one page of the tenant's users for the admin list. The users of a tenant
// are few (hundreds), so the count is exact.
func (s Scope) ListUserPage(ctx context.Context, q UserQuery) (*UserPage, error) {
	r, err := pageArgs{Limit: q.Limit, Search: q.Search, Sort: q.Sort, Order: q.Order, After: q.After, Before: q.Before}.
		request(userPageSorts, DefaultUserLimit, MaxUserLimit)
	if err != nil {
		return nil, err
	}
	switch q.Status {
	case "", "active", "inactive":
	default:
		return nil, validate.Errors{"status": validate.KeyInvalid}
	}
	where := func(sel *bun.SelectQuery) *bun.SelectQuery {
		sel = sel.Where("u.deleted_at IS NULL")
		if r.search != "" {
			like := "%" + escapeLike(strings.ToLower(r.search)) + "%"
			sel = sel.Where("(lower(u.name) LIKE ? ESCAPE '\\' OR u.email LIKE ? ESCAPE '\\')", like, like)
		}
		if q.RoleID != 0 {
			sel = sel.Where("u.role_id = ?", q.RoleID)
		}
		if q.TeamID != 0 {
			sel = sel.Where("EXISTS (SELECT 1 FROM team_members AS tm WHERE tm.tenant_id = u.tenant_id AND tm.team_id = ? AND tm.user_id = u.id)", q.TeamID)
		}
		switch q.Status {
		case "active":
			sel = sel.Where("u.active")
		case "inactive":
			sel = sel.Where("NOT u.active")
		}
		return sel
	}
	spec := listSpec{from: func() *bun.SelectQuery { return s.Select((*User)(nil)) }, id: "u.id", where: where}
	found, err := s.findPage(ctx, spec, r)
	if err != nil {
		return nil, err
	}
	page := &UserPage{Total: found.total, Next: found.next, Prev: found.prev, Limit: r.limit}
	page.Rows, err = readHits(ctx, found.hits, func(u *UserRow) int64 { return u.ID }, func(ids []int64) ([]UserRow, error) {
		rows := []UserRow{}
		err := s.Select(&rows).ColumnExpr("u.*").ColumnExpr("r.name AS role_name").
			Join("JOIN roles AS r ON r.tenant_id = u.tenant_id AND r.id = u.role_id").
			Where("u.id IN (?)", bun.In(ids)).Scan(ctx)
		return rows, err
	})
	if err != nil {
		return nil, err
	}
	if !found.counted {
		if page.Total, err = spec.rows().Count(ctx); err != nil {
			return nil, err
		}
	}
	ids := make([]int64, len(page.Rows))
	for i, u := range page.Rows {
		ids[i] = u.ID
	}
	page.Teams, err = s.teamsOf(ctx, ids)
	return page, err
}

// teamsOf is the teams of each of the users, by name.
func (s Scope) teamsOf(ctx context.Context, userIDs []int64) (map[int64][]Team, error) {
	out := map[int64][]Team{}
	if len(userIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		UserID int64  `bun:"user_id"`
		ID     int64  `bun:"id"`
		Name   string `bun:"name"`
	}
	err := s.Select((*Team)(nil)).Column("t.id", "t.name").ColumnExpr("tm.user_id").
		Join("JOIN team_members AS tm ON tm.tenant_id = t.tenant_id AND tm.team_id = t.id").
		Where("tm.user_id IN (?)", bun.In(userIDs)).OrderExpr("lower(t.name), t.id").Scan(ctx, &rows)
	for _, r := range rows {
		out[r.UserID] = append(out[r.UserID], Team{ID: r.ID, Name: r.Name})
	}
	return out, err
}

// UserTeams is the teams a user of the tenant is in, by name.
func (s Scope) UserTeams(ctx context.Context, userID int64) ([]Team, error) {
	m, err := s.teamsOf(ctx, []int64{userID})
	if err != nil {
		return nil, err
	}
	if m[userID] == nil {
		return []Team{}, nil
	}
	return m[userID], nil
}

// setUserTeams makes teamIDs the user's teams, with a journey entry on each team joined or
// left; an id that is no team of the tenant is refused (team_ids: invalid).
func (s Scope) setUserTeams(ctx context.Context, userID int64, teamIDs []int64) error {
	return s.Tx(ctx, func(tx Scope) error {
		want := slices.Compact(slices.Sorted(slices.Values(teamIDs)))
		if len(want) > 0 {
			n, err := tx.Select((*Team)(nil)).Where("t.id IN (?)", bun.In(want)).Count(ctx)
			n64 := int64(n)
			if err != nil {
				return err
			}
			if n64 != int64(len(want)) {
				return validate.Errors{"team_ids": validate.KeyInvalid}
			}
		}
		var have []int64
		if err := tx.Select((*TeamMember)(nil)).Column("team_id").Where("user_id = ?", userID).Scan(ctx, &have); err != nil {
			return err
		}
		for _, id := range have {
			if slices.Contains(want, id) {
				continue
			}
			if _, err := tx.Delete((*TeamMember)(nil)).Where("team_id = ? AND user_id = ?", id, userID).Exec(ctx); err != nil {
				return err
			}
			if err := tx.Record(ctx, "team", id, "member_remove", map[string]any{"user_id": userID}, nil); err != nil {
				return err
			}
		}
		for _, id := range want {
			if slices.Contains(have, id) {
				continue
			}
			if _, err := tx.Insert(&TeamMember{TeamID: id, UserID: userID}).Exec(ctx); err != nil {
				return err
			}
			if err := tx.Record(ctx, "team", id, "member_add", nil, map[string]any{"user_id": userID}); err != nil {
				return err
			}
		}
		return nil
	})
}

// checkTitle refuses a personal title that is not one of the tenant's title master ("" is none).
func (s Scope) checkTitle(ctx context.Context, title string) error {
	if title == "" {
		return nil
	}
	ok, err := s.Select((*Master)(nil)).Where("kind = ? AND name = ?", KindTitle, title).Exists(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return validate.Errors{"title": validate.KeyInvalid}
	}
	return nil
}

// SecurityKinds are the kinds of the security log, for its filter.
var SecurityKinds = []string{SecSignIn, SecSignInFailed, SecUserCreated, SecUserInvited, SecUserChanged, SecUserActivated,
	SecUserDeactivated, SecUserDeleted, SecPasswordSet, "password_reset_requested", SecTokenCreated, SecTokenRevoked,
	SecTwoFactor, SecRoleChanged}

// SecurityQuery selects a page of the security log, newest first, keyset paged.
type SecurityQuery struct {
	Kind   string // one of SecurityKinds, "" for all
	UserID int64  // entries whose actor or subject is this user, 0 for all
	After  string
	Before string
	Limit  int
}

// SecurityRow is a security log entry with the names of its actor and subject.
type SecurityRow struct {
	SecurityEntry
	ActorName   string
	SubjectName string
}

// SecurityPage is one page of the security log.
type SecurityPage struct {
	Rows  []SecurityRow
	Total int64
	// Capped: there are more than Total entries (the count stops at securityCountCap).
	Capped bool
	Next   string
	Prev   string
	Limit  int
}

// securityCountCap is where the security log's count stops ("10,000+"): a busy tenant's
// log grows without end, and nobody reads an exact figure past it.
const securityCountCap = 10_000

// SecurityLogPage is one page of the tenant's security log for the admin page.
func (s Scope) SecurityLogPage(ctx context.Context, q SecurityQuery) (*SecurityPage, error) {
	r, err := pageArgs{Limit: q.Limit, After: q.After, Before: q.Before}.request(newListSorts(nil, nil), 50, MaxUserLimit)
	if err != nil {
		return nil, err
	}
	if q.Kind != "" && !slices.Contains(SecurityKinds, q.Kind) {
		return nil, validate.Errors{"kind": validate.KeyInvalid}
	}
	where := func(sel *bun.SelectQuery) *bun.SelectQuery {
		if q.Kind != "" {
			sel = sel.Where("sl.kind = ?", q.Kind)
		}
		if q.UserID != 0 {
			sel = sel.Where("(sl.actor_user_id = ? OR sl.subject_user_id = ?)", q.UserID, q.UserID)
		}
		return sel
	}
	spec := listSpec{from: func() *bun.SelectQuery { return s.Select((*SecurityEntry)(nil)) }, id: "sl.id", where: where}
	found, err := s.findPage(ctx, spec, r)
	if err != nil {
		return nil, err
	}
	page := &SecurityPage{Total: found.total, Next: found.next, Prev: found.prev, Limit: r.limit}
	entries, err := readHits(ctx, found.hits, func(e *SecurityEntry) int64 { return e.ID }, func(ids []int64) ([]SecurityEntry, error) {
		rows := []SecurityEntry{}
		err := s.Select(&rows).Where("sl.id IN (?)", bun.In(ids)).Scan(ctx)
		return rows, err
	})
	if err != nil {
		return nil, err
	}
	if !found.counted {
		if page.Total, page.Capped, err = s.countCapped(ctx, spec.rows(), securityCountCap); err != nil {
			return nil, err
		}
	}
	var ids []int64
	for _, e := range entries {
		for _, p := range []*int64{e.ActorUserID, e.SubjectUserID} {
			if p != nil && !slices.Contains(ids, *p) {
				ids = append(ids, *p)
			}
		}
	}
	names, err := s.userNames(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		row := SecurityRow{SecurityEntry: e}
		if e.ActorUserID != nil {
			row.ActorName = names[*e.ActorUserID]
		}
		if e.SubjectUserID != nil {
			row.SubjectName = names[*e.SubjectUserID]
		}
		page.Rows = append(page.Rows, row)
	}
	return page, nil
}

// userNames names the users of ids, deleted ones included (the log keeps naming them).
func (s Scope) userNames(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []User
	err := s.Select(&rows).Column("u.id", "u.name", "u.email").Where("u.id IN (?)", bun.In(ids)).Scan(ctx)
	for _, u := range rows {
		out[u.ID] = u.Name + " (" + u.Email + ")"
	}
	return out, err
}

// AllUsers lists every (not deleted) user of the tenant by name, inactive ones included,
// for the security log's user filter.
func (s Scope) AllUsers(ctx context.Context) ([]User, error) {
	out := []User{}
	err := s.Select(&out).Where("u.deleted_at IS NULL").OrderExpr("lower(u.name), u.id").Scan(ctx)
	return out, err
}

// CanRemoveUser refuses what DeleteUser and a deactivation refuse whatever the request:
// the caller themself (ErrSelfChange), the last active administrator (ErrLastAdmin).
func (s Scope) CanRemoveUser(ctx context.Context, id int64) error {
	if id == s.UserID {
		return ErrSelfChange
	}
	return s.keepsAnAdmin(ctx, id)
}

// roleChanged records a change of a role (created, renamed, its permissions, deleted) in
// its journey and in the security log, in the caller's transaction.
func (s Scope) roleChanged(ctx context.Context, id int64, name, action string, before, after any) error {
	if err := s.LogSecurity(ctx, SecRoleChanged, 0, action+": "+name); err != nil {
		return err
	}
	return s.Record(ctx, "role", id, action, before, after)
}

// ignoreNotFound is err, or nil for ErrNotFound.
func ignoreNotFound(err error) error {
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}
