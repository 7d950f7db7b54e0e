package store

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"crm/app/i18n"
	"crm/app/validate"
)

// Rules of user administration that refuse a change (answered as a refusal, not a crash).
var (
	ErrSelfChange     error = &ruleError{text: "cannot deactivate or delete yourself", msgID: "users.selfChange"}
	ErrLastAdmin      error = &ruleError{text: "the last active administrator must stay", msgID: "users.lastAdmin"}
	ErrNewOwnerNeeded error = &ruleError{text: "the user owns records: name a new owner", msgID: "users.newOwnerNeeded"}
)

// UserRow is a user as lists and the API show it: with its role's name.
type UserRow struct {
	bun.BaseModel `bun:"table:users,alias:u"`
	User          `bun:",extend"`
	RoleName      string `bun:"role_name,scanonly" json:"role_name"`
}

// UserFilter narrows and pages the user list.
type UserFilter struct {
	Search string // part of the name or email
	RoleID int64
	Status string // "active", "inactive" or "" for both
	Sort   string // "name" (default), "email", "last_sign_in", "created"
	Desc   bool
	Page   int64
	Limit  int64
}

var userSorts = map[string]string{"name": "u.name", "email": "u.email", "last_sign_in": "u.last_sign_in_at", "created": "u.created_at"}

// ListUsers is one page of the tenant's (not deleted) users and how many match.
func (s Scope) ListUsers(ctx context.Context, f UserFilter) ([]UserRow, int64, error) {
	if f.Limit <= 0 || f.Limit > 100 {
		f.Limit = 25
	}
	if f.Page <= 0 {
		f.Page = 1
	}
	out := []UserRow{}
	q := s.Select(&out).ColumnExpr("u.*").ColumnExpr("r.name AS role_name").
		Join("JOIN roles AS r ON r.tenant_id = u.tenant_id AND r.id = u.role_id").
		Where("u.deleted_at IS NULL")
	if utf8.RuneCountInString(f.Search) > maxSearchLen {
		return nil, 0, validate.Errors{"search": validate.KeyMaxLength}
	}
	if term := strings.ToLower(strings.TrimSpace(f.Search)); term != "" {
		like := "%" + strings.NewReplacer("%", "", "_", "").Replace(term) + "%"
		q = q.Where("(lower(u.name) LIKE ? OR u.email LIKE ?)", like, like)
	}
	if f.RoleID != 0 {
		q = q.Where("u.role_id = ?", f.RoleID)
	}
	switch f.Status {
	case "active":
		q = q.Where("u.active")
	case "inactive":
		q = q.Where("NOT u.active")
	}
	col, ok := userSorts[f.Sort]
	if !ok {
		col = "u.name"
	}
	dir := " ASC"
	if f.Desc {
		dir = " DESC"
	}
	total, err := q.OrderExpr(col + dir + ", u.id" + dir).Limit(f.Limit).Offset((f.Page - 1) * f.Limit).ScanAndCount(ctx)
	return out, total, err
}

// UserView loads one (not deleted) user of the tenant with its role's name.
func (s Scope) UserView(ctx context.Context, id int64) (*UserRow, error) {
	row := &UserRow{}
	err := s.Select(row).ColumnExpr("u.*").ColumnExpr("r.name AS role_name").
		Join("JOIN roles AS r ON r.tenant_id = u.tenant_id AND r.id = u.role_id").
		Where("u.id = ? AND u.deleted_at IS NULL", id).Scan(ctx)
	return row, notFound(err)
}

// UserInput is what an administrator may change of a user.
type UserInput struct {
	Name     string
	Title    string // a personal title of the tenant's title master ("" for none)
	Phone    string
	RoleID   int64
	Locale   string
	TimeZone string
	// Teams, when not nil, are the teams the user is in afterwards (nil: unchanged).
	Teams *[]int64
}

func (in *UserInput) normalise() validate.Errors {
	in.Name, in.Title, in.TimeZone = strings.TrimSpace(in.Name), strings.TrimSpace(in.Title), strings.TrimSpace(in.TimeZone)
	in.Phone = validate.NormalisePhone(in.Phone)
	errs := validate.Errors{}
	errs.Check(validate.Required(in.Name), "name", validate.KeyRequired)
	errs.Check(validate.NoHTML(in.Name), "name", validate.KeyHTMLNotAllowed)
	if in.Phone != "" {
		errs.Check(validate.Phone(in.Phone), "phone", validate.KeyInvalidPhone)
	}
	checkProfile(errs, in.Locale, in.TimeZone)
	return errs
}

// checkProfile checks a user's language (one of the admin's, or "" for the tenant's) and
// time zone (an IANA name, or "" for the tenant's).
func checkProfile(errs validate.Errors, locale, timeZone string) {
	if locale != "" && !i18n.Supported(locale) {
		errs.Add("locale", validate.KeyInvalid)
	}
	if timeZone != "" {
		if _, err := time.LoadLocation(timeZone); err != nil || timeZone == "Local" {
			errs.Add("time_zone", validate.KeyInvalid)
		}
	}
}

// isAdminRole reports whether the role is the tenant's Administrator role.
func (s Scope) isAdminRole(ctx context.Context, roleID int64) (bool, error) {
	return s.Select((*Role)(nil)).Where("id = ? AND name = ?", roleID, RoleAdministrator).Exists(ctx)
}

// keepsAnAdmin refuses a change that would leave the tenant without an active
// administrator other than the user being changed.
func (s Scope) keepsAnAdmin(ctx context.Context, userID int64) error {
	u, err := s.User(ctx, userID)
	if err != nil {
		return err
	}
	admin, err := s.isAdminRole(ctx, u.RoleID)
	if err != nil || !admin || !u.Active {
		return err
	}
	others, err := s.Select((*User)(nil)).Where("role_id = ? AND active AND deleted_at IS NULL AND id <> ?", u.RoleID, userID).Exists(ctx)
	if err != nil {
		return err
	}
	if !others {
		return ErrLastAdmin
	}
	return nil
}

// UpdateUser changes a user's details and role. Moving the last active administrator to
// another role is refused, so the tenant cannot lock itself out.
func (s Scope) UpdateUser(ctx context.Context, id int64, in UserInput) (*UserRow, error) {
	if errs := in.normalise(); len(errs) > 0 {
		return nil, errs
	}
	err := s.Tx(ctx, func(tx Scope) error {
		before, err := tx.UserView(ctx, id)
		if err != nil {
			return err
		}
		if in.RoleID == 0 {
			in.RoleID = before.RoleID
		}
		if ok, err := tx.Select((*Role)(nil)).Where("id = ?", in.RoleID).Exists(ctx); err != nil {
			return err
		} else if !ok {
			return validate.Errors{"role_id": validate.KeyInvalid}
		}
		if in.RoleID != before.RoleID {
			if err := tx.keepsAnAdmin(ctx, id); err != nil {
				return err
			}
		}
		if in.Title != before.Title {
			if err := tx.checkTitle(ctx, in.Title); err != nil {
				return err
			}
		}
		if in.Teams != nil {
			if err := tx.setUserTeams(ctx, id, *in.Teams); err != nil {
				return err
			}
		}
		_, err = tx.Update((*User)(nil)).Set("name = ?", in.Name).Set("title = ?", in.Title).Set("phone = ?", in.Phone).
			Set("role_id = ?", in.RoleID).Set("locale = ?", in.Locale).Set("time_zone = ?", in.TimeZone).
			Set("updated_at = ?", time.Now().UTC()).Where("id = ?", id).Exec(ctx)
		if err != nil {
			return err
		}
		if err := tx.LogSecurity(ctx, SecUserChanged, id, ""); err != nil {
			return err
		}
		return tx.Record(ctx, "user", id, "update", before.User, in)
	})
	if err != nil {
		return nil, err
	}
	return s.UserView(ctx, id)
}

// SetUserActive activates or deactivates a user. Deactivation revokes the user's API
// tokens at once; their sessions are refused from the next request on, since every
// request reloads the user and an inactive one is not a caller. A user cannot deactivate
// themself, nor the last active administrator.
func (s Scope) SetUserActive(ctx context.Context, id int64, active bool) (*UserRow, error) {
	err := s.Tx(ctx, func(tx Scope) error {
		before, err := tx.UserView(ctx, id)
		if err != nil {
			return err
		}
		if before.Active == active {
			return nil
		}
		if !active {
			if id == tx.UserID {
				return ErrSelfChange
			}
			if err := tx.keepsAnAdmin(ctx, id); err != nil {
				return err
			}
			if err := tx.revokeUserTokens(ctx, id); err != nil {
				return err
			}
		}
		if _, err := tx.Update((*User)(nil)).Set("active = ?", active).Set("updated_at = ?", time.Now().UTC()).
			Where("id = ?", id).Exec(ctx); err != nil {
			return err
		}
		kind := SecUserActivated
		if !active {
			kind = SecUserDeactivated
		}
		if err := tx.LogSecurity(ctx, kind, id, ""); err != nil {
			return err
		}
		return tx.Record(ctx, "user", id, "update", map[string]bool{"active": before.Active}, map[string]bool{"active": active})
	})
	if err != nil {
		return nil, err
	}
	return s.UserView(ctx, id)
}

func (s Scope) revokeUserTokens(ctx context.Context, userID int64) error {
	_, err := s.Update((*APIToken)(nil)).Set("revoked_at = ?", time.Now().UTC()).
		Where("user_id = ? AND revoked_at IS NULL", userID).Exec(ctx)
	return err
}

// OwnedRecords counts the leads and clients a user owns.
func (s Scope) OwnedRecords(ctx context.Context, userID int64) (leads, clients int64, err error) {
	if leads, err = s.Select((*Lead)(nil)).Where("owner_id = ?", userID).Count(ctx); err != nil {
		return 0, 0, err
	}
	clients, err = s.Select((*Client)(nil)).Where("owner_id = ?", userID).Count(ctx)
	return leads, clients, err
}

// ReassignOwner moves every lead and client userID owns to newOwnerID, with a journey
// entry on each record, in the caller's transaction.
func (s Scope) ReassignOwner(ctx context.Context, userID, newOwnerID int64) error {
	return s.Tx(ctx, func(tx Scope) error {
		target, err := tx.User(ctx, newOwnerID)
		if errors.Is(err, ErrNotFound) || (err == nil && (!target.Active || target.DeletedAt != nil)) {
			return validate.Errors{"new_owner_id": validate.KeyInvalid}
		} else if err != nil {
			return err
		}
		for _, e := range []struct {
			entity string
			model  any
		}{{EntityLead, (*Lead)(nil)}, {EntityClient, (*Client)(nil)}} {
			var ids []int64
			if err := tx.Select(e.model).Column("id").Where("owner_id = ?", userID).Scan(ctx, &ids); err != nil {
				return err
			}
			if len(ids) == 0 {
				continue
			}
			if _, err := tx.Update(e.model).Set("owner_id = ?", newOwnerID).Where("owner_id = ?", userID).Exec(ctx); err != nil {
				return err
			}
			for _, id := range ids {
				if err := tx.Record(ctx, e.entity, id, "update", map[string]int64{"owner_id": userID}, map[string]int64{"owner_id": newOwnerID}); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// DeleteUser removes a user: their leads and clients go to newOwnerID (required when they
// own any), their tokens are revoked, their sign-in email is freed, and the row stays,
// marked deleted and inactive, so the journeys that name them still read. A user cannot
// delete themself, nor the last active administrator.
func (s Scope) DeleteUser(ctx context.Context, id, newOwnerID int64) error {
	return s.Tx(ctx, func(tx Scope) error {
		u, err := tx.UserView(ctx, id)
		if err != nil {
			return err
		}
		if id == tx.UserID {
			return ErrSelfChange
		}
		if err := tx.keepsAnAdmin(ctx, id); err != nil {
			return err
		}
		leads, clients, err := tx.OwnedRecords(ctx, id)
		if err != nil {
			return err
		}
		if leads+clients > 0 {
			if newOwnerID == 0 || newOwnerID == id {
				return ErrNewOwnerNeeded
			}
			if err := tx.ReassignOwner(ctx, id, newOwnerID); err != nil {
				return err
			}
		}
		if err := tx.revokeUserTokens(ctx, id); err != nil {
			return err
		}
		now := time.Now().UTC()
		if _, err := tx.Update((*User)(nil)).Set("active = ?", false).Set("deleted_at = ?", now).
			Set("updated_at = ?", now).Where("id = ?", id).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.idb.NewDelete().Model((*userDirectory)(nil)).
			Where("tenant_id = ? AND user_id = ?", tx.TenantID, id).Exec(ctx); err != nil {
			return err
		}
		if err := tx.LogSecurity(ctx, SecUserDeleted, id, u.Email); err != nil {
			return err
		}
		return tx.Record(ctx, "user", id, "delete", u.User, nil)
	})
}

// EmailFree reports whether a sign-in email is unused in every tenant (a login email
// identifies its tenant).
func (db *DB) EmailFree(ctx context.Context, email string) (bool, error) {
	taken, err := db.bun.NewSelect().Model((*userDirectory)(nil)).
		Where("email = ?", strings.ToLower(strings.TrimSpace(email))).Exists(ctx)
	return !taken, err
}
